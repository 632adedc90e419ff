-- 116_user_priority.sql — mixdnn.max_user_priority: the highest priority
-- a plain user may give a job (superuser-set; default 100, no ceiling).
-- At 0 it is Slurm's rule: users may only lower their jobs' priority, an
-- admin gives a higher one. Two reviews found that a user's own priority
-- 100 put her job ahead of everyone's whatever her fair share.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(12);

CREATE ROLE tap116_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap116_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8);
:commit

-- The default: no ceiling.
SET LOCAL ROLE tap116_alice;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('p100', 'v100', 1, '1h', 100)$$,
	'by default a user may give her job priority 100');
SELECT throws_ok($$SET mixdnn.max_user_priority = 100$$, '42501', NULL,
	'a user cannot set the ceiling');
RESET ROLE;

SET LOCAL mixdnn.max_user_priority = 0;
SET LOCAL ROLE tap116_alice;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('p10', 'v100', 1, '1h', 10)$$,
	'42501', 'priority must be at most 0, mixdnn.max_user_priority, not 10',
	'at 0, a user''s priority 10 is refused');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', priority => 10)$$,
	'42501', 'priority must be at most 0, mixdnn.max_user_priority, not 10',
	'... and what_if says so in the same words');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('p0', 'v100', 1, '1h', 0),
	('pm5', 'v100', 1, '1h', -5)$$, '... priorities 0 and -5 are hers to give');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('p101', 'v100', 1, '1h', 101)$$,
	'23514', 'priority must be between -100 and 100, not 101', 'out of range is still the range''s error');
RESET ROLE;
SET LOCAL ROLE tap116_admin;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, priority)
	VALUES ('a50', 'tap116_alice', 'v100', 1, '1h', 50)$$, 'an admin gives alice''s job priority 50');
SELECT lives_ok($$UPDATE mixdnn.jobs SET priority = 60 WHERE name = 'p0'$$, '... and raises another of hers to 60');
RESET ROLE;
:commit
SET LOCAL mixdnn.max_user_priority = 0;
SET LOCAL ROLE tap116_alice;
SELECT lives_ok($$UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name IN ('a50', 'p0')$$,
	'alice cancels the jobs an admin gave priorities above her ceiling');
RESET ROLE;
:commit
SELECT is((SELECT string_agg(name || '=' || priority || '/' || status, ' ' ORDER BY name) FROM mixdnn.jobs),
	'a50=50/cancelled p0=60/cancelled p100=100/planned pm5=-5/planned',
	'what was refused wrote nothing; the rest is as given');
SET LOCAL mixdnn.max_user_priority = -10;
SET LOCAL ROLE tap116_admin;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('own', 'v100', 1, '1h', 0)$$,
	'an admin''s own job is not bound by it');
RESET ROLE;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, priority)
	VALUES ('su', 'tap116_alice', 'v100', 1, '1h', 100)$$, 'nor a superuser''s');

SELECT * FROM finish();
ROLLBACK;
