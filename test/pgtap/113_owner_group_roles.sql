-- 113_owner_group_roles.sql — no job is owned by one of mixdnn's group
-- roles, whoever submits as one. Before, a user (or a NOINHERIT role,
-- which must SET ROLE mixdnn_user to submit at all) could SET ROLE
-- mixdnn_user and submit: the job was mixdnn_user's, so her quota and
-- waiting-jobs limit did not bind it (alice, allowed 1 GPU and 1 waiting
-- job, had two 4-GPU jobs planned and launched), every other user could
-- read and cancel it the same way, and only a quota row naming
-- mixdnn_user, which binds every user, could have bound it. An admin
-- naming such an owner was already refused (mixdnn._check_job_owner).
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(7);
DELETE FROM mixdnn.quotas;

CREATE ROLE tap113o_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap113o_carol NOLOGIN NOINHERIT IN ROLE mixdnn_user;
CREATE ROLE tap113o_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, max_waiting_jobs) VALUES ('tap113o_alice', NULL, 1, 1);
:commit

SET LOCAL ROLE tap113o_alice;
SET LOCAL ROLE mixdnn_user;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('g1', 'hard', 'v100', 4, '1h'), ('g2', 'hard', 'v100', 4, '1h')$$, '42501',
	'a job cannot be owned by mixdnn''s group role "mixdnn_user"',
	'a user who SET ROLE mixdnn_user cannot submit jobs that role would own');
RESET ROLE;
SET LOCAL ROLE tap113o_carol;
SET LOCAL ROLE mixdnn_user;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('c1', 'hard', 'v100', 1, '1h')$$, '42501', NULL,
	'nor a NOINHERIT member, who has no rights but through SET ROLE');
RESET ROLE;
SET LOCAL ROLE tap113o_admin;
SET LOCAL ROLE mixdnn_admin;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('m1', 'hard', 'v100', 1, '1h')$$, '42501',
	'a job cannot be owned by mixdnn''s group role "mixdnn_admin"',
	'nor an admin who SET ROLE mixdnn_admin');
RESET ROLE;
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs), 0::bigint, 'the refused submissions wrote nothing');

-- Her own submissions are bound by her quota and limit, as before.
SET LOCAL ROLE tap113o_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a1', 'hard', 'v100', 1, '1h');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('a2', 'hard', 'v100', 1, '1h')$$, '54000', NULL, 'her second waiting job is over her limit');
RESET ROLE;
:commit
SELECT is((SELECT owner::text || ' ' || status FROM mixdnn.jobs WHERE name = 'a1'), 'tap113o_alice planned',
	'her own job is hers and planned');
SELECT is(mixdnn.launch_due(), 1, 'and launched, within her quota');

SELECT * FROM finish();
ROLLBACK;
