-- 04_start_and_completion.sql — a job that cannot start now is planned for
-- exactly when the GPUs it needs are expected to free up; completing,
-- failing or cancelling a job releases its GPUs and, after the round and
-- mixdnn.launch_due(), the next job launches.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. mixdnn.launch_due() is called by
-- hand (no background worker). Clock moved with pg_temp.set_now().
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(38);

CREATE ROLE tap04_admin NOLOGIN IN ROLE mixdnn_admin;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('n2', 'v100', 4);
:commit

-- j1 (4 GPUs, 1h) and j2 (4 GPUs, 2h) fill both nodes.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('j1', 'hard', 'v100', 4, '1h'), ('j2', 'hard', 'v100', 4, '2h');
:commit
SELECT is(mixdnn.launch_due(), 2, 'j1 and j2 launch at t0');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds), 8::bigint, 'they hold all 8 GPUs');
SELECT results_eq($$SELECT status, started_at, planned_end FROM mixdnn.jobs WHERE name = 'j1'$$,
	$$VALUES ('launching', pg_temp.t0(), pg_temp.t0() + interval '1 hour')$$,
	'a launched job is launching, started at now, expected to end after its run time');
SELECT is((SELECT count(*) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('j1') AND state = 'launching'), 1::bigint,
	'a single-node job has one launching part');

-- Ten minutes later: j3 needs 6 GPUs (only after both end, at +2h); j4
-- needs 3 (as soon as j1 ends, at +1h).
SELECT pg_temp.set_now(pg_temp.t0() + interval '10 minutes');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('j3', 'hard', 'v100', 6, '30 min');
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'j3'),
	(SELECT planned_end FROM mixdnn.jobs WHERE name = 'j2'),
	'a 6-GPU job is planned to start exactly when the second node frees up (j2''s expected end)');
SELECT is((SELECT planned_end FROM mixdnn.jobs WHERE name = 'j3'), pg_temp.t0() + interval '2 hours 30 minutes',
	'... and to end its duration later');
SELECT ok((SELECT reason IS NOT NULL FROM mixdnn.jobs WHERE name = 'j3'),
	'a job planned for later says why it waits (reason)');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('j4', 'hard', 'v100', 3, '20 min');
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'j4'),
	(SELECT planned_end FROM mixdnn.jobs WHERE name = 'j1'),
	'a 3-GPU job is planned to start exactly when j1''s GPUs free up');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'the plans respect capacity');
SELECT is(mixdnn.launch_due(), 0, 'nothing is due yet: launch_due launches nothing');

-- j1 completes early, at +30 min (as an admin): its GPUs are released, the
-- round re-plans j4 for now, launch_due starts it.
SELECT pg_temp.set_now(pg_temp.t0() + interval '30 minutes');
CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;
GRANT SELECT ON r0 TO tap04_admin;
SET LOCAL ROLE tap04_admin;
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'j1';
:commit
RESET ROLE;
SELECT results_eq($$SELECT status, finished_at FROM mixdnn.jobs WHERE name = 'j1'$$,
	$$VALUES ('completed', pg_temp.t0() + interval '30 minutes')$$,
	'an admin completes j1; finished_at is the scheduler clock');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('j1')), 0::bigint,
	'j1''s GPUs are released');
SELECT is((SELECT state FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('j1')), 'completed',
	'j1''s part is completed');
SELECT is((SELECT string_agg(event, ',') FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'completion',
	'the completion ran one round (event completion)');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'j4'), pg_temp.t0() + interval '30 minutes',
	'the round re-planned j4 to start now');
SELECT is(mixdnn.launch_due(), 1, 'launch_due launches j4');
SELECT results_eq($$SELECT status, started_at FROM mixdnn.jobs WHERE name = 'j4'$$,
	$$VALUES ('launching', pg_temp.t0() + interval '30 minutes')$$, 'j4 is launching since now');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('j4')), 3::bigint, 'j4 holds 3 GPUs');
SELECT is((SELECT launched FROM mixdnn.rounds ORDER BY round_id DESC LIMIT 1), 1,
	'the latest round records that one job was launched after it');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'j3'), 'planned', 'j3 still waits');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'j3'), pg_temp.t0() + interval '2 hours',
	'j3 still starts when j2 ends (it needs GPUs of both nodes, j4 ends earlier)');

-- A launcher claims j2 (running), then j2 fails (superuser = system).
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('j2')))),
	1::bigint, 'the launcher of j2''s node claims it');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'j2'), 'running', 'j2 is running');
SELECT pg_temp.set_now(pg_temp.t0() + interval '40 minutes');
UPDATE mixdnn.jobs SET status = 'failed', reason = 'test: out of memory' WHERE name = 'j2';
:commit
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('j2')), 0::bigint,
	'a failed job''s GPUs are released');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'j3'), pg_temp.t0() + interval '50 minutes',
	'j3 is re-planned for when j4 (the only running job) ends');

-- Cancelling a running job releases its GPUs too, and j3 starts now.
SELECT pg_temp.set_now(pg_temp.t0() + interval '45 minutes');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'j4';
:commit
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('j4')), 0::bigint,
	'a cancelled job''s GPUs are released');
SELECT is((SELECT event FROM mixdnn.rounds ORDER BY round_id DESC LIMIT 1), 'cancel', 'the cancel ran a round');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'j3'), pg_temp.t0() + interval '45 minutes',
	'j3 is re-planned for now');
SELECT is(mixdnn.launch_due(), 1, 'j3 launches');
SELECT is((SELECT count(DISTINCT node) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('j3')), 2::bigint,
	'j3 (6 GPUs on 4-GPU nodes) is a gang over both nodes');
SELECT is((SELECT sum(gpus) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('j3')), 6::bigint,
	'its parts add up to 6 GPUs');
SELECT is((SELECT array_agg(node_rank ORDER BY node_rank) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('j3')),
	ARRAY[0, 1], 'its parts have node ranks 0 and 1');

-- job_events records every status change at the scheduler clock.
SELECT results_eq($$SELECT old_status, new_status, at FROM mixdnn.job_events
					WHERE job_id = pg_temp.jid('j2') ORDER BY event_id$$,
	$$VALUES (NULL, 'pending', pg_temp.t0()), ('pending', 'planned', pg_temp.t0()),
			 ('planned', 'launching', pg_temp.t0()), ('launching', 'running', pg_temp.t0() + interval '30 minutes'),
			 ('running', 'failed', pg_temp.t0() + interval '40 minutes')$$,
	'job_events keeps j2''s status history at the scheduler clock');

-- A finished job is final.
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'running' WHERE name = 'j1'$$, '55000', NULL,
	'completed -> running is refused');
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'planned' WHERE name = 'j2'$$, '55000', NULL,
	'failed -> planned is refused');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds), 6::bigint, 'only j3''s 6 GPUs are held at the end');

-- A waiting job says why it waits; cancelled, it no longer does.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('w', 'hard', 'v100', 8, '1h');
:commit
SELECT ok((SELECT reason FROM mixdnn.jobs WHERE name = 'w') LIKE 'waiting for %', '(setup) w waits, with a reason');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'w';
:commit
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'w'), NULL, 'a cancelled job keeps no stale reason to wait');

SELECT * FROM finish();
ROLLBACK;
