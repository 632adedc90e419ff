-- 113_quota_borrow_limit.sql — a role bound by a quota row that lends and
-- by a larger one that does not (a member's own row and its group's, or
-- the other way round) borrows only up to the row that does not lend.
-- Before, the strictest row alone decided: a member whose own row of 2
-- GPUs lent took all 8 GPUs of the cluster beside its group's row of 4
-- that lends nothing, and raising the group's row from 2 to 3 raised the
-- member's ceiling from 2 GPUs to the whole cluster.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. launch_due() by hand.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(13);
DELETE FROM mixdnn.quotas;
DELETE FROM mixdnn.shares;

CREATE ROLE tap113_team NOLOGIN;
CREATE ROLE tap113_alice NOLOGIN IN ROLE mixdnn_user, tap113_team;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 8), ('k1', 'k80', 4);
:commit

CREATE FUNCTION pg_temp.said(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(reason, '') FROM mixdnn.jobs WHERE name = n $$;
CREATE FUNCTION pg_temp.starting(who text) RETURNS bigint LANGUAGE sql AS
	$$ SELECT coalesce(sum(planned_gpus), 0)::bigint FROM mixdnn.jobs
	   WHERE owner::text = who AND status = 'planned' AND planned_start = mixdnn.now() $$;
CREATE FUNCTION pg_temp.clear() RETURNS void LANGUAGE sql AS $$
	UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status NOT IN ('completed', 'failed', 'cancelled');
	DELETE FROM mixdnn.quotas $$;

-- Of all types: alice's own row of 2 lends, her team's row of 4 does not.
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow)
VALUES ('tap113_team', NULL, 4, false), ('tap113_alice', NULL, 2, true);
SELECT pg_temp.submit('tap113_alice', 'a' || i, 'v100', 2, '1h') FROM generate_series(1, 4) i;
:commit
SELECT is(pg_temp.starting('tap113_alice'), 4::bigint,
	'alice''s jobs start on 4 GPUs: 2 within her own row, 2 borrowed up to her team''s row, which lends nothing');
SELECT is(pg_temp.said('a4'),
	'pending: over quota: role tap113_alice holds 4 of the 4 GPUs (all types) its quota allows and needs 2',
	'the rest wait, with the row that stops them, though 4 v100s are idle (they took all 8)');
SELECT is(mixdnn.launch_due(), 2, 'launch_due starts the two');
SELECT is(pg_temp.held('tap113_alice', NULL), 4::bigint, 'alice holds 4 GPUs, her team''s row');
SELECT pg_temp.clear();
:commit

-- The other way round: her own row of 4 does not lend, the team's of 2 does.
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow)
VALUES ('tap113_team', NULL, 2, true), ('tap113_alice', NULL, 4, false);
SELECT pg_temp.submit('tap113_alice', 'b' || i, 'v100', 2, '1h') FROM generate_series(1, 4) i;
:commit
SELECT is(pg_temp.starting('tap113_alice'), 4::bigint,
	'her own row that lends nothing stops the borrowing her team''s row allows');
SELECT pg_temp.clear();
:commit

-- Per type: the team's row of 4 v100s does not lend, hers of 2 does. A
-- soft job asking for 8 is capped to the 4 its owner may ever hold on a
-- v100; k80s (no row) stay open to her.
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow)
VALUES ('tap113_team', 'v100', 4, false), ('tap113_alice', 'v100', 2, true);
SELECT pg_temp.submit('tap113_alice', 'c' || i, 'v100', 2, '1h') FROM generate_series(1, 4) i;
:commit
SELECT is(pg_temp.starting('tap113_alice'), 4::bigint, 'per type too: 4 v100s');
SELECT is(pg_temp.said('c4'),
	'pending: over quota: role tap113_alice holds 4 of the 4 v100 GPUs its quota allows and needs 2',
	'... the rest wait for the team''s row');
SELECT pg_temp.clear();
:commit
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow)
VALUES ('tap113_team', 'v100', 4, false), ('tap113_alice', 'v100', 2, true);
SET LOCAL ROLE tap113_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration)
VALUES ('s1', 'soft', 'v100', 8, 2, 8, '{v100}', '1h');
RESET ROLE;
:commit
SELECT is((SELECT format('%s %s %s', status, planned_gpu_type, planned_gpus) FROM mixdnn.jobs WHERE name = 's1'),
	'planned v100 4', 'a soft job of 8 v100s is planned on the 4 she may ever hold');
SELECT pg_temp.clear();
:commit

-- Equal rows: borrowing only if every row of that size lends (as before).
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow)
VALUES ('tap113_team', NULL, 2, false), ('tap113_alice', NULL, 2, true);
SELECT pg_temp.submit('tap113_alice', 'd' || i, 'v100', 2, '1h') FROM generate_series(1, 2) i;
:commit
SELECT is(pg_temp.starting('tap113_alice'), 2::bigint, 'two rows of 2, one lending: 2 GPUs');
SELECT pg_temp.clear();
:commit

-- Both rows lend: borrowing up to idle GPUs (as before).
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow)
VALUES ('tap113_team', NULL, 4, true), ('tap113_alice', NULL, 2, true);
SELECT pg_temp.submit('tap113_alice', 'e' || i, 'v100', 2, '1h') FROM generate_series(1, 4) i;
:commit
SELECT is(pg_temp.starting('tap113_alice'), 8::bigint, 'both rows lend: she borrows every idle v100');
SELECT pg_temp.clear();
:commit

-- At launch: a plan made while only her lending row existed (8 GPUs)
-- meets the team's row of 4 added since, before the round its change runs.
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow) VALUES ('tap113_alice', NULL, 2, true);
SELECT pg_temp.submit('tap113_alice', 'f' || i, 'v100', 2, '1h') FROM generate_series(1, 4) i;
:commit
SELECT is(pg_temp.starting('tap113_alice'), 8::bigint, 'with her lending row alone, 8 GPUs are planned');
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus, borrow) VALUES ('tap113_team', NULL, 4, false);
SELECT is(mixdnn.launch_due(), 2, 'launch_due starts two of them, not the two beyond the team''s row');
SELECT is(pg_temp.held('tap113_alice', NULL), 4::bigint, '... so she holds 4 GPUs');

SELECT * FROM finish();
ROLLBACK;
