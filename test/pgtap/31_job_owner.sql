-- 31_job_owner.sql — a job's owner must be an existing role, whoever names
-- it (a superuser too: its launch would fail), but a restore's data load
-- (a superuser's COPY with row_security off, as pg_restore loads) keeps the
-- jobs of roles missing in the restoring cluster, as the dump had them.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(9);

CREATE ROLE tap31_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap31_plain NOLOGIN;
CREATE ROLE tap31_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit

SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', 'tap31_ghost', 'v100', 1, '1h')$$,
	'42704', 'a job''s owner must be an existing role: role "tap31_ghost" does not exist',
	'a superuser cannot submit a job for a role that does not exist');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('a', 'tap31_alice', 'v100', 1, '1h')$$,
	'a superuser submits a job for a mixdnn user');
SELECT throws_ok($$UPDATE mixdnn.jobs SET owner = 'tap31_ghost' WHERE name = 'a'$$,
	'42704', NULL, '... and cannot hand it to a role that does not exist');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('p', 'tap31_plain', 'v100', 1, '1h')$$,
	'a superuser may still name an existing role outside mixdnn_user');
SET LOCAL ROLE tap31_admin;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration) VALUES ('x', 'tap31_ghost', 'v100', 1, '1h')$$,
	'42704', 'a job''s owner must be an existing role: role "tap31_ghost" does not exist',
	'an admin gets the same error');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE owner = 'tap31_ghost'), 0::bigint, 'no job of the missing role was written');

-- A restore's load: the dump's rows as they were, whose roles are missing here.
SET LOCAL row_security = off;
COPY mixdnn.jobs (name, owner, model_class, gpu_type, gpus, min_gpus, max_gpus, duration, status, submitted_at,
				  started_at, finished_at, exit_code, attempt) FROM stdin;
restored-done	tap31_ghost	hard	v100	1	1	1	01:00:00	completed	2025-12-31 20:00:00+00	2025-12-31 21:00:00+00	2025-12-31 22:00:00+00	0	1
restored-waiting	tap31_ghost	hard	v100	1	1	1	01:00:00	pending	2025-12-31 23:00:00+00	\N	\N	\N	0
\.
RESET row_security;
SELECT results_eq($$SELECT name, status FROM mixdnn.jobs WHERE owner = 'tap31_ghost' ORDER BY name$$,
	$$VALUES ('restored-done', 'completed'), ('restored-waiting', 'pending')$$,
	'a restore''s data load keeps the jobs of a role missing here, as they were');
SELECT lives_ok($$UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'restored-waiting'$$,
	'such a job can still be cancelled (its owner is not named again)');
SELECT throws_ok($$UPDATE mixdnn.jobs SET owner = 'tap31_ghost' WHERE name = 'a'$$,
	'42704', NULL, 'after the load, a superuser''s write is checked again');

SELECT * FROM finish();
ROLLBACK;
