-- 108_role_setting.sql — a role's own mixdnn limits (ALTER ROLE ... SET)
-- bind its jobs whoever submits them: the waiting-jobs limit (105) and
-- the submission budget, read with mixdnn._role_setting, whose values are
-- read as the server reads the setting (mixdnn._guc_int: units, fractions).
-- Before, the budget took the submitting session's values: an admin's
-- submission for a role went past the budget its ALTER ROLE gave it.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(11);

CREATE ROLE tap108_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap108_op NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8);
:commit

SELECT is(mixdnn._guc_int('mixdnn.max_submission_bytes_per_hour', '16MB'), 16384, '''16MB'' is 16384 kB, the setting''s unit');
SELECT is(mixdnn._guc_int('mixdnn.max_submission_bytes_per_hour', '2048'), 2048, 'a plain number is in the setting''s unit');
SELECT is(mixdnn._guc_int('mixdnn.max_submission_bytes_per_hour', '1.5MB'), 1536, 'a fraction with a unit, as the server takes it');
SELECT is(mixdnn._guc_int('mixdnn.max_submissions_per_hour', 'many'), NULL, 'what does not parse is NULL');
SELECT throws_ok($$SELECT mixdnn._guc_int('work_mem', '1MB')$$, '22023', NULL, 'only mixdnn''s settings');

ALTER ROLE tap108_bob SET mixdnn.max_submissions_per_hour = 2;
SET LOCAL ROLE tap108_op;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration)
	VALUES ('b1', 'tap108_bob', 'v100', 1, '1h'), ('b2', 'tap108_bob', 'v100', 1, '1h')$$,
	'an admin submits two jobs for bob, whose role allows two an hour');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('b3', 'tap108_bob', 'v100', 1, '1h')$$,
	'54000', 'role tap108_bob would submit more than 2 jobs in an hour',
	'a third is refused by bob''s own setting, not the admin session''s 2000');
RESET ROLE;
-- a setting for this database comes before the role's for every database
SELECT set_config('tap108.db', current_database(), true);
DO $$ BEGIN EXECUTE format('ALTER ROLE tap108_bob IN DATABASE %I SET mixdnn.max_submissions_per_hour = 3',
						   current_setting('tap108.db')); END $$;
SET LOCAL ROLE tap108_op;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('b3', 'tap108_bob', 'v100', 1, '1h')$$,
	'bob''s budget in this database, 3, binds before his budget in every database');
RESET ROLE;

-- bytes, in the setting's unit whatever way the ALTER ROLE wrote them
ALTER ROLE tap108_bob SET mixdnn.max_submission_bytes_per_hour = '0.1MB';
DO $$ BEGIN EXECUTE format('ALTER ROLE tap108_bob IN DATABASE %I RESET mixdnn.max_submissions_per_hour',
						   current_setting('tap108.db')); END $$;
ALTER ROLE tap108_bob RESET mixdnn.max_submissions_per_hour;
CREATE FUNCTION pg_temp.noise(kb int) RETURNS text LANGUAGE sql VOLATILE AS
	$$ SELECT string_agg(md5(random()::text || k), '') FROM generate_series(1, kb * 32) k $$;
GRANT EXECUTE ON FUNCTION pg_temp.noise(int) TO tap108_op;
SET LOCAL ROLE tap108_op;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, command)
	VALUES ('c1', 'tap108_bob', 'v100', 1, '1h', pg_temp.noise(60))$$,
	'60 kB of command for bob, whose role allows 0.1 MB (102 kB) an hour');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, command)
	VALUES ('c2', 'tap108_bob', 'v100', 1, '1h', pg_temp.noise(60))$$,
	'54000', 'role tap108_bob would submit more than 102 kB of job text in an hour',
	'60 kB more is refused by bob''s own byte budget, not the admin session''s 16 MB');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE owner = 'tap108_bob'), 4::bigint, 'the refused submissions wrote nothing');

SELECT * FROM finish();
ROLLBACK;
