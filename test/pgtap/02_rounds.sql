-- 02_rounds.sql — one round per statement / transaction, what a round
-- records (mixdnn.rounds), and plan revisions (mixdnn.plan_history).
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) marks each
-- commit point (SET CONSTRAINTS ALL IMMEDIATE fires the queued round
-- triggers as COMMIT would, then back to DEFERRED). One test checks
-- SET CONSTRAINTS ALL IMMEDIATE mode itself (one round per statement).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(39);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 4), ('v2', 'v100', 4), ('a1', 'a100', 4);
:commit
SELECT is((SELECT count(*) FROM mixdnn.gpus), 12::bigint, 'registering nodes creates one mixdnn.gpus row per GPU');
SELECT is((SELECT count(*) FROM mixdnn.rounds), 1::bigint,
	'registering types and three nodes in one transaction = one round');
SELECT is((SELECT event FROM mixdnn.rounds), 'node', '... with event node');

CREATE TEMP TABLE r0 AS SELECT coalesce(max(round_id), 0) AS last FROM mixdnn.rounds;

-- Ten jobs in ONE statement: exactly one round.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
SELECT 'batch-' || i, CASE WHEN i % 2 = 0 THEN 'hard' ELSE 'soft' END, 'v100', 1 + i % 3,
	   make_interval(mins => 10 * i)
FROM generate_series(1, 10) i;
:commit
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint,
	'a 10-row INSERT statement runs exactly one round');
SELECT is((SELECT event FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'arrival',
	'the round records its event: arrival');
SELECT is((SELECT waiting FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 10,
	'the round records the 10 waiting jobs it planned');
SELECT is((SELECT running FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 0,
	'... and 0 running jobs');
SELECT is((SELECT at FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), pg_temp.t0(),
	'rounds.at is the scheduler clock (virtual_now)');
SELECT ok((SELECT solver ~ '^(glpk|heuristic)' FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'rounds.solver names the solver (glpk or heuristic ...)');
SELECT is((SELECT policy FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'mixdnn',
	'rounds.policy is the default policy mixdnn');
SELECT ok((SELECT solve_ms >= 0 AND objective IS NOT NULL FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'rounds.solve_ms and rounds.objective are recorded');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'batch-%' AND status = 'planned'
		   AND planned_gpu_type IS NOT NULL AND planned_gpus IS NOT NULL
		   AND planned_start IS NOT NULL AND planned_end > planned_start), 10::bigint,
	'after commit every new job is planned with type, gpus, start and end');
SELECT is((SELECT count(*) FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id)
		   WHERE j.name LIKE 'batch-%' AND h.round_id > (SELECT last FROM r0)), 10::bigint,
	'plan_history has one row per newly planned job');

-- A round's own writes are no events: no second round was queued by them.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
:commit
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 0::bigint,
	'a round''s writes back to mixdnn.jobs do not start another round');

-- Three statements in one transaction: one round, at commit.
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('tx-1', 'v100', 1, '1h');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('tx-2', 'v100', 2, '1h');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('tx-3', 'hard', 'a100', 1, '1h');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 0::bigint,
	'no round before commit');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'tx-%' AND status = 'pending'), 3::bigint,
	'before commit the new jobs are pending');
:commit
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint,
	'three INSERT statements in one transaction run exactly one round at commit');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'tx-%' AND status = 'planned'), 3::bigint,
	'after commit all three are planned');

-- A statement that changes nothing the scheduler cares about runs no round.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
UPDATE mixdnn.jobs SET reason = reason WHERE name = 'tx-1';
:commit
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 0::bigint,
	'an UPDATE that changes no request column and no status runs no round');

-- A request change is an event.
UPDATE mixdnn.jobs SET priority = 50 WHERE name = 'tx-2';
:commit
SELECT is((SELECT event FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'update',
	'changing a waiting job''s priority runs one round with event update');

-- mixdnn.run_round returns the new round's id and records the given event.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
CREATE TEMP TABLE rr AS SELECT mixdnn.run_round('test') AS id;
SELECT is((SELECT id FROM rr), (SELECT max(round_id) FROM mixdnn.rounds),
	'run_round() returns the id of the round it recorded');
SELECT is((SELECT event FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'test',
	'run_round(event) records its event');
SELECT throws_ok($$SELECT mixdnn.run_round('')$$, '22023', NULL, 'run_round('''') is refused');
SELECT throws_ok($$SELECT mixdnn.run_round(NULL)$$, '22004', 'event must not be NULL',
	'run_round(NULL) is refused, not a NULL round_id');

-- SET CONSTRAINTS ALL IMMEDIATE: rounds at the end of each statement, and
-- still one round per statement, however many rows it writes.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration)
SELECT 'imm-' || i, 'v100', 1, '10 min' FROM generate_series(1, 5) i;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'imm-%' AND status = 'planned'), 5::bigint,
	'IMMEDIATE mode: the jobs are planned at the end of the statement');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint,
	'IMMEDIATE mode: a 5-row INSERT runs one round, not one per row');
SET CONSTRAINTS ALL DEFERRED;

-- plan_history keeps every revision: a job waiting behind a running job is
-- planned for that job's end; when that job completes early it is planned
-- again for now, and both plans are kept.
DELETE FROM mixdnn.jobs;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('big', 'hard', 'a100', 4, '2h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'big launches at t0');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('next', 'hard', 'a100', 2, '1h');
:commit
-- Time passing alone changes neither the plan nor its reason: no rewrite.
SELECT pg_temp.set_now(pg_temp.t0() + interval '10 minutes');
SELECT mixdnn.run_round('test');
SELECT is((SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('next')), 1::bigint,
	'a later round with the same plan does not rewrite the waiting job');
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'next'),
	'waiting for 2 a100 GPUs, expected free at 2026-01-01 02:00:00 UTC',
	'the waiting job''s reason gives the planned start in UTC');
SELECT pg_temp.set_now(pg_temp.t0() + interval '30 minutes');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'big';
:commit
SELECT results_eq(
	$$SELECT h.status, h.planned_gpu_type, h.planned_gpus, h.planned_start, h.planned_end
	  FROM mixdnn.plan_history h WHERE h.job_id = pg_temp.jid('next') ORDER BY h.round_id$$,
	$$VALUES ('planned', 'a100', 2, pg_temp.t0() + interval '2 hours', pg_temp.t0() + interval '3 hours'),
			 ('planned', 'a100', 2, pg_temp.t0() + interval '30 minutes', pg_temp.t0() + interval '90 minutes')$$,
	'plan_history keeps both revisions of the waiting job, in order');
SELECT is((SELECT first_planned_start FROM mixdnn.schedule WHERE name = 'next'), pg_temp.t0() + interval '2 hours',
	'mixdnn.schedule shows the first planned start');
SELECT is((SELECT revisions FROM mixdnn.schedule WHERE name = 'next'), 2::bigint,
	'mixdnn.schedule counts two revisions');
SELECT mixdnn.run_round('test');
SELECT is((SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('next')), 2::bigint,
	'a round that does not change the plan writes no history row');

-- A waiting job whose configuration fits idle GPUs says why it leaves them
-- alone: the soft job ends sooner on an a100 in 2 hours (12 h) than on an
-- idle v100 now (20 h at half the speed).
DELETE FROM mixdnn.jobs;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('hog', 'hard', 'a100', 4, '2h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'hog takes every a100');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('patient', 'soft', 'a100', 1, 1, 1, '10h');
:commit
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'patient'),
	'waiting for 1 a100 GPU, expected free at 2026-01-01 02:30:00 UTC; ends it no later than free v100 GPUs would',
	'a job waiting beside idle GPUs it fits says why');
-- The idle GPUs go and come back while its plan stands: the reason follows,
-- the plan's history does not grow.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('filler', 'hard', 'v100', 8, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'filler takes every v100');
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'patient'),
	'waiting for 1 a100 GPU, expected free at 2026-01-01 02:30:00 UTC',
	'no idle GPU fits it any more: the reason says so at once');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'filler';
:commit
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'patient'),
	'waiting for 1 a100 GPU, expected free at 2026-01-01 02:30:00 UTC; ends it no later than free v100 GPUs would',
	'the v100 GPUs idle again: so does the reason');
SELECT is((SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('patient')), 1::bigint,
	'a reason that changes while the plan stands writes no history row');

SELECT * FROM finish();
ROLLBACK;
