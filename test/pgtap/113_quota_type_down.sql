-- 113_quota_type_down.sql — a soft job that may run on a type its owner's
-- quota caps (2 v100s) and on one without a quota (k80s) is capped to the
-- quota while every k80 node is down, and starts on idle v100s. Before,
-- the k80s kept its count at 4, which the v100 quota refused at every
-- round: it waited ("holds 0 of the 2 v100 GPUs ... needs 4") beside 8
-- idle v100s for as long as the k80s stayed down.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(4);
DELETE FROM mixdnn.quotas;

CREATE ROLE tap113t_alice NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus, status) VALUES ('v1', 'v100', 8, 'up'), ('k1', 'k80', 8, 'down');
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('tap113t_alice', 'v100', 2);
:commit

CREATE FUNCTION pg_temp.plan_of(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT format('%s %s %s %s', status, planned_gpu_type, planned_gpus, planned_start = mixdnn.now())
	   FROM mixdnn.jobs WHERE name = n $$;

SET LOCAL ROLE tap113t_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration)
VALUES ('s1', 'soft', 'v100', 4, 1, 4, '{v100,k80}', '1h');
RESET ROLE;
:commit
SELECT is(pg_temp.plan_of('s1'), 'planned v100 2 t',
	'k80s down: her soft job starts now on the 2 v100s her quota allows');
SELECT is(mixdnn.launch_due(), 1, '... and is launched');

-- With the k80s up, a second such job runs on 4 k80s (narrowed, as before).
UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = 'k1';
:commit
SET LOCAL ROLE tap113t_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration)
VALUES ('s2', 'soft', 'v100', 4, 1, 4, '{v100,k80}', '1h');
RESET ROLE;
:commit
SELECT is(pg_temp.plan_of('s2'), 'planned k80 4 t', 'k80s up: the next one starts on 4 k80s');
SELECT is(pg_temp.held('tap113t_alice', 'v100'), 2::bigint, 'she holds 2 v100s, her quota');

SELECT * FROM finish();
ROLLBACK;
