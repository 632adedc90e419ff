-- 118_explain_capacity_count.sql — an explain row blocked by `capacity`
-- tells how many of the GPUs it needs are free now. It said "8 a100 GPUs
-- are held by launching or running jobs" when 2 of the 8 were held
-- (mixdnn.metrics: gpus_held 2, gpus_free 6): the configuration's count
-- read as the count held. Rows blocked by `guards`, `reservations` and
-- `fair_share` likewise said "3 a100 GPUs are planned for other waiting
-- jobs" when 1 of the 3 was: they no longer give a count as reserved.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(7);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'a100', 4), ('n2', 'a100', 4);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('r1', 'hard', 'a100', 1, '10 hours');
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('r2', 'hard', 'a100', 1, '10 hours');
:commit
SELECT is(mixdnn.launch_due(), 2, 'two 1-GPU jobs launch: 2 of the 8 a100 GPUs held');
INSERT INTO mixdnn.jobs (name, gpus, min_gpus, max_gpus, duration) VALUES ('y', 8, 1, 8, '2 hours');
:commit
SELECT is((SELECT gpus FROM mixdnn.explain(pg_temp.jid('y')) WHERE chosen), 4,
	'y starts now on 4 GPUs rather than wait 10 hours for 8');
SELECT is((SELECT blocked_by FROM mixdnn.explain(pg_temp.jid('y')) WHERE gpus = 8), 'capacity',
	'8 GPUs would end it sooner: blocked by capacity');
SELECT is((SELECT detail FROM mixdnn.explain(pg_temp.jid('y')) WHERE gpus = 8),
	'6 of the 8 a100 GPUs it needs are free now; launching or running jobs hold the others until their expected end',
	'... and its detail counts the 6 free, not "8 a100 GPUs are held"');
-- y holds 4 of the 6 free from now; z needs 3: 2 are free beside y's plan
INSERT INTO mixdnn.jobs (name, gpus, min_gpus, max_gpus, duration) VALUES ('z', 3, 1, 3, '2 hours');
:commit
SELECT is((SELECT gpus FROM mixdnn.explain(pg_temp.jid('z')) WHERE chosen), 2, 'z starts now on the 2 GPUs y leaves');
SELECT is((SELECT blocked_by FROM mixdnn.explain(pg_temp.jid('z')) WHERE gpus = 3), 'reservations',
	'3 GPUs would end it sooner: blocked by the plans of waiting jobs');
SELECT is((SELECT detail FROM mixdnn.explain(pg_temp.jid('z')) WHERE gpus = 3),
	'its 3 a100 GPUs are not all free for its run: other waiting jobs are planned on some of them',
	'... and its detail does not say that 3 a100 GPUs are planned for other jobs (1 of its 3 is)');

SELECT * FROM finish();
ROLLBACK;
