-- 106_submission_budget.sql — each role's submission budget over a sliding
-- hour (docs/design.md, "Submission budget"): finished and cancelled jobs
-- stay in mixdnn.jobs, so a plain user who submitted 200 jobs of 64 kB of
-- command and 64 kB of env in one transaction and cancelled them grew the
-- table by 26 MB in 2.6 s, without end. mixdnn.max_submissions_per_hour
-- bounds the jobs one role submits in any hour, and
-- mixdnn.max_submission_bytes_per_hour the bytes they store, cancelled
-- and finished ones included (54000); superusers' jobs and a restore's
-- data load are not counted against.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(24);

CREATE ROLE tap106_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap106_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap106_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8);
:commit

-- n kB of text that does not compress (hex of random digests).
CREATE FUNCTION pg_temp.noise(kb int) RETURNS text LANGUAGE sql VOLATILE AS
	$$ SELECT string_agg(md5(random()::text || k), '') FROM generate_series(1, kb * 32) k $$;
GRANT EXECUTE ON FUNCTION pg_temp.noise(int) TO tap106_alice, tap106_bob, tap106_admin;
-- the HINT of the budget's 54000 that sql raises
CREATE FUNCTION pg_temp.budget_hint(sql text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE h text;
BEGIN
	EXECUTE sql;
	RETURN NULL;
EXCEPTION WHEN program_limit_exceeded THEN
	GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
	RETURN h;
END $f$;
GRANT EXECUTE ON FUNCTION pg_temp.budget_hint(text) TO tap106_admin;
CREATE FUNCTION pg_temp.jobs_of(who text) RETURNS bigint LANGUAGE sql AS
	$$ SELECT count(*) FROM mixdnn.jobs WHERE owner::text = who $$;

SELECT is((SELECT boot_val || ' ' || coalesce(unit, '') || ' ' || context FROM pg_settings WHERE name = 'mixdnn.max_submissions_per_hour'),
	'2000  superuser', 'mixdnn.max_submissions_per_hour is 2000 by default, set by superusers');
SELECT is((SELECT pg_size_pretty(boot_val::bigint * 1024) || ' ' || context FROM pg_settings WHERE name = 'mixdnn.max_submission_bytes_per_hour'),
	'16 MB superuser', 'mixdnn.max_submission_bytes_per_hour is 16 MB by default, set by superusers');
SELECT has_index('mixdnn', 'jobs', 'jobs_owner_submitted_idx', ARRAY['owner', 'submitted_at'],
	'a role''s jobs of the last hour are found by an index');

-- The review's repro, at the defaults: 200 jobs of 64 kB of command and
-- 64 kB of env in one statement, as a plain user.
SET LOCAL ROLE tap106_alice;
SELECT throws_like($$INSERT INTO mixdnn.jobs (name, gpus, duration, command, env)
	SELECT 'flood' || i, 1, '1h', pg_temp.noise(63), jsonb_build_object('X', pg_temp.noise(63)) FROM generate_series(1, 200) i$$,
	'%role tap106_alice would submit more than 16 MB of job text in an hour',
	'200 jobs of 128 kB each are refused at the defaults');
RESET ROLE;
SELECT is(pg_temp.jobs_of('tap106_alice'), 0::bigint, '... and none was written');

-- Rows: cancelled jobs count.
SET LOCAL mixdnn.max_submissions_per_hour = 5;
SET LOCAL ROLE tap106_alice;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) SELECT 'r' || i, 1, '1h' FROM generate_series(1, 6) i$$,
	'54000', 'role tap106_alice would submit more than 5 jobs in an hour',
	'one statement of more jobs than mixdnn.max_submissions_per_hour fails with 54000');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) SELECT 'r' || i, 1, '1h' FROM generate_series(1, 5) i$$,
	'as many jobs as the budget are accepted');
:commit
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name LIKE 'r%';
:commit
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('r6', 1, '1h')$$,
	'54000', 'role tap106_alice would submit more than 5 jobs in an hour',
	'cancelled jobs still count: one more in the same hour fails');
RESET ROLE;
SELECT is(pg_temp.jobs_of('tap106_alice'), 5::bigint, 'the refused submissions changed nothing');
SET LOCAL ROLE tap106_bob;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('b1', 1, '1h')$$,
	'another role has a budget of its own');
-- An admin's submission for alice counts against alice's budget, whatever
-- submitted_at it gives.
SET LOCAL ROLE tap106_admin;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpus, duration) VALUES ('by-admin', 'tap106_alice', 1, '1h')$$,
	'54000', NULL, 'an admin''s submission for the role counts against its budget');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpus, duration, submitted_at)
	VALUES ('backdated', 'tap106_alice', 1, '1h', mixdnn.now() - interval '1 day')$$,
	'54000', NULL, '... even with an earlier submitted_at');
-- ... whose HINT names when alice's jobs of the window stop counting, not
-- a day ago (the backdated job's submitted_at + 1 hour)
SELECT is(pg_temp.budget_hint($$INSERT INTO mixdnn.jobs (name, owner, gpus, duration, submitted_at)
	VALUES ('backdated', 'tap106_alice', 1, '1h', mixdnn.now() - interval '1 day')$$),
	format('Submit fewer jobs at once, or again after %s, when its oldest jobs of the last hour stop counting.',
		   pg_temp.t0() + interval '1 hour'),
	'... and its HINT gives the time her jobs of the last hour stop counting, not one past');
-- A later submitted_at is refused: bob's jobs of 2036, cancelled, would
-- fill his budget until then, and no admin may delete them.
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpus, duration, submitted_at)
	VALUES ('future', 'tap106_bob', 1, '1h', '2036-01-01')$$,
	'22023', NULL, 'an admin''s job for a role with a later submitted_at than now is refused');
RESET ROLE;
-- The hour slides: the jobs submitted 61 minutes ago no longer count.
SELECT pg_temp.set_now(pg_temp.t0() + interval '59 minutes');
SET LOCAL ROLE tap106_alice;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('r6', 1, '1h')$$,
	'54000', NULL, '59 minutes later they still count');
RESET ROLE;
SELECT pg_temp.set_now(pg_temp.t0() + interval '61 minutes');
SET LOCAL ROLE tap106_alice;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) SELECT 'r' || i, 1, '1h' FROM generate_series(6, 10) i$$,
	'61 minutes later the budget is whole again');
RESET ROLE;
SET LOCAL mixdnn.max_submissions_per_hour = 0;
SET LOCAL ROLE tap106_alice;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('r11', 1, '1h')$$,
	'mixdnn.max_submissions_per_hour = 0 is no limit');
RESET ROLE;
RESET mixdnn.max_submissions_per_hour;

-- Bytes: what command, env and the other texts store, cancelled jobs too.
SELECT pg_temp.set_now(pg_temp.t0() + interval '3 hours');
SET LOCAL mixdnn.max_submission_bytes_per_hour = '64kB';
SET LOCAL ROLE tap106_alice;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration, command) VALUES ('big1', 1, '1h', pg_temp.noise(40))$$,
	'a 40 kB command is within a 64 kB budget');
:commit
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'big1';
:commit
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration, command) VALUES ('big2', 1, '1h', pg_temp.noise(40))$$,
	'54000', 'role tap106_alice would submit more than 64 kB of job text in an hour',
	'a second one in the same hour fails with 54000, the first one cancelled');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration, env) VALUES ('big2', 1, '1h', jsonb_build_object('X', pg_temp.noise(40)))$$,
	'54000', NULL, 'env counts too');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration, command) VALUES ('big2', 1, '1h', repeat('python train.py; ', 3500))$$,
	'a command that compresses counts as stored: 60 kB of repeats fit in what is left');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration, command) VALUES ('small', 1, '1h', pg_temp.noise(10))$$,
	'a 10 kB command still fits');
RESET ROLE;

-- Superusers' jobs are not limited, as by mixdnn.max_waiting_jobs.
SET LOCAL mixdnn.max_submissions_per_hour = 1;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpus, duration, command) SELECT 'su' || i, 1, '1h', pg_temp.noise(40) FROM generate_series(1, 3) i$$,
	'a superuser''s own jobs are not limited');
-- A restore's data load brings the jobs as they were, over any budget.
SET LOCAL row_security = off;
COPY mixdnn.jobs (name, owner, model_class, gpus, min_gpus, max_gpus, duration, status, submitted_at, finished_at, command) FROM stdin;
restored1	tap106_alice	soft	1	1	1	01:00:00	cancelled	2026-01-01 03:00:00+00	2026-01-01 03:00:00+00	python a.py
restored2	tap106_alice	soft	1	1	1	01:00:00	pending	2026-01-01 03:00:00+00	\N	python b.py
\.
RESET row_security;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'restored%'), 2::bigint,
	'a restore''s data load is not refused by the budget');
RESET mixdnn.max_submissions_per_hour;
RESET mixdnn.max_submission_bytes_per_hour;
:commit

SELECT * FROM finish();
ROLLBACK;
