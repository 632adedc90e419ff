-- 93_quota_later.sql — a quota that refuses a job at a start later than
-- now (its owner's own job is planned to start before it and would still
-- run): the reason says what the owner would hold then, and when, not
-- what it holds now ("holds 4" while it held none), and mixdnn.what_if
-- says the quota blocks it (blocked_by 'quota'), not the cluster (it said
-- 'cluster', though the up nodes could hold the job).
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(5);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap93_carol NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap93_dave NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 4), ('k1', 'k80', 4);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap93_carol', NULL, 4);
:commit

-- dave holds every GPU for an hour; carol's first job (4 v100s) is planned
-- at +1 h, when they are free; she holds none now.
SELECT pg_temp.submit('tap93_dave', 'd1', 'v100', 4, '1h');
SELECT pg_temp.submit('tap93_dave', 'd2', 'k80', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 2, 'dave''s two jobs launch');
SELECT pg_temp.submit('tap93_carol', 'c1', 'v100', 4, '1h');
:commit
SELECT is((SELECT status || ' ' || planned_start FROM mixdnn.jobs WHERE name = 'c1'),
	'planned ' || (pg_temp.t0() + interval '1 hour'), 'carol''s first job is planned at +1 h');

-- Her second, 4 k80s, would start at +1 h too: beside the first, 8 GPUs of her 4.
SET LOCAL ROLE tap93_carol;
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'k80', gpus => 4, duration => '1h')),
	('over quota: role tap93_carol would hold 4 of the 4 GPUs (all types) its quota allows at 2026-01-01 01:00:00 UTC and needs 4'::text,
	 'quota'::text),
	'what_if: what she would hold at the start it found, and when; blocked by the quota, not the cluster');
RESET ROLE;
SELECT pg_temp.submit('tap93_carol', 'c2', 'k80', 4, '1h');
:commit
SELECT is((SELECT status || ': ' || reason FROM mixdnn.jobs WHERE name = 'c2'),
	'pending: over quota: role tap93_carol would hold 4 of the 4 GPUs (all types) its quota allows at 2026-01-01 01:00:00 UTC and needs 4',
	'the submitted job waits with the same reason');
SELECT is(pg_temp.held('tap93_carol', NULL), 0::bigint, 'carol holds no GPU now');

SELECT * FROM finish();
ROLLBACK;
