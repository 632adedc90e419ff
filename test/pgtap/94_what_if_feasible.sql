-- 94_what_if_feasible.sql — mixdnn.what_if refuses what a submission
-- refuses because no configuration of the registered cluster could ever
-- run it (22023, the same words): it answered a row with blocked_by
-- 'cluster', or 'quota' ("may never hold the 16 GPUs") for a caller with
-- a GPU quota, while the submission failed.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(8);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap94_erin NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap94_fred NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('h100', 3.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus, status) VALUES ('v1', 'v100', 4, 'up'), ('h1', 'h100', 2, 'down');
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES ('big', 'v100', 1, 0), ('big', 'v100', 2, 0);
INSERT INTO mixdnn.quotas (role, max_gpus) VALUES ('tap94_fred', 8);
:commit

SET LOCAL ROLE tap94_erin;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('x', 'hard', 'v100', 16, '1h')$$,
	'22023', 'no configuration of the cluster can run this job', 'a submission of 16 v100s on a cluster of 4 is refused');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 16, duration => '1h')$$,
	'22023', 'no configuration of the cluster can run this job', '... and so is what_if of it (it said blocked_by cluster)');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'k80', gpus => 1, duration => '1h')$$,
	'22023', 'no configuration of the cluster can run this job', 'what_if of a type no node has');
SELECT is((SELECT (planned_start, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'h100', gpus => 1, duration => '1h')),
	(NULL::timestamptz, 'cluster'::text), 'a type whose only node is down: still a row, blocked_by cluster');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 16, min_gpus => 8, duration => '1h')$$,
	'22023', 'no configuration of the cluster can run this job', 'what_if of a soft job of at least 8 GPUs');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 2, duration => '1h', allowed_types => '{v100}', model => 'big')$$,
	'22023', 'no configuration of the cluster can run this job', 'what_if of a model measured at 0 on every configuration it fits');
RESET ROLE;
SET LOCAL ROLE tap94_fred;
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 16, duration => '1h')$$,
	'22023', 'no configuration of the cluster can run this job',
	'what_if for a caller with a quota of 8 GPUs: the cluster, not the quota (it said "may never hold the 16 GPUs", blocked_by quota)');
SELECT is((SELECT planned_gpus FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 4, duration => '1h')), 4,
	'a job the cluster can hold is still previewed');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
