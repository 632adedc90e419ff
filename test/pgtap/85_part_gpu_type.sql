-- 85_part_gpu_type.sql — a job's part keeps the GPU type its node had at
-- the launch (job_parts.gpu_type): mixdnn.utilization() and fair-share
-- usage count it there after its node is deleted, and after a node of that
-- name is registered again with another type.
--
-- Scenario: alice's A runs on n1 (2 v100, speed 1) and bob's B on k1 (2 k80,
-- speed 0.5), both claimed at t0 and finished at +1 h: A's usage is twice
-- B's, so alice's usage share is 2 / 3. Then n1 is deleted (no v100 left),
-- then registered again as a k80 node.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(11);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap85_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap85_bob NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2), ('k1', 'k80', 2);
:commit
SELECT pg_temp.submit('tap85_alice', 'A', 'v100', 2, '1 h');
SELECT pg_temp.submit('tap85_bob', 'B', 'k80', 2, '1 h');
:commit
SELECT is(mixdnn.launch_due(), 2, '(setup) A and B launch at t0');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')) + (SELECT count(*) FROM mixdnn.claim('k1')), 2::bigint,
	'(setup) their launchers claim them');
SELECT results_eq($$SELECT node, gpu_type FROM mixdnn.job_parts ORDER BY node$$,
	$$VALUES ('k1', 'k80'), ('n1', 'v100')$$, 'each part records its node''s type at the launch');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour') AS t \gset
SELECT ok(mixdnn.finish(pg_temp.jid('A'), 0) AND mixdnn.finish(pg_temp.jid('B'), 0), '(setup) both finish at +1 h');
:commit
-- Waiting jobs, so that fair_share_usage() lists both roles.
SELECT pg_temp.submit('tap85_alice', 'A2', 'k80', 2, '1 h');
SELECT pg_temp.submit('tap85_bob', 'B2', 'k80', 2, '1 h');
:commit

CREATE FUNCTION pg_temp.busy() RETURNS TABLE (gpu_type text, gpus bigint, busy_gpus float8, utilization float8)
	LANGUAGE sql AS $$
	SELECT u.gpu_type, u.gpus, u.busy_gpus, u.utilization
	FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '1 hour', '1 hour') u ORDER BY u.gpu_type $$;
CREATE FUNCTION pg_temp.alice_share() RETURNS numeric
	LANGUAGE sql AS $$
	SELECT round(u.usage_share::numeric, 6) FROM mixdnn.fair_share_usage() u WHERE u.role = 'tap85_alice' $$;

SELECT results_eq($$SELECT * FROM pg_temp.busy()$$,
	$$VALUES ('k80', 2::bigint, 2::float8, 1::float8), ('v100', 2::bigint, 2::float8, 1::float8)$$,
	'with both nodes registered: every GPU busy in the first hour');
SELECT is(pg_temp.alice_share(), round(2 / 3.0, 6), 'alice''s usage share: 2 v100-hours of 2 + 2 x 0.5');

DELETE FROM mixdnn.gpu_nodes WHERE node = 'n1';
:commit
SELECT results_eq($$SELECT * FROM pg_temp.busy()$$,
	$$VALUES ('k80', 2::bigint, 2::float8, 1::float8), ('v100', 0::bigint, 2::float8, NULL::float8)$$,
	'n1 deleted: its part still counts as v100 (no v100 registered now: gpus 0, utilization NULL)');
SELECT is(pg_temp.alice_share(), round(2 / 3.0, 6), '... and in alice''s fair-share usage (it read 0)');

INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'k80', 2);
:commit
SELECT results_eq($$SELECT * FROM pg_temp.busy()$$,
	$$VALUES ('k80', 4::bigint, 2::float8, 0.5::float8), ('v100', 0::bigint, 2::float8, NULL::float8)$$,
	'n1 registered again as k80: A''s part stays v100, not k80');
SELECT is(pg_temp.alice_share(), round(2 / 3.0, 6), '... and weighs v100''s speed in her usage, not k80''s (it read 1 / 2)');
SELECT is((SELECT count(*) FROM mixdnn.job_parts WHERE gpu_type IS NULL), 0::bigint, 'no part lost its type');

SELECT * FROM finish();
ROLLBACK;
