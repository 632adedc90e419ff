-- 105_surface_users.sql — what a user is told, checked against what is
-- so (an independent review of the surface, as daily users would use it).
--
-- * mixdnn.what_if's "limit" answer counted the caller's waiting jobs up
--   to the limit only, so a role above its limit (the limit lowered after
--   its jobs were submitted) was told it "has 1 waiting jobs" while it had
--   3; now: "has more than the 1 waiting jobs its mixdnn.quotas row
--   allows".
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(3);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap105_alice NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2);
:commit

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

SELECT * FROM finish();
ROLLBACK;
