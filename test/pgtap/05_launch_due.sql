-- 05_launch_due.sql — mixdnn.launch_due(): gang allocation, never a GPU
-- booked twice (gpu_holds primary key), and a due job whose GPUs are still
-- held by an overrunning job is re-planned, not started: for
-- mixdnn.overrun_grace when it has just overrun, for as long again as it
-- has overrun once that is longer (mixdnn.overrun_factor = 1).
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. mixdnn.launch_due() is called by
-- hand (no background worker). Clock moved with pg_temp.set_now().
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(44);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit

-- Overrun: a runs 0..1h; b is planned for 1h. At 1h a has not finished.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'a launches');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('b', 'hard', 'v100', 2, '1h');
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'b'), pg_temp.t0() + interval '1 hour',
	'b is planned for a''s expected end');

SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour');
CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;
SELECT is(mixdnn.launch_due(), 0, 'at a''s expected end a still holds the GPUs: launch_due starts nothing');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'b'), 'planned', 'b is still planned (not launching)');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('b')), 0::bigint, 'b holds no GPU');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('a')), 4::bigint, 'a keeps its 4 GPUs');
SELECT ok((SELECT planned_start > pg_temp.t0() + interval '1 hour' FROM mixdnn.jobs WHERE name = 'b'),
	'b is re-planned to a later start');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'b'),
	pg_temp.t0() + interval '1 hour' + current_setting('mixdnn.overrun_grace')::interval,
	'... to now + mixdnn.overrun_grace (the overrun rule)');
SELECT is((SELECT event FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'due',
	'launch_due ran a round (event due) for the job it could not start');
SELECT ok((SELECT reason IS NOT NULL FROM mixdnn.jobs WHERE name = 'b'), 'b says why it waits');

-- 4 minutes past its end a still runs: b, due again, is re-planned 4 minutes on.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour 4 minutes');
SELECT is(mixdnn.launch_due(), 0, 'a 4 min overdue: launch_due starts nothing');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'b'),
	pg_temp.t0() + interval '1 hour 8 minutes',
	'... b is re-planned to now + 4 min: as long again as a has overrun (mixdnn.overrun_factor 1)');
SET LOCAL mixdnn.overrun_factor = 0.5;
SELECT lives_ok('SELECT mixdnn.run_round()', '... mixdnn.run_round() with mixdnn.overrun_factor 0.5');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'b'),
	pg_temp.t0() + interval '1 hour 6 minutes',
	'... with mixdnn.overrun_factor 0.5, a round plans b for now + 2 min');
RESET mixdnn.overrun_factor;

-- a finally completes; b launches.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour 5 minutes');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'a';
:commit
SELECT is(mixdnn.launch_due(), 1, 'after a completes, b launches');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('b')), 2::bigint, 'b holds its 2 GPUs');

-- Double booking: c (4 GPUs, 1h) and d (4 GPUs, 30 min) both due now on a
-- 4-GPU node. launch_due places due jobs by planned_start, job_id, finds
-- that d cannot start beside c, and so starts neither from that stale
-- plan: a due round re-plans both first, then the one it plans for now
-- starts and the other is planned for its expected end.
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'b';
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('c', 'hard', 'v100', 4, '1h');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('d', 'hard', 'v100', 4, '30 min');
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name IN ('c', 'd') AND planned_start = mixdnn.now()), 1::bigint,
	'the round plans only one of c, d for now');
-- A stale plan (as left by an earlier round) says both start now.
UPDATE mixdnn.jobs SET planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration
	WHERE name IN ('c', 'd');
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name IN ('c', 'd') AND planned_start = mixdnn.now()), 2::bigint,
	'(setup) both c and d are due now');
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT is(mixdnn.launch_due(), 1, 'launch_due starts only one of them');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds), 4::bigint, '4 GPUs are held, none twice');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name IN ('c', 'd') AND status = 'launching'), 1::bigint,
	'one of c, d is launching');
SELECT results_eq($$SELECT status, planned_start FROM mixdnn.jobs WHERE name IN ('c', 'd') AND status <> 'launching'$$,
	$$SELECT 'planned'::text, planned_end FROM mixdnn.jobs WHERE name IN ('c', 'd') AND status = 'launching'$$,
	'the other is re-planned for when the launched one is expected to end');
SELECT results_eq($$SELECT event, waiting, running FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)$$,
	$$VALUES ('due', 2, 0)$$,
	'the due round ran before any launch: 2 waiting jobs (c, d), none running');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'd'), mixdnn.now(),
	'the new plan starts d (the shorter) now, not c, first by job_id in the stale plan');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'the plans after launch_due respect capacity');
SELECT is(mixdnn.launch_due(), 0, 'a second launch_due at the same instant starts nothing');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds), 4::bigint, 'still 4 GPUs held');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'c'), (SELECT planned_end FROM mixdnn.jobs WHERE name = 'd'),
	'after the second launch_due c is still planned for d''s end');

-- The gpu_holds primary key refuses a second hold of a GPU, and the foreign
-- key a hold of a GPU that does not exist.
SELECT throws_ok($$INSERT INTO mixdnn.gpu_holds (node, gpu_index, job_id)
				   SELECT 'n1', 0, job_id FROM mixdnn.jobs WHERE name = 'd'$$,
	'23505', NULL, 'holding an already held GPU is refused (23505)');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_holds (node, gpu_index, job_id)
				   SELECT 'n1', 7, job_id FROM mixdnn.jobs WHERE name = 'd'$$,
	'23503', NULL, 'holding a GPU index the node does not have is refused (23503)');

-- Gang: a 6-GPU job while c and d hold n1 and n2 and n3's 4 GPUs are free:
-- the round plans it for when c or d ends; a stale plan that says "now" makes it
-- due with only 4 of its 6 GPUs free, and launch_due must not start it.
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n2', 'v100', 4);
:commit
SELECT is(mixdnn.launch_due(), 1, 'c starts at once on the new node n2');
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n3', 'v100', 4);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('g', 'hard', 'v100', 6, '1h');
:commit
SELECT ok((SELECT planned_start >= (SELECT min(planned_end) FROM mixdnn.jobs WHERE name IN ('c', 'd'))
		   FROM mixdnn.jobs WHERE name = 'g'),
	'a 6-GPU gang job is not planned while only 4 of 12 GPUs are free');
UPDATE mixdnn.jobs SET planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration WHERE name = 'g';
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name = 'g' AND status = 'planned' AND planned_start <= mixdnn.now()),
	1::bigint, '(setup) g is due now, with 4 of its 6 GPUs free');
SELECT is(mixdnn.launch_due(), 0, 'launch_due starts nothing');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('g')), 0::bigint,
	'launch_due does not start a gang job partially: g holds no GPU');
SELECT is((SELECT count(*) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('g')), 0::bigint, '... and has no part');
SELECT ok((SELECT status = 'planned' AND planned_start > mixdnn.now() FROM mixdnn.jobs WHERE name = 'g'),
	'g is re-planned for later');

-- A stale plan with one due job that fits (h, 2 GPUs on n3) and one that
-- does not (g again): h starts, but only from the plan the due round made.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('h', 'hard', 'v100', 2, '10 min');
:commit
UPDATE mixdnn.jobs SET planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration WHERE name IN ('g', 'h');
:commit
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT is(mixdnn.launch_due(), 1, 'of g and h, due together, h starts');
SELECT results_eq($$SELECT event, waiting, running FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)$$,
	$$VALUES ('due', 2, 2)$$,
	'after the due round that re-planned both (2 waiting, c and d running), not before it');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('h')), 2::bigint, 'h holds its 2 GPUs');
SELECT ok((SELECT status = 'planned' AND planned_start > mixdnn.now() FROM mixdnn.jobs WHERE name = 'g'),
	'g is planned for later again');

-- A gang across more nodes than any fixed array of parts held (64): 70
-- one-GPU nodes, a 66-GPU job. Before, it was planned and never placed.
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('one', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) SELECT 'o' || i, 'one', 1 FROM generate_series(1, 70) i;
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('wide', 'hard', 'one', 66, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'a 66-GPU job on 70 one-GPU nodes launches');
SELECT is((SELECT count(DISTINCT node) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('wide')), 66::bigint,
	'... as 66 parts on 66 nodes');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('wide')), 66::bigint, '... holding 66 GPUs');

SELECT * FROM finish();
ROLLBACK;
