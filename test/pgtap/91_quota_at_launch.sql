-- 91_quota_at_launch.sql — mixdnn.launch_due() keeps GPU quotas that do
-- not lend: a due job whose start would take its owner beyond one (an
-- earlier job overran, a quota was lowered, a stale plan) is not launched
-- but re-planned; several due jobs of one owner count together; a quota
-- that lends does not stop a launch the round planned. A change of quotas
-- or shares runs a round at commit.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. launch_due() by hand, clock moved
-- with pg_temp.set_now().
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(19);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap91_team NOLOGIN;
CREATE ROLE tap91_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap91_bob NOLOGIN IN ROLE mixdnn_user, tap91_team;
CREATE ROLE tap91_carol NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8), ('k1', 'k80', 4);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap91_alice', 'v100', 1);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap91_team', NULL, 2);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow) VALUES ('tap91_carol', 'v100', 1, true);
:commit

CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;

-- Overrun: alice's a1 (1 v100, 1 h) runs; her a2 waits for her quota of
-- 1 v100. A plan made for a1's expected end (here a stale one) makes a2 due
-- at that end, when a1 still runs.
SELECT pg_temp.submit('tap91_alice', 'a1', 'v100', 1, '1h');
SELECT pg_temp.submit('tap91_alice', 'a2', 'v100', 1, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'alice''s first job launches');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour');
SELECT pg_temp.due_now('a2');
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT is(mixdnn.launch_due(), 0,
	'at its expected end the first job overruns: launch_due does not start the second beside it, though 7 v100s are free');
SELECT is(pg_temp.held('tap91_alice', 'v100'), 1::bigint, 'alice holds 1 v100, her quota');
SELECT is((SELECT status || ': ' || reason FROM mixdnn.jobs WHERE name = 'a2'),
	'pending: over quota: role tap91_alice holds 1 of the 1 v100 GPUs its quota allows and needs 1',
	'the second job waits for her quota again');
SELECT is((SELECT array_agg(event) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), ARRAY['due'],
	'by the round launch_due runs for what it could not start');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour 5 minutes');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'a1';
:commit
SELECT is(mixdnn.launch_due(), 1, 'once the first job has ended the second launches');

-- A quota lowered after the plan: bob's team may hold 2 GPUs of all types.
-- b1 (2 k80s) is planned now; the quota drops to 1 before launch_due.
SELECT pg_temp.submit('tap91_bob', 'b1', 'k80', 2, '1h');
:commit
UPDATE mixdnn.quotas SET max_gpus = 1 WHERE role = 'tap91_team';
SELECT is(mixdnn.launch_due(), 0, 'a job its owner''s quota no longer allows is not launched');
SELECT is(pg_temp.held('tap91_bob', NULL), 0::bigint, '... and holds no GPU');
SELECT alike((SELECT status || ': ' || reason FROM mixdnn.jobs WHERE name = 'b1'),
	'pending: over quota: role tap91_bob %', 'the round after it says the quota keeps it waiting');

-- Several due jobs of one owner count together: with the quota raised to 3,
-- b1 (2 k80s) runs and a stale plan starts b2 and b3 (1 v100 each) now.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
UPDATE mixdnn.quotas SET max_gpus = 3 WHERE role = 'tap91_team';
:commit
SELECT is((SELECT array_agg(event) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), ARRAY['quota'],
	'a change of mixdnn.quotas runs a round at commit (event quota)');
SELECT ok((SELECT status = 'planned' AND planned_start = mixdnn.now() FROM mixdnn.jobs WHERE name = 'b1'),
	'... which plans the job the raised quota now allows, at once');
SELECT is(mixdnn.launch_due(), 1, 'b1 launches under a quota of 3 GPUs of all types');
SELECT pg_temp.submit('tap91_bob', 'b2', 'v100', 1, '1h');
SELECT pg_temp.submit('tap91_bob', 'b3', 'v100', 1, '1h');
:commit
SELECT pg_temp.due_now('b2', 'b3');
SELECT is(mixdnn.launch_due(), 1, 'two jobs due at once where the quota leaves room for one: one launches');
SELECT is(pg_temp.held('tap91_bob', NULL), 3::bigint, 'bob holds 3 GPUs, his quota');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'b2'), 'launching', 'the first by job_id launches');

-- A quota that lends: the round decides who borrows, and launch_due keeps
-- to the plan. carol's c1 holds her 1 v100; a stale plan starts c2 now.
SELECT pg_temp.submit('tap91_carol', 'c1', 'v100', 1, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'carol''s first job launches');
SELECT pg_temp.submit('tap91_carol', 'c2', 'v100', 1, '1h');
:commit
SELECT pg_temp.due_now('c2');
SELECT is(mixdnn.launch_due(), 1, 'beyond a quota that lends, a due job launches as planned');
SELECT is(pg_temp.held('tap91_carol', 'v100'), 2::bigint, 'carol borrows a second v100');

-- Shares too re-plan at commit.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
INSERT INTO mixdnn.shares (role, shares) VALUES ('tap91_alice', 3);
:commit
SELECT is((SELECT array_agg(event) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), ARRAY['quota'],
	'a change of mixdnn.shares runs a round at commit (event quota)');

SELECT * FROM finish();
ROLLBACK;
