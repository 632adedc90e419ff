-- 20_plan_limits.sql — SPEC §7: a job that cannot be planned (absurd run
-- times, a plan beyond the last plannable time, allowed types that no
-- longer exist) stays pending with a reason and never stops the other jobs
-- from being planned (issue #9 items 5 and 6).
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. No launch_due: jobs stay planned.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(17);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('slow', 1e-6), ('a100', 2.0), ('h100', 3.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES
	('v1', 'v100', 4), ('s1', 'slow', 4), ('a1', 'a100', 4), ('h1', 'h100', 4);
:commit

CREATE TEMP TABLE r0 AS SELECT coalesce(max(round_id), 0) AS last FROM mixdnn.rounds;
CREATE FUNCTION pg_temp.said(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(reason, '') FROM mixdnn.jobs WHERE name = n $$;

-- Item 5: 300 days on a type of speed 1e-6 is 8e8 years. Submitted with
-- other jobs in one statement, and alone.
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('absurd-soft', 1, '{slow}', '300 days');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('ok-1', 'v100', 1, '1h');
:commit
SET LOCAL client_min_messages = warning;
SELECT is(pg_temp.said('absurd-soft'),
	'pending: its shortest run time (3e+08 days on 1 slow GPU) exceeds the limit of 3650 days',
	'a soft job with an absurd run time stays pending and says why');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'ok-1'), 'planned', 'the other job of the round is planned');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint,
	'the round succeeded and is recorded');

-- A hard job's duration is stated on its own configuration: 200 days on
-- the slow type is 200 days, and plannable.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('slow-hard', 'hard', 'slow', 2, '200 days');
INSERT INTO mixdnn.jobs (name, gpus, gpu_type, allowed_types, duration) VALUES ('ref-v100-on-slow', 1, 'v100', '{slow}', '1 day');
:commit
SELECT is((SELECT status || ' on ' || planned_gpu_type FROM mixdnn.jobs WHERE name = 'slow-hard'), 'planned on slow',
	'a hard job on the slow type is planned: its duration is its run time');
SELECT matches(pg_temp.said('ref-v100-on-slow'), '^pending: its shortest run time \(1e\+06 days on 1 slow GPU\) exceeds the limit',
	'a soft job stated for v100 and allowed only the slow type waits and says why');

-- Only the absurd configurations are dropped.
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('slow-or-v100', 1, '{slow,v100}', '300 days');
:commit
SELECT is((SELECT status || ' on ' || planned_gpu_type FROM mixdnn.jobs WHERE name = 'slow-or-v100'), 'planned on v100',
	'a job allowed on a usable type too is planned there');

-- A tiny measured throughput: utility 1e-12 of the reference.
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES ('tiny', 'v100', 1, 1), ('tiny', 'h100', 1, 1e-12);
INSERT INTO mixdnn.jobs (name, model, gpu_type, gpus, allowed_types, duration)
	VALUES ('tiny-thr', 'tiny', 'v100', 1, '{h100}', '1 day');
:commit
SELECT matches(pg_temp.said('tiny-thr'), '^pending: its shortest run time .* on 1 h100 GPU\) exceeds the limit',
	'a configuration with a tiny measured throughput is no candidate either');

-- A plan that would end after 9999-12-31 (here: the clock is near it).
SELECT pg_temp.set_now('9999-12-30 00:00+00');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('too-late', 'v100', 1, '10 days'), ('in-time', 'v100', 1, '1h');
:commit
SELECT is(pg_temp.said('too-late'),
	'pending: its plan would end after 9999-12-31, the last time the scheduler plans',
	'a job whose plan would end after 9999-12-31 stays pending and says why');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'in-time'), 'planned', '... and the job that ends in time is planned');
SELECT pg_temp.set_now(pg_temp.t0());
DELETE FROM mixdnn.jobs WHERE name IN ('too-late', 'in-time');
:commit

-- Item 6: a deleted type is not "any type". a100 is busy, so its jobs wait planned.
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('a100-busy', 4, '{a100}', '5h');
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES
	('a100-only', 4, '{a100}', '1h'), ('a100-or-v100', 2, '{a100,v100}', '1h');
:commit
-- (Where a100-or-v100 goes is the planner's choice; only a100 is allowed
-- to the other two.)
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE allowed_types = '{a100}' AND planned_gpu_type = 'a100'), 2::bigint,
	'(setup) the two a100-only jobs are planned on a100');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a100-or-v100'), 'planned',
	'(setup) the job that allows a100 or v100 is planned');
DELETE FROM mixdnn.gpu_nodes WHERE node = 'a1';
DELETE FROM mixdnn.gpu_types WHERE gpu_type = 'a100';
:commit
SELECT is(pg_temp.said('a100-only'), 'pending: none of its allowed GPU types exists any more (a100)',
	'a job whose every allowed type was deleted waits, naming the missing type');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE allowed_types = '{a100}' AND planned_gpu_type IS NOT NULL), 0::bigint,
	'it is planned on no other type');
SELECT is((SELECT status || ' on ' || planned_gpu_type FROM mixdnn.jobs WHERE name = 'a100-or-v100'), 'planned on v100',
	'a job with another allowed type left is planned on it');
SELECT is((SELECT count(*) FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id)
		   WHERE j.name = 'a100-only' AND h.status = 'pending'), 1::bigint,
	'the loss of its plan is in its plan history');

-- A hard job's type cannot be deleted under it.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('h100-hard', 'hard', 'h100', 2, '1h');
:commit
DELETE FROM mixdnn.gpu_nodes WHERE node = 'h1';
SELECT throws_ok($$DELETE FROM mixdnn.gpu_types WHERE gpu_type = 'h100'$$, '23503', NULL,
	'the type of a hard job cannot be deleted (foreign key)');
:commit
SELECT is(pg_temp.said('h100-hard'), 'pending: no node has a h100', 'a hard job whose nodes are gone waits and says why');

SELECT * FROM finish();
ROLLBACK;
