-- 105_surface_users.sql — what a user is told, checked against what is
-- so (an independent review of the surface, as daily users would use it).
--
-- * mixdnn.what_if's "limit" answer counted the caller's waiting jobs up
--   to the limit only, so a role above its limit (the limit lowered after
--   its jobs were submitted) was told it "has 1 waiting jobs" while it had
--   3; now: "has more than the 1 waiting jobs its mixdnn.quotas row
--   allows".
-- * mixdnn.explain's chosen row gave the start a round computes now while
--   the stored plan (mixdnn.queue) kept an earlier one, which a round run
--   then keeps too (a later start within mixdnn.replan_tolerance is not
--   rewritten): "chosen: the round's plan" contradicted the plan the
--   round left. The detail now names the stored start and why it stays.
-- * mixdnn.what_if's position, "the position mixdnn.queue would show",
--   counted the other jobs by the starts the round computes, not by those
--   it leaves stored: behind a job whose stored start is kept earlier than
--   the new job's and its computed one later, the queue then showed the
--   new job one place further back.
-- * A role's own mixdnn.max_waiting_jobs (ALTER ROLE bob SET) bound only
--   its own sessions: an admin submitting for bob (owner = 'bob', or SET
--   ROLE bob) was held to the admin session's setting, 1000, and took bob
--   beyond his limit of 1.
-- * mixdnn.what_if, asked as bob from another session (SET ROLE), said
--   his limit of 2 from his own ALTER ROLE SET was "its mixdnn.quotas
--   row": it took any limit other than the session's setting for a row's.
-- * Under mixdnn.policy k8s (and the other comparators that start a job
--   only now), explain said of a job left waiting "objective: it would
--   fit, but the round's plan has more total utility" whatever kept it
--   from starting now; now the cause of that (reservations, capacity).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(22);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap105_alice NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2), ('k1', 'k80', 2);
:commit

CREATE FUNCTION pg_temp.said_k8s(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(reason, '') FROM mixdnn.jobs WHERE name = n $$;

-- alice has 3 waiting jobs; her limit is then lowered to 1, then set to 3.
SELECT pg_temp.submit('tap105_alice', 'a' || i, 'v100', 2, '1h') FROM generate_series(1, 3) i;
:commit
INSERT INTO mixdnn.quotas (role, max_waiting_jobs) VALUES ('tap105_alice', 1);
:commit
SET LOCAL ROLE tap105_alice;
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1h')),
	('refused: role tap105_alice has more than the 1 waiting jobs its mixdnn.quotas row allows'::text, 'limit'::text),
	'what_if of a role above its (lowered) waiting-jobs limit says it has more, not that it has the limit');
RESET ROLE;
UPDATE mixdnn.quotas SET max_waiting_jobs = 3 WHERE role = 'tap105_alice';
:commit
SET LOCAL ROLE tap105_alice;
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1h')),
	('refused: role tap105_alice has 3 waiting jobs, the most its mixdnn.quotas row allows'::text, 'limit'::text),
	'... and a role at its limit exactly is told its count');
RESET ROLE;
UPDATE mixdnn.quotas SET max_waiting_jobs = 4 WHERE role = 'tap105_alice';
:commit
SET LOCAL ROLE tap105_alice;
SELECT is((SELECT blocked_by FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1h')),
	NULL, '... and one below it is not refused');
RESET ROLE;

DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.jobs;
:commit

-- explain and the stored start: ea runs now, eb after it, ek (k80) runs
-- for 57 minutes; eb's stored start is 5 minutes early, as earlier rounds
-- may leave it (within 10 % of the 55 minutes until it).
SELECT pg_temp.submit('tap105_alice', 'ea', 'v100', 2, '1h');
:commit
SELECT pg_temp.submit('tap105_alice', 'eb', 'v100', 2, '1h');
:commit
SELECT pg_temp.submit('tap105_alice', 'ek', 'k80', 2, '57 min');
:commit
SELECT is(mixdnn.launch_due(), 2, 'ea and ek launch');
UPDATE mixdnn.jobs SET planned_start = pg_temp.t0() + interval '55 min', planned_end = pg_temp.t0() + interval '115 min'
WHERE name = 'eb';
SET LOCAL ROLE tap105_alice;
SELECT is((SELECT (earliest_start, chosen) FROM mixdnn.explain(pg_temp.jid('eb'))),
	(pg_temp.t0() + interval '1 hour', true), 'explain: a round now would start eb at 01:00');
SELECT alike((SELECT detail FROM mixdnn.explain(pg_temp.jid('eb'))),
	'chosen: the round''s plan%; the stored plan keeps its earlier start, 2026-01-01 00:55:00 UTC: %mixdnn.replan_tolerance%',
	'... and says that the stored plan keeps its earlier start, and why');
RESET ROLE;
SELECT isnt_empty('SELECT mixdnn.run_round(''test'')', 'a round runs');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'eb'), pg_temp.t0() + interval '55 min',
	'... and keeps the stored start, as explain said');

-- what_if of a k80 job: it starts at 00:57, after eb's stored start
-- (00:55) though before the start a round computes for eb (01:00).
SET LOCAL ROLE tap105_alice;
SELECT is((SELECT (planned_start, "position") FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'k80', gpus => 2, duration => '10 min')),
	(pg_temp.t0() + interval '57 min', 2), 'what_if: position 2, behind eb''s stored start');
RESET ROLE;
SELECT pg_temp.submit('tap105_alice', 'ew', 'k80', 2, '10 min');
:commit
SELECT is((SELECT (planned_start, "position") FROM mixdnn.queue WHERE job_id = pg_temp.jid('ew')),
	(pg_temp.t0() + interval '57 min', 2), '... which the queue shows once it is submitted');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'eb'), pg_temp.t0() + interval '55 min',
	'... eb''s stored start still kept');

-- bob's own limit of 1 waiting job, set for his role; this session is
-- the superuser's, who SETs ROLE to him and to an admin.
DELETE FROM mixdnn.jobs;
:commit
CREATE ROLE tap105_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap105_op NOLOGIN IN ROLE mixdnn_admin;
ALTER ROLE tap105_bob SET mixdnn.max_waiting_jobs = 1;
SET LOCAL ROLE tap105_bob;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('b1', 'v100', 1, '1h')$$,
	'bob may have 1 waiting job');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('b2', 'v100', 1, '1h')$$,
	'54000', 'role tap105_bob would have more than 1 waiting jobs',
	'a second, submitted as bob from another session (SET ROLE), is refused by his role''s setting');
RESET ROLE;
SET LOCAL ROLE tap105_op;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('b2', 'tap105_bob', 'v100', 1, '1h')$$,
	'54000', 'role tap105_bob would have more than 1 waiting jobs',
	'... and so is one an admin submits for him');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE owner = 'tap105_bob'), 1::bigint, '... which changed nothing');
-- a setting for this database comes before the role's for every database
SELECT set_config('tap105.db', current_database(), true);
DO $$ BEGIN EXECUTE format('ALTER ROLE tap105_bob IN DATABASE %I SET mixdnn.max_waiting_jobs = 2',
						   current_setting('tap105.db')); END $$;
SET LOCAL ROLE tap105_op;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('b2', 'tap105_bob', 'v100', 1, '1h')$$,
	'bob''s limit in this database, 2, binds before his limit in every database');
RESET ROLE;
-- what_if as bob (SET ROLE, in the superuser's session) names the setting
-- that binds him, his own, not a mixdnn.quotas row he has none of
SET LOCAL ROLE tap105_bob;
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1h')),
	('refused: role tap105_bob has 2 waiting jobs, the most mixdnn.max_waiting_jobs allows'::text, 'limit'::text),
	'what_if of a role at its own ALTER ROLE limit names mixdnn.max_waiting_jobs, not a quotas row');
RESET ROLE;

-- k8s: p1 starts now on both v100s, p2 waits for them.
DELETE FROM mixdnn.jobs;
:commit
SET LOCAL mixdnn.policy = 'k8s';
SELECT pg_temp.submit('tap105_alice', 'p1', 'v100', 2, '1h');
:commit
SELECT pg_temp.submit('tap105_alice', 'p2', 'v100', 2, '1h');
:commit
SELECT is(pg_temp.said_k8s('p2'), 'pending: k8s: needs 2 v100 GPUs, 0 free now', 'k8s leaves p2 waiting');
SELECT is((SELECT array_agg(blocked_by) FROM mixdnn.explain(pg_temp.jid('p2'))), '{reservations}'::text[],
	'explain under k8s: p2''s GPUs are planned for p1, which starts now');
SELECT is(mixdnn.launch_due(), 1, 'p1 launches');
SELECT isnt_empty('SELECT mixdnn.run_round(''test'')', 'a round runs');
SELECT is((SELECT array_agg(blocked_by) FROM mixdnn.explain(pg_temp.jid('p2'))), '{capacity}'::text[],
	'... then held by it');

SELECT * FROM finish();
ROLLBACK;
