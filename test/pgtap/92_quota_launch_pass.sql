-- 92_quota_launch_pass.sql — one mixdnn.launch_due() pass under GPU quotas
-- (src/pg/launch_quota.c): due jobs of owners with and without quotas in
-- one pass, each matched to its owner; a refused job is not due again; a
-- job that cannot be placed does not keep another from launching; a job
-- overrunning on a draining node still counts. (From an independent
-- review of the launch-time check; 91_quota_at_launch has the rest.)
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. launch_due() by hand.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(12);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;
CREATE ROLE tap92_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap92_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap92_carol NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8), ('k1', 'k80', 4);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap92_alice', 'v100', 1);
:commit
CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;

-- Mixed owners in one pass (index alignment): bob (no quota) first by job_id,
-- then alice's two, then carol's (no quota).
SELECT pg_temp.submit('tap92_bob', 'b1', 'v100', 1, '1h');
SELECT pg_temp.submit('tap92_alice', 'a1', 'v100', 1, '1h');
SELECT pg_temp.submit('tap92_alice', 'a2', 'v100', 1, '1h');
SELECT pg_temp.submit('tap92_carol', 'c1', 'v100', 1, '1h');
:commit
SELECT pg_temp.due_now('b1', 'a1', 'a2', 'c1');
SELECT is(mixdnn.launch_due(), 3, 'four due jobs of three owners, alice''s quota room for one of hers: three launch');
SELECT is(pg_temp.held('tap92_alice', 'v100'), 1::bigint, 'alice holds her quota of 1 v100');
SELECT is(pg_temp.held('tap92_bob', 'v100'), 1::bigint, 'bob''s job (no quota, before hers by job_id) launched');
SELECT is(pg_temp.held('tap92_carol', 'v100'), 1::bigint, 'carol''s job (no quota, after hers) launched');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a2'), 'pending', 'alice''s second job waits');

-- No loop: a second call with nothing due runs no round.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT is(mixdnn.launch_due(), 0, 'a second launch_due at once launches nothing');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 0::bigint, '... and runs no round: a refused job is not due again');

-- A due job that cannot be placed holds nothing back for good: alice's
-- quota on k80 is 2; a3 (2 k80s) cannot be placed (bob holds 3 of the 4),
-- a4 (1 k80) can. Since a stale plan starts nothing (docs/design.md, "A
-- round", step 6) the due round re-plans a3 first, so a4 launches in a
-- pass where a3 is no longer due; the pass that does not charge an
-- unplaced job is the one after a re-plan that still left one behind.
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap92_alice', 'k80', 2);
:commit
SELECT pg_temp.submit('tap92_bob', 'bk', 'k80', 3, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'bob takes 3 of the 4 k80s');
SELECT pg_temp.submit('tap92_alice', 'a3', 'k80', 2, '1h');
SELECT pg_temp.submit('tap92_alice', 'a4', 'k80', 1, '1h');
:commit
SELECT pg_temp.due_now('a3', 'a4');
SELECT is(mixdnn.launch_due(), 1, 'a3 cannot be placed (1 k80 free), a4 can: after the re-plan a4 launches');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a4'), 'launching', 'the smaller job a4 launched');

-- Overrun on a node that is now draining: still counted by both.
SELECT pg_temp.set_now(pg_temp.t0() + interval '2 hours');
UPDATE mixdnn.gpu_nodes SET status = 'draining' WHERE node = 'v1';
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v2', 'v100', 8);
:commit
SELECT pg_temp.due_now('a2');
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT is(mixdnn.launch_due(), 0, 'alice''s job a1 overruns on a node set draining: her a2 does not launch beside it');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a2'), 'pending', 'and the due round makes it wait too');
SELECT * FROM finish();
ROLLBACK;
