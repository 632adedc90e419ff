-- 98_launch_due_null_plan.sql — mixdnn.launch_due() with a planned job
-- whose plan has no configuration or no times, as a superuser's UPDATE can
-- leave it (rounds never do): the launch pass re-plans it before it starts
-- anything, as for a job whose GPUs are held (docs/reference.md,
-- "Functions"). Before, it read the NULL type as text and the backend died
-- of a segmentation fault, restarting the whole server.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(6);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 4);
:commit
INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('no-type', 2, '1h');
INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('no-gpus', 1, '1h');
INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('no-end', 1, '1h');
:commit
UPDATE mixdnn.jobs SET status = 'planned', planned_gpu_type = NULL, planned_gpus = 2,
	planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration WHERE name = 'no-type';
UPDATE mixdnn.jobs SET status = 'planned', planned_gpu_type = 'v100', planned_gpus = NULL,
	planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration WHERE name = 'no-gpus';
UPDATE mixdnn.jobs SET status = 'planned', planned_gpu_type = 'v100', planned_gpus = 1,
	planned_start = mixdnn.now(), planned_end = NULL WHERE name = 'no-end';
SELECT is(mixdnn.launch_due(), 3, 'launch_due re-plans the three jobs and launches them');
SELECT is((SELECT string_agg(name || ' ' || status || ' ' || planned_gpu_type || ' x' || planned_gpus, ', ' ORDER BY name)
		   FROM mixdnn.jobs), 'no-end launching v100 x1, no-gpus launching v100 x1, no-type launching v100 x2',
	'each on a configuration of the new plan');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE planned_end IS NULL), 0::bigint, 'with its end');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds), 4::bigint, 'holding their GPUs');
SELECT is((SELECT event FROM mixdnn.rounds ORDER BY round_id DESC LIMIT 1), 'due',
	'the re-plan is a due round');
SELECT is((SELECT count(*) FROM mixdnn.job_parts), 3::bigint, 'one part each');

SELECT * FROM finish();
ROLLBACK;
