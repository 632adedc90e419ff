-- 21_horizon.sql — bounded rounds (issue #9 item 7, SPEC §2): a round plans
-- only the first mixdnn.planning_horizon waiting jobs in queue order
-- (priority, then submission time); the rest stay pending with a reason;
-- a plan and its history are written only when the decision changed
-- (mixdnn.replan_tolerance); mixdnn.max_waiting_jobs limits each role's
-- waiting jobs (54000) and a rejected submission changes nothing.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. launch_due() by hand.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(24);

CREATE ROLE tap21_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap21_bob NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 1);
:commit

CREATE FUNCTION pg_temp.said(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(reason, '') FROM mixdnn.jobs WHERE name = n $$;
CREATE FUNCTION pg_temp.last_round() RETURNS mixdnn.rounds LANGUAGE sql AS
	$$ SELECT * FROM mixdnn.rounds ORDER BY round_id DESC LIMIT 1 $$;
-- Rank in queue order (docs/design.md, "The waiting queue"; behind the
-- horizon it is the job's queue position).
CREATE FUNCTION pg_temp.position(n text) RETURNS bigint LANGUAGE sql AS $$
	SELECT q.pos FROM (SELECT name, row_number() OVER (ORDER BY priority DESC, submitted_at, job_id) AS pos
					   FROM mixdnn.jobs WHERE status IN ('pending', 'planned')) q WHERE q.name = n $$;
\set queued '''pending: queued: beyond the planning horizon of the first 3 waiting jobs (by priority, then submission time)'''

-- The horizon.
SET LOCAL mixdnn.planning_horizon = 3;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) SELECT 'q' || i, 'v100', 1, '1h' FROM generate_series(1, 5) i;
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned'), 3::bigint, 'a round plans the first 3 jobs');
SELECT is(pg_temp.said('q4'), :queued, 'the jobs behind the horizon are pending and say why');
SELECT is(pg_temp.said('q5'), :queued, '... every one of them');
SELECT is((pg_temp.last_round()).waiting, 3, 'the round read 3 waiting jobs');
SELECT is((SELECT count(*) FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id) WHERE j.name IN ('q4', 'q5')),
	0::bigint, 'queued jobs have no plan history');
SELECT is(ARRAY[pg_temp.position('q1'), pg_temp.position('q4')], ARRAY[1, 4]::bigint[],
	'the queue position is the rank in queue order');

-- A job of higher priority enters the horizon and pushes the last one out.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 minute');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('urgent', 'v100', 1, '1h', 50);
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'urgent'), 'planned', 'a high-priority job is planned');
SELECT is(pg_temp.position('urgent'), 1::bigint, '... first in the queue');
SELECT is(pg_temp.said('q3'), :queued, 'the planned job it pushed behind the horizon is pending again');
SELECT is((SELECT h.status FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id)
		   WHERE j.name = 'q3' ORDER BY h.round_id DESC LIMIT 1), 'pending',
	'... and its plan history records that');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned'), 3::bigint, 'still 3 planned jobs');

-- A bounded round whatever the queue: 2,000 more jobs (a superuser's: no
-- limit on waiting jobs), the round reads 3.
SET LOCAL mixdnn.max_waiting_jobs = 10;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) SELECT 'bulk' || i, 'v100', 1, '1h' FROM generate_series(1, 2000) i;
:commit
SELECT ok((pg_temp.last_round()).waiting <= current_setting('mixdnn.planning_horizon')::int,
	'a round after a bulk insert reads at most planning_horizon jobs');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'bulk%' AND reason IS NULL), 0::bigint,
	'every bulk job has a reason');
CREATE TEMP TABLE h0 AS SELECT count(*) AS n FROM mixdnn.plan_history;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('one-more', 'v100', 1, '1h');
:commit
SELECT ok((SELECT count(*) FROM mixdnn.plan_history) - (SELECT n FROM h0) <= current_setting('mixdnn.planning_horizon')::int,
	'a one-row submission behind a long queue writes at most planning_horizon history rows');
DELETE FROM mixdnn.jobs WHERE name LIKE 'bulk%' OR name LIKE 'q%' OR name IN ('urgent', 'one-more');
:commit
RESET mixdnn.planning_horizon;
RESET mixdnn.max_waiting_jobs;

-- Write-back only when the decision changed. 'long' runs until +10 h;
-- 'later' is planned after it; a shorter arrival goes first and pushes
-- 'later' back by 30 min, less than 10 % of its 10 h distance.
SELECT pg_temp.set_now(pg_temp.t0());
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('long', 'v100', 1, '10h');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) long runs');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('later', 'v100', 1, '2h');
:commit
CREATE TEMP TABLE later0 AS SELECT planned_start, (SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('later')) AS n
	FROM mixdnn.jobs WHERE name = 'later';
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('short', 'v100', 1, '30 min');
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'short'), pg_temp.t0() + interval '10 hours',
	'(setup) the short job goes first, at +10 h');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'later'), (SELECT planned_start FROM later0),
	'a distant start pushed back by less than the tolerance is not rewritten');
SELECT is((SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('later')), (SELECT n FROM later0),
	'... and gets no history row');
-- An earlier start is always written: long ends at +2 h.
SELECT pg_temp.set_now(pg_temp.t0() + interval '2 hours');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'long';
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'later'), pg_temp.t0() + interval '2 hours 30 minutes',
	'a start that moves earlier is written exactly');

-- The per-role limit on waiting jobs.
SET LOCAL mixdnn.max_waiting_jobs = 3;
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM mixdnn.jobs;
GRANT SELECT ON before TO tap21_alice;
SET LOCAL ROLE tap21_alice;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) SELECT 'a' || i, 'v100', 1, '1h' FROM generate_series(1, 4) i$$,
	'54000', 'role tap21_alice would have more than 3 waiting jobs', 'one statement over the limit fails with 54000');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) SELECT 'a' || i, 'v100', 1, '1h' FROM generate_series(1, 3) i;
:commit
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('a4', 'v100', 1, '1h')$$,
	'54000', NULL, 'one job more than the limit fails');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.jobs) - (SELECT n FROM before), 3::bigint, 'the rejected submissions changed nothing');
SET LOCAL ROLE tap21_bob;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('b1', 'v100', 1, '1h')$$,
	'another role is not limited by alice''s jobs');
RESET ROLE;
SET LOCAL ROLE tap21_alice;
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'a1';
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('a4', 'v100', 1, '1h')$$,
	'after a cancel, the role may submit again');
RESET ROLE;
:commit

SELECT * FROM finish();
ROLLBACK;
