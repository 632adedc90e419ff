-- 90_tenancy.sql — a shared cluster (issue #15): mixdnn.quotas (GPU quotas
-- per role and group role, borrowing, waiting-jobs limits) and
-- mixdnn.shares with mixdnn.fair_share, with two and three users; their
-- plain-words errors; explain's quota and fair_share causes.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. launch_due() by hand.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(45);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap90_team NOLOGIN;
CREATE ROLE tap90_alice NOLOGIN IN ROLE mixdnn_user, tap90_team;
CREATE ROLE tap90_bob NOLOGIN IN ROLE mixdnn_user, tap90_team;
CREATE ROLE tap90_carol NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap90_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8), ('k1', 'k80', 4);
:commit

CREATE FUNCTION pg_temp.said(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(reason, '') FROM mixdnn.jobs WHERE name = n $$;
CREATE FUNCTION pg_temp.starts_now(n text) RETURNS boolean LANGUAGE sql AS
	$$ SELECT status = 'planned' AND planned_start = mixdnn.now() FROM mixdnn.jobs WHERE name = n $$;
CREATE FUNCTION pg_temp.run_job(n text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM mixdnn.launch_due();
	PERFORM mixdnn.claim(p.node) FROM mixdnn.job_parts p WHERE p.job_id = pg_temp.jid(n);
END $$;

-- Admin-only tables, with plain-words errors.
SET LOCAL ROLE tap90_alice;
SELECT throws_ok($$SELECT * FROM mixdnn.quotas$$, '42501', NULL, 'a user cannot read mixdnn.quotas');
SELECT throws_ok($$INSERT INTO mixdnn.shares VALUES ('tap90_alice', 100)$$, '42501', NULL, 'a user cannot give itself shares');
RESET ROLE;
SET LOCAL ROLE tap90_admin;
SELECT throws_ok($$INSERT INTO mixdnn.quotas (role, max_gpus) VALUES ('tap90_nobody', 2)$$, '42704',
	'role must name an existing role, not "tap90_nobody"', 'a quota for an unknown role is refused');
SELECT throws_ok($$INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap90_alice', 'a100', 2)$$, '23503',
	'gpu_type must be a registered GPU type or NULL (all types), not "a100"', 'a quota for an unknown type is refused');
SELECT throws_ok($$INSERT INTO mixdnn.quotas (role, max_gpus) VALUES ('tap90_alice', -1)$$, '23514',
	'max_gpus must be between 0 and 1000000 or NULL (no limit), not -1', 'a negative max_gpus is refused');
SELECT throws_ok($$INSERT INTO mixdnn.quotas (role, max_waiting_jobs) VALUES ('tap90_alice', -5)$$, '23514',
	'max_waiting_jobs must be between 0 and 10000000 or NULL (no limit), not -5', 'a negative max_waiting_jobs is refused');
SELECT throws_ok($$INSERT INTO mixdnn.shares VALUES ('tap90_alice', NULL)$$, '23502',
	'shares must be between 1 and 1000000, not NULL', 'NULL shares: 23502, as a NULL borrow');
SELECT throws_ok($$INSERT INTO mixdnn.quotas (role, max_gpus) VALUES (NULL, 2)$$, '23502',
	'role must name an existing role, not NULL', 'a quota without a role: 23502');
SELECT throws_ok($$INSERT INTO mixdnn.shares VALUES ('tap90_alice', 0)$$, '23514',
	'shares must be between 1 and 1000000, not 0', 'zero shares are refused');
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap90_alice', 'v100', 2);
SELECT throws_ok($$INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap90_alice', 'v100', 4)$$, '23505',
	NULL, 'a second row for the same role and type is refused (the table''s unique constraint)');
SELECT is((SELECT count(*) FROM mixdnn.quotas), 1::bigint, 'the refused rows changed nothing');
-- An upsert of an existing row works (a trigger's 23505 refused it).
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap90_alice', 'v100', 4)
	ON CONFLICT (role, gpu_type) DO UPDATE SET max_gpus = EXCLUDED.max_gpus;
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap90_alice', 'v100', 6) ON CONFLICT DO NOTHING;
SELECT is((SELECT format('%s %s', count(*), max(max_gpus)) FROM mixdnn.quotas), '1 4',
	'INSERT ... ON CONFLICT DO UPDATE updates the row, DO NOTHING leaves it');
UPDATE mixdnn.quotas SET max_gpus = 2 WHERE role = 'tap90_alice';
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap90_alice', NULL, 5);
SELECT throws_ok($$UPDATE mixdnn.quotas SET gpu_type = 'v100' WHERE role = 'tap90_alice' AND gpu_type IS NULL$$, '23505',
	'role tap90_alice already has a quota for gpu_type v100', 'an update making a second row is refused in plain words');
DELETE FROM mixdnn.quotas WHERE role = 'tap90_alice' AND gpu_type IS NULL;
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, max_waiting_jobs) VALUES ('tap90_team', NULL, 3, 2);
RESET ROLE;

-- pg_has_role() holds of a superuser for every role: quotas of users and
-- groups must not bind the superuser's own jobs (they did, the strictest row
-- of the cluster).
INSERT INTO mixdnn.quotas (role, max_gpus) VALUES ('tap90_carol', 0);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('su', 'hard', 'v100', 4, '1h');
:commit
SELECT is(pg_temp.said('su'), 'planned: ', 'a superuser''s job is bound by no other role''s quota');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'su';
DELETE FROM mixdnn.quotas WHERE role = 'tap90_carol';
:commit

-- A GPU quota: alice may hold 2 v100s. Her second job waits although 6 are idle.
SELECT pg_temp.submit('tap90_alice', 'a1', 'v100', 2, '1h');
SELECT pg_temp.submit('tap90_alice', 'a2', 'v100', 2, '1h');
:commit
SELECT ok(pg_temp.starts_now('a1'), 'alice''s first job starts now');
SELECT is(pg_temp.said('a2'),
	'pending: over quota: role tap90_alice holds 2 of the 2 v100 GPUs its quota allows and needs 2',
	'her second job waits with a reason naming the quota, though GPUs are idle');
SELECT is((SELECT array_agg(DISTINCT blocked_by) FROM mixdnn.explain(pg_temp.jid('a2'))), ARRAY['quota'],
	'explain says quota while her first job is only planned to start');
SELECT pg_temp.run_job('a1');
SELECT is((SELECT array_agg(DISTINCT blocked_by) FROM mixdnn.explain(pg_temp.jid('a2'))), ARRAY['quota'],
	'... and once it holds its GPUs');
SET LOCAL ROLE tap90_alice;
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1h')),
	('over quota: role tap90_alice holds 2 of the 2 v100 GPUs its quota allows and needs 1'::text, 'quota'::text),
	'what_if, asked by alice, applies her quota and says it is the quota');
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 4, duration => '1h')),
	('over quota: role tap90_alice may never hold the 4 GPUs it needs on any of its GPU types'::text, 'quota'::text),
	'... and of a job her quota could never let run, too (it said cluster: a hard job''s type is not in allowed)');
SELECT is((SELECT reason FROM mixdnn.queue WHERE job_id = pg_temp.jid('a2')),
	'over quota: role tap90_alice holds 2 of the 2 v100 GPUs its quota allows and needs 2',
	'alice reads the reason in mixdnn.queue');
-- A soft job of hers may run on any type: with her v100 quota full it
-- starts on an idle k80 rather than waiting for her quota (her group's
-- quota of 3 GPUs of all types leaves room for its one GPU).
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('as', 'soft', 'v100', 1, 1, 1, '1h');
RESET ROLE;
:commit
SELECT is((SELECT format('%s %s %s', status, planned_gpu_type, planned_gpus) FROM mixdnn.jobs WHERE name = 'as'),
	'planned k80 1', 'her soft job is planned on a k80, within both quotas');
SELECT ok(pg_temp.starts_now('as'), '... now');
DELETE FROM mixdnn.jobs WHERE name = 'as';
:commit

-- A group quota binds each member: bob (team: 3 GPUs of all types).
SELECT pg_temp.submit('tap90_bob', 'b1', 'v100', 2, '1h');
SELECT pg_temp.submit('tap90_bob', 'b2', 'k80', 2, '1h');
:commit
SELECT ok(pg_temp.starts_now('b1'), 'bob''s first job starts');
SELECT alike(pg_temp.said('b2'), 'pending: over quota: role tap90_bob holds 2 of the 3 GPUs (all types)%',
	'his second would exceed the group''s quota of all types: it waits');
SELECT alike(pg_temp.said('a2'), 'pending: over quota%', 'alice''s job still waits');

-- The waiting-jobs limit: team's 2 binds bob, not carol; the strictest row binds.
SELECT pg_temp.run_job('b1');
SET LOCAL ROLE tap90_bob;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('b3', 'v100', 1, '1h')$$,
	'bob may have 2 waiting jobs');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('b4', 'v100', 1, '1h')$$,
	'54000', 'role tap90_bob would have more than 2 waiting jobs', 'a third waiting job of a group member fails with 54000');
RESET ROLE;
INSERT INTO mixdnn.quotas (role, max_waiting_jobs) VALUES ('tap90_bob', 10);
SET LOCAL ROLE tap90_bob;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('b4', 'v100', 1, '1h')$$,
	'54000', NULL, 'a looser row of his own does not lift the group''s limit');
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1h')),
	('refused: role tap90_bob has 2 waiting jobs, the most its mixdnn.quotas row allows'::text, 'limit'::text),
	'what_if, asked by bob, applies the group''s waiting-jobs limit as a submission does');
RESET ROLE;
SET LOCAL ROLE tap90_carol;
SELECT is((SELECT blocked_by FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'k80', gpus => 1, duration => '1h')),
	NULL, 'what_if, asked by carol (in no group), is not refused by the team''s limit');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name = 'b4'), 0::bigint, 'the refused submissions changed nothing');
SET LOCAL ROLE tap90_carol;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) SELECT 'c' || i, 'k80', 1, '1h' FROM generate_series(1, 3) i$$,
	'carol, in no group, is not limited by the team''s row');
RESET ROLE;
:commit
DELETE FROM mixdnn.jobs WHERE name IN ('c1', 'c2', 'c3');
:commit

-- Borrowing: carol may hold 1 k80 and borrow idle ones.
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow) VALUES ('tap90_carol', 'k80', 1, true);
SELECT pg_temp.submit('tap90_carol', 'cb1', 'k80', 1, '1h');
SELECT pg_temp.submit('tap90_carol', 'cb2', 'k80', 1, '1h');
:commit
SELECT ok(pg_temp.starts_now('cb1') AND pg_temp.starts_now('cb2'),
	'with borrow, her second job starts on an idle k80 beyond her quota');
SELECT pg_temp.run_job('cb1');
SELECT pg_temp.run_job('cb2');
-- Now a borrower yields to a job within its owner's quota: 2 k80s are free (b2 waits on the team quota).
UPDATE mixdnn.quotas SET max_gpus = 10 WHERE role = 'tap90_team';
SELECT pg_temp.submit('tap90_carol', 'cb3', 'k80', 1, '10 min');
SELECT pg_temp.submit('tap90_carol', 'cb4', 'k80', 1, '10 min');
:commit
SELECT ok(pg_temp.starts_now('b2'), 'a job within its quota gets the free k80s');
SELECT ok(NOT pg_temp.starts_now('cb3') AND NOT pg_temp.starts_now('cb4'),
	'... before shorter jobs that would borrow them');
DELETE FROM mixdnn.jobs;
DELETE FROM mixdnn.quotas;
:commit

-- Fair share, two users: alice used a v100 for 2 hours, bob never. Both
-- submit in one round, alice first, so without fair share she goes first.
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('solo', 'v100', 1);
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node IN ('v1', 'k1');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 day');
SELECT pg_temp.submit('tap90_alice', 'hist', 'v100', 1, '2h');
:commit
SELECT pg_temp.run_job('hist');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 day 2 hours');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'hist';
:commit
SET LOCAL mixdnn.fair_share = off;
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 day 2 hours 1 minute');
SELECT pg_temp.submit('tap90_alice', 'fa', 'v100', 1, '1h');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 day 2 hours 2 minutes');
SELECT pg_temp.submit('tap90_bob', 'fb', 'v100', 1, '1h');
:commit
SELECT ok(pg_temp.starts_now('fa') AND NOT pg_temp.starts_now('fb'), 'without fair share, the earlier submission goes first');
SET LOCAL mixdnn.fair_share = on;
SELECT mixdnn.run_round('test');
SELECT ok(pg_temp.starts_now('fb') AND NOT pg_temp.starts_now('fa'),
	'with fair share, the user who used nothing goes first, the heavy user waits');
SELECT is((SELECT string_agg(format('%s %s %s %s %s %s', role, shares, entitlement, usage_share, gpus_held, factor), '; ' ORDER BY role)
		   FROM mixdnn.fair_share_usage()),
	'tap90_alice 1 0.5 1 0 0.5; tap90_bob 1 0.5 0 0 2',
	'fair_share_usage: alice used everything, twice her share: factor 2^(1 - 2) = 0.5; bob 2^1 = 2');
SET LOCAL ROLE tap90_bob;
SELECT is((SELECT array_agg(fair_share ORDER BY owner) FROM mixdnn.queue),
	ARRAY[0.5, 2.0]::float8[], 'the queue shows each job''s fair-share factor, to any user');
RESET ROLE;

-- Three users: carol joins; the two who used nothing go before alice.
SELECT pg_temp.submit('tap90_carol', 'fc', 'v100', 1, '1h');
:commit
SELECT is((SELECT array_agg(name ORDER BY planned_start, job_id) FROM mixdnn.jobs WHERE name IN ('fa', 'fb', 'fc')),
	ARRAY['fb', 'fc', 'fa'], 'three users: the order follows usage over shares');
SELECT is((SELECT blocked_by FROM mixdnn.explain(pg_temp.jid('fa')) WHERE chosen), 'fair_share',
	'explain says fair_share on the delayed job''s chosen configuration');
SELECT is((SELECT blocked_by FROM mixdnn.explain(pg_temp.jid('fc')) WHERE chosen), NULL,
	'... not on a job fair share does not delay');
SET LOCAL mixdnn.fair_share = off;
SELECT mixdnn.run_round('test');
SELECT is((SELECT blocked_by FROM mixdnn.explain(pg_temp.jid('fa')) WHERE chosen), NULL,
	'... nor with fair share off');
SELECT is((SELECT count(fair_share) FROM mixdnn.queue), 0::bigint, 'with fair share off, the queue shows no factor');

SELECT * FROM finish();
ROLLBACK;
