-- 07_rls.sql — row-level security and privileges: two users see and cancel
-- only their own jobs, cannot make scheduler transitions, cannot touch the
-- cluster; an admin sees and finishes everything.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run (as the user who wrote: rounds run
-- as the extension owner whoever fires them). Roles are created inside the
-- test transaction and vanish with its ROLLBACK.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(50);

CREATE ROLE tap07_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap07_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap07_admin NOLOGIN IN ROLE mixdnn_admin;
CREATE ROLE tap07_nobody NOLOGIN;
CREATE ROLE tap07_super NOLOGIN SUPERUSER IN ROLE mixdnn_user;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 8);
:commit

SET LOCAL ROLE tap07_alice;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('a-1', 'v100', 2, '1h'), ('a-2', 'v100', 2, '1h');
:commit
RESET ROLE;
SET LOCAL ROLE tap07_bob;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('b-1', 'hard', 'v100', 2, '1h');
:commit
RESET ROLE;

SELECT results_eq($$SELECT name, owner::text COLLATE "default", status FROM mixdnn.jobs ORDER BY name$$,
	$$VALUES ('a-1', 'tap07_alice', 'planned'), ('a-2', 'tap07_alice', 'planned'), ('b-1', 'tap07_bob', 'planned')$$,
	'jobs submitted by users are owned by them and planned after commit');

-- What each one sees.
SET LOCAL ROLE tap07_alice;
SELECT results_eq($$SELECT name FROM mixdnn.jobs ORDER BY name$$, $$VALUES ('a-1'), ('a-2')$$,
	'alice sees only her jobs');
SELECT is((SELECT count(*) FROM mixdnn.plan_history), 2::bigint, 'alice sees only her jobs'' plan history');
SELECT is((SELECT count(DISTINCT job_id) FROM mixdnn.job_events), 2::bigint, 'alice sees only her jobs'' events');
SELECT is((SELECT count(*) FROM mixdnn.schedule), 2::bigint, 'alice sees only her jobs in mixdnn.schedule');
SELECT is((SELECT count(*) FROM mixdnn.gpu_nodes), 1::bigint, 'alice can read the cluster');
SELECT ok((SELECT count(*) FROM mixdnn.rounds) > 0, 'alice can read mixdnn.rounds');
RESET ROLE;
SET LOCAL ROLE tap07_bob;
SELECT results_eq($$SELECT name FROM mixdnn.jobs$$, $$VALUES ('b-1')$$, 'bob sees only his job');
RESET ROLE;
SET LOCAL ROLE tap07_admin;
SELECT is((SELECT count(*) FROM mixdnn.jobs), 3::bigint, 'the admin sees every job');
SELECT is((SELECT count(*) FROM mixdnn.plan_history), 3::bigint, 'the admin sees every plan history row');
RESET ROLE;

-- Alice cannot cancel bob's job: RLS hides it, nothing changes.
SET LOCAL ROLE tap07_alice;
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'b-1';
:commit
RESET ROLE;
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'b-1'), 'planned', 'alice''s UPDATE of bob''s job changed nothing');

-- Alice cannot take over or re-own jobs.
SET LOCAL ROLE tap07_alice;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('fake', 'tap07_bob', 'v100', 1, '1h')$$,
	'42501', NULL, 'alice cannot submit a job owned by bob');
SELECT throws_ok($$UPDATE mixdnn.jobs SET owner = 'tap07_bob' WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot give her job to bob');
SELECT throws_ok($$UPDATE mixdnn.jobs SET planned_start = now() WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot write the plan columns');
SELECT throws_ok($$DELETE FROM mixdnn.jobs WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot delete jobs');
-- Nor status changes reserved to the scheduler or admins.
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'launching' WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot set planned -> launching (scheduler only)');
RESET ROLE;
SELECT is(mixdnn.launch_due(), 3, '(setup) the superuser launches all three jobs');
SET LOCAL ROLE tap07_alice;
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'running' WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot set launching -> running');
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot set launching -> completed');
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'failed' WHERE name = 'a-1'$$,
	'42501', NULL, 'alice cannot set launching -> failed');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a-1'), 'launching', 'a-1 is still launching');
-- The cluster and the scheduler are not hers.
SELECT throws_ok($$INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('evil', 'v100', 8)$$,
	'42501', NULL, 'alice cannot register nodes');
SELECT throws_ok($$UPDATE mixdnn.gpu_nodes SET status = 'down'$$, '42501', NULL, 'alice cannot take nodes down');
SELECT throws_ok($$INSERT INTO mixdnn.profiles VALUES ('m', 'v100', 1, 1.0)$$, '42501', NULL, 'alice cannot write profiles');
SELECT throws_ok($$SELECT mixdnn.run_round('x')$$, '42501', NULL, 'alice cannot run rounds');
SELECT throws_ok($$SELECT mixdnn.launch_due()$$, '42501', NULL, 'alice cannot launch');
SELECT throws_ok($$SELECT * FROM mixdnn.claim('n1')$$, '42501', NULL, 'alice cannot claim as a launcher');
SELECT throws_ok($$DELETE FROM mixdnn.gpu_holds$$, '42501', NULL, 'alice cannot release GPUs');
SELECT throws_ok($$UPDATE mixdnn.rounds SET solver = 'x'$$, '42501', NULL, 'alice cannot rewrite rounds');
-- She can cancel her own running job.
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'a-1';
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a-1'), 'cancelled', 'alice cancels her own launched job');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('a-1')), 0::bigint, '... and its GPUs are released');

-- Bob cannot cancel alice's job either, even by id.
SET LOCAL ROLE tap07_bob;
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id IN (SELECT pg_temp.jid('a-2'));
:commit
RESET ROLE;
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'a-2'), 'launching', 'bob''s UPDATE of alice''s job (by id) changed nothing');

-- The admin completes bob's job and sets a priority.
SET LOCAL ROLE tap07_admin;
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'b-1';
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'b-1'), 'completed', 'the admin completes bob''s job');
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'running' WHERE name = 'a-2'$$,
	'42501', NULL, 'even the admin cannot make the scheduler''s launching -> running');
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n2', 'v100', 4);
:commit
SELECT is((SELECT count(*) FROM mixdnn.gpu_nodes), 2::bigint, 'the admin registers a node');
-- A job runs as its owner's OS account: an admin may submit for a user or
-- hand a job to one, but not make it a superuser's, a non-user's or a
-- role's that does not exist (an admin must not become the postgres account).
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('for-bob', 'tap07_bob', 'v100', 1, '1h')$$,
	'the admin submits a job for bob');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('own', 'v100', 1, '1h')$$,
	'the admin submits a job of her own');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', 'tap07_super', 'v100', 1, '1h')$$,
	'42501', NULL, 'the admin cannot submit a job owned by a superuser (even one in mixdnn_user)');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', 'tap07_nobody', 'v100', 1, '1h')$$,
	'42501', NULL, 'the admin cannot submit a job owned by a role outside mixdnn_user');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', 'mixdnn_admin', 'v100', 1, '1h')$$,
	'42501', NULL, 'the admin cannot make a job the extension''s group role''s (no one''s account)');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', 'tap07_ghost', 'v100', 1, '1h')$$,
	'42704', NULL, 'the admin cannot submit a job owned by a role that does not exist');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', NULL, 'v100', 1, '1h')$$,
	'23502', 'a job needs an owner, not NULL', 'the admin cannot submit a job owned by no one (23502, as NULL columns)');
SELECT throws_ok($$UPDATE mixdnn.jobs SET owner = NULL WHERE name = 'for-bob'$$,
	'23502', 'a job needs an owner, not NULL', '... nor hand a job to no one');
SELECT throws_ok($$UPDATE mixdnn.jobs SET owner = 'tap07_super' WHERE name = 'for-bob'$$,
	'42501', NULL, 'the admin cannot hand a job to a superuser');
SELECT lives_ok($$UPDATE mixdnn.jobs SET owner = 'tap07_alice' WHERE name = 'for-bob'$$,
	'the admin hands bob''s job to alice');
SELECT is((SELECT owner::text FROM mixdnn.jobs WHERE name = 'for-bob'), 'tap07_alice', '... whose it now is');
RESET ROLE;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('super-own', 'v100', 1, '1h');
:commit
SET LOCAL ROLE tap07_admin;
SELECT results_eq($$UPDATE mixdnn.jobs SET priority = 5 WHERE name = 'super-own' RETURNING priority$$, $$VALUES (5)$$,
	'the admin may still change a superuser''s job, as long as it stays the superuser''s');
RESET ROLE;

-- A role that is neither user nor admin sees nothing.
SET LOCAL ROLE tap07_nobody;
SELECT throws_ok($$SELECT count(*) FROM mixdnn.jobs$$, '42501', NULL, 'a role without mixdnn_user cannot read jobs');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('n', 'v100', 1, '1h')$$,
	'42501', NULL, 'a role without mixdnn_user cannot submit');
SELECT throws_ok($$SELECT mixdnn.now()$$, '42501', NULL, 'a role without mixdnn_user cannot call mixdnn functions');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
