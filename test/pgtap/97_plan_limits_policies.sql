-- 97_plan_limits_policies.sql — SPEC §7 and docs/reference.md ("Absurd jobs
-- and deleted types: accepted, not planned") hold whatever mixdnn.policy
-- says: the comparators (sjf, hgreedy, hsjf, k8s-any) and the baselines
-- (k8s, static, backfill) leave a job whose every configuration would run
-- longer than 3650 days, or whose every allowed type was deleted, pending
-- with the reason the mixdnn policy gives, and plan the other jobs. Before,
-- sjf and k8s-any planned the first for 2738 years, the baselines did too,
-- and sjf and k8s-any ran the second on any type.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(26);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('slow', 1e-6), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 4), ('s1', 'slow', 4), ('a1', 'a100', 4);
:commit

CREATE FUNCTION pg_temp.said(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(reason, '') FROM mixdnn.jobs WHERE name = n $$;

-- a100 is planned busy for a day, so a job allowed only a100 waits planned
-- (no launch: a node whose GPUs are held cannot be deleted).
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('a100-busy', 4, '{a100}', '1 day');
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('a100-only', 1, '{a100}', '1h');
:commit
DELETE FROM mixdnn.jobs WHERE name = 'a100-busy';
DELETE FROM mixdnn.gpu_nodes WHERE node = 'a1';
DELETE FROM mixdnn.gpu_types WHERE gpu_type = 'a100';
:commit
SELECT is(pg_temp.said('a100-only'), 'pending: none of its allowed GPU types exists any more (a100)',
	'(setup) policy mixdnn: a job whose every allowed type was deleted waits');

-- 300 days stated for speed 1.0, allowed only on speed 1e-6: 8e8 years.
INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('absurd', 1, '{slow}', '300 days');
:commit
SELECT is(pg_temp.said('absurd'),
	'pending: its shortest run time (3e+08 days on 1 slow GPU) exceeds the limit of 3650 days',
	'(setup) policy mixdnn: an absurd run time waits');

CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;
CREATE TEMP TABLE policies (p text);
INSERT INTO policies VALUES ('sjf'), ('hgreedy'), ('hsjf'), ('k8s-any'), ('k8s'), ('static'), ('backfill');
CREATE TEMP TABLE seen (p text, absurd text, gone text, other text);
DO $$
DECLARE p text;
BEGIN
	FOR p IN SELECT * FROM policies LOOP
		PERFORM set_config('mixdnn.policy', p, true);
		INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('ok-' || p, 'hard', 'v100', 1, '1h');
		PERFORM mixdnn.run_round('test');
		INSERT INTO seen SELECT p, pg_temp.said('absurd'), pg_temp.said('a100-only'),
			(SELECT status FROM mixdnn.jobs WHERE name = 'ok-' || p);
		DELETE FROM mixdnn.jobs WHERE name = 'ok-' || p;
	END LOOP;
END $$;
SELECT is(absurd, 'pending: ' || CASE WHEN p IN ('hgreedy', 'hsjf')
		THEN 'its shortest run time (3e+08 days on 1 slow GPU) exceeds the limit of 3650 days'
		ELSE 'its run time (3e+08 days on 1 slow GPU) exceeds the limit of 3650 days' END,
	'policy ' || p || ': a job whose every configuration runs beyond 3650 days waits and says why')
FROM seen ORDER BY p;
SELECT is(gone, 'pending: none of its allowed GPU types exists any more (a100)',
	'policy ' || p || ': a job whose every allowed type was deleted waits, naming the type')
FROM seen ORDER BY p;
SELECT is(other, 'planned', 'policy ' || p || ': the other job of the round is planned')
FROM seen ORDER BY p;
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name IN ('absurd', 'a100-only') AND planned_gpu_type IS NOT NULL),
	0::bigint, 'neither job was ever given a configuration');
SELECT is((SELECT count(*) FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id)
		   WHERE j.name IN ('absurd', 'a100-only') AND h.planned_gpu_type IS NOT NULL
		   AND h.round_id > (SELECT last FROM r0)), 0::bigint,
	'... in any round of the other policies');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds h JOIN mixdnn.jobs j USING (job_id)
		   WHERE j.name IN ('absurd', 'a100-only')), 0::bigint, 'and neither holds a GPU');

SELECT * FROM finish();
ROLLBACK;
