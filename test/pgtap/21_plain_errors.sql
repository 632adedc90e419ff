-- 21_plain_errors.sql — issue #9: errors that surfaced as a bare constraint
-- name ("violates check constraint jobs_name_check", the foreign key error
-- when deleting a node whose GPUs are held) say in plain words which column
-- is wrong and what it allows, with the constraint's own SQLSTATE.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(25);

CREATE ROLE tap21_user NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap21_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit

-- Jobs, as a user.
SET LOCAL ROLE tap21_user;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('', 'v100', 1, '1h')$$,
	'23514', 'name must have 1 to 200 characters, not 0', 'an empty name');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES (repeat('x', 201), 'v100', 1, '1h')$$,
	'23514', 'name must have 1 to 200 characters, not 201', 'a name of 201 characters');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('j', 'v100', 1, '1h', 101)$$,
	'23514', 'priority must be between -100 and 100, not 101', 'priority 101');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('j', 'medium', 'v100', 1, '1h')$$,
	'23514', 'model_class must be hard or soft, not "medium"', 'an unknown model_class');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, command) VALUES ('ok', 'v100', 4, '1h', 'true');
:commit
RESET ROLE;

-- An admin's update of one column alone.
SET LOCAL ROLE tap21_admin;
SELECT throws_ok($$UPDATE mixdnn.jobs SET priority = -101 WHERE name = 'ok'$$,
	'23514', 'priority must be between -100 and 100, not -101', 'an admin sets priority -101');
SELECT throws_ok($$UPDATE mixdnn.jobs SET priority = 200 WHERE name = 'ok'$$,
	'23514', 'priority must be between -100 and 100, not 200', 'an admin sets priority 200');

-- The cluster tables.
SELECT throws_ok($$INSERT INTO mixdnn.gpu_types (gpu_type) VALUES ('a 100')$$, '23514',
	'gpu_type must be 1 to 63 letters, digits, "_", "." or "-", starting with a letter or digit, not "a 100"',
	'a GPU type name with a blank');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 0)$$, '23514',
	'speed must be greater than 0 and at most 1000, not 0', 'speed 0');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 'NaN')$$, '23514',
	'speed must be greater than 0 and at most 1000, not NaN', 'speed NaN');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_types (gpu_type, memory_gb) VALUES ('a100', -1)$$, '23514',
	'memory_gb must be positive, not -1', 'memory_gb -1');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n/2', 'v100', 4)$$, '23514',
	'node must be 1 to 63 letters, digits, "_", "." or "-", starting with a letter or digit, not "n/2"',
	'a node name with a slash');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n2', 'v100', 65)$$, '23514',
	'gpus of a node must be between 1 and 64, not 65', 'a node with 65 GPUs');
SELECT throws_ok($$INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n2', 'h100', 4)$$, '23503',
	'unknown gpu type "h100"', 'a node of an unknown type');
SELECT throws_ok($$UPDATE mixdnn.gpu_nodes SET status = 'broken' WHERE node = 'n1'$$, '23514',
	'status of a node must be up, draining or down, not "broken"', 'an unknown node status');
SELECT throws_ok($$INSERT INTO mixdnn.profiles VALUES ('', 'v100', 1, 1.0)$$, '23514',
	'model must have 1 to 63 characters, not 0', 'a profile with an empty model');
SELECT throws_ok($$INSERT INTO mixdnn.profiles VALUES ('m', 'v100', 0, 1.0)$$, '23514',
	'gpus of a profile must be between 1 and 4096, not 0', 'a profile for 0 GPUs');
SELECT throws_ok($$INSERT INTO mixdnn.profiles VALUES ('m', 'v100', 1, -1)$$, '23514',
	'throughput must be 0 or more and finite, not -1', 'a negative throughput');
SELECT throws_ok($$INSERT INTO mixdnn.profiles VALUES ('m', 'h100', 1, 1)$$, '23503',
	'unknown gpu type "h100"', 'a profile of an unknown type');
RESET ROLE;

-- Deleting a node whose GPUs a launched job holds.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 second');
SELECT is(mixdnn.launch_due(), 1, '(setup) the job is launched on n1');
SET LOCAL ROLE tap21_admin;
SELECT throws_ok($$DELETE FROM mixdnn.gpu_nodes WHERE node = 'n1'$$, '55006', NULL,
	'deleting a node whose GPUs are held');
SELECT throws_like($$DELETE FROM mixdnn.gpu_nodes WHERE node = 'n1'$$,
	'node n1 cannot be deleted: GPU _ is held by job %', '... says which node, GPU and job');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.gpus WHERE node = 'n1'), 4::bigint, '... and changes nothing');

-- Deleting a type that a node has, or that a job names (foreign keys).
SET LOCAL ROLE tap21_admin;
SELECT throws_ok($$DELETE FROM mixdnn.gpu_types WHERE gpu_type = (SELECT gpu_type FROM mixdnn.gpu_nodes WHERE node = 'n1')$$,
	'23503', NULL, 'deleting a type a node has');
SELECT throws_like($$DELETE FROM mixdnn.gpu_types WHERE gpu_type = (SELECT gpu_type FROM mixdnn.gpu_nodes WHERE node = 'n1')$$,
	'gpu type % cannot be deleted: node n1 has that type', '... says which node');
RESET ROLE;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('tap21_lone', 1.0);
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('lone', 'tap21_lone', 1, '1h');
SET LOCAL ROLE tap21_admin;
SELECT throws_like($$DELETE FROM mixdnn.gpu_types WHERE gpu_type = 'tap21_lone'$$,
	'gpu type tap21_lone cannot be deleted: job % names it as its gpu_type', 'deleting a type a job names says which job');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
