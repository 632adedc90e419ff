-- 09_capacity.sql — capacity invariant of the plans: on a three-type
-- cluster with running jobs and 20 mixed hard/soft jobs, the planned GPU use
-- of each type, plus the GPUs still held by running jobs, never exceeds the
-- type's GPUs on up nodes at any instant (checked at every planned start,
-- see pg_temp.plan_overbooking() in lib/fixture.sql). Checked after the
-- arrival, after time moves and jobs launch and finish, after a node goes
-- down, and for every policy.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. mixdnn.launch_due() by hand.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(26);
-- Every revised start is written, so the stored plans are the round's
-- exact plans (with the default tolerance a distant start pushed back a
-- little keeps its earlier forecast; 21_horizon.sql tests that).
SET LOCAL mixdnn.replan_tolerance = 0;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.5), ('v100', 1.0), ('a100', 2.2);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES
	('k80-1', 'k80', 4), ('k80-2', 'k80', 4), ('v100-1', 'v100', 4), ('v100-2', 'v100', 4), ('a100-1', 'a100', 8);
:commit

-- Three jobs run already.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('run-k', 'hard', 'k80', 3, '50 min'), ('run-v', 'hard', 'v100', 4, '2h'), ('run-a', 'hard', 'a100', 5, '30 min');
:commit
SELECT is(mixdnn.launch_due(), 3, '(setup) three jobs run');

-- 20 mixed jobs arrive at +5 min in one statement.
SELECT pg_temp.set_now(pg_temp.t0() + interval '5 minutes');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration, priority)
SELECT 'mix-' || i,
	   CASE WHEN i % 3 = 0 THEN 'hard' ELSE 'soft' END,
	   (ARRAY['k80', 'v100', 'a100'])[1 + (i * 7) % 3],
	   1 + (i * 5) % 4 + CASE WHEN i % 5 = 0 THEN 3 ELSE 0 END,
	   CASE WHEN i % 3 <> 0 AND i % 4 = 1 THEN 1 END,
	   CASE WHEN i % 3 <> 0 AND i % 4 = 1 THEN 8 END,
	   CASE WHEN i % 3 <> 0 AND i % 7 = 2 THEN ARRAY['v100', 'a100'] END,
	   make_interval(mins => 10 + (i * 37) % 170),
	   (i * 11) % 7 - 3
FROM generate_series(1, 20) i;
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'mix-%' AND status = 'planned'), 20::bigint,
	'all 20 jobs are planned');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$,
	'arrival: no type is over capacity at any planned start');
SELECT ok(pg_temp.plan_peak('k80') + pg_temp.plan_peak('v100') + pg_temp.plan_peak('a100') >= 16,
	'the plan is tight: the types run at or near capacity (the check is not vacuous)');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND planned_start < mixdnn.now()), 0::bigint,
	'no job is planned in the past');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND model_class = 'soft'
		   AND (planned_gpus < min_gpus OR planned_gpus > max_gpus
				OR (allowed_types IS NOT NULL AND NOT planned_gpu_type = ANY (allowed_types)))), 0::bigint,
	'every soft job is planned within its min_gpus..max_gpus and allowed_types');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND model_class = 'hard'
		   AND (planned_gpu_type <> gpu_type OR planned_gpus <> gpus)), 0::bigint,
	'every hard job is planned on its configuration');
SELECT is((SELECT count(*) FROM mixdnn.jobs j WHERE status = 'planned'
		   AND planned_start > mixdnn.now()
		   AND NOT EXISTS (SELECT FROM mixdnn.jobs o
						   WHERE o.planned_gpu_type = j.planned_gpu_type
							 AND o.job_id <> j.job_id
							 AND ((o.status = 'planned' AND o.planned_end = j.planned_start)
								  OR (o.status IN ('launching', 'running') AND o.planned_end = j.planned_start)))),
	0::bigint,
	'every job planned for later starts exactly when another job of its type is expected to end');

-- Move time in steps: finish what is due to end, launch what is due.
SELECT pg_temp.set_now(pg_temp.t0() + interval '5 minutes');
SELECT is(mixdnn.launch_due(), (SELECT count(*)::int FROM mixdnn.jobs WHERE status = 'planned' AND planned_start <= mixdnn.now()),
	'launch_due starts every job planned for now');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, '+5 min after launches: plans within capacity');

-- Every job runs exactly as long as planned, so no GPU is held past its
-- plan and every due job must start: returns 'launched of due'.
CREATE FUNCTION pg_temp.step(t timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	due int;
BEGIN
	PERFORM pg_temp.set_now(t);
	UPDATE mixdnn.jobs SET status = 'completed' WHERE status IN ('launching', 'running') AND planned_end <= t;
	SET CONSTRAINTS ALL IMMEDIATE;
	SET CONSTRAINTS ALL DEFERRED;
	SELECT count(*) INTO due FROM mixdnn.jobs WHERE status = 'planned' AND planned_start <= t;
	RETURN format('%s of %s', mixdnn.launch_due(), due);
END $$;

SELECT matches(pg_temp.step(pg_temp.t0() + interval '35 minutes'), '^([0-9]+) of \1$', 'step to +35 min: launch_due starts every due job');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, '+35 min: plans within capacity');
SELECT matches(pg_temp.step(pg_temp.t0() + interval '60 minutes'), '^([0-9]+) of \1$', 'step to +60 min: launch_due starts every due job');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, '+60 min: plans within capacity');

-- A node goes down: its jobs are re-queued and the plans fit what is left.
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = 'v100-1';
:commit
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'v100-1 down: plans within the remaining capacity');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE node = 'v100-1'), 0::bigint, 'the down node holds nothing');
SELECT matches(pg_temp.step(pg_temp.t0() + interval '2 hours'), '^([0-9]+) of \1$', 'step to +2 h: launch_due starts every due job');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, '+2 h: plans within capacity');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE node = 'v100-1'), 0::bigint, 'nothing was launched on the down node');

-- Held GPUs never exceed a node's GPUs and each job holds what it planned.
SELECT is_empty($$SELECT h.node FROM mixdnn.gpu_holds h JOIN mixdnn.gpu_nodes n USING (node)
				  GROUP BY h.node, n.gpus HAVING count(*) > n.gpus$$, 'no node holds more GPUs than it has');
SELECT is_empty($$SELECT j.job_id FROM mixdnn.jobs j LEFT JOIN mixdnn.gpu_holds h USING (job_id)
				  WHERE j.status IN ('launching', 'running')
				  GROUP BY j.job_id, j.planned_gpus HAVING count(h.node) <> j.planned_gpus$$,
	'every active job holds exactly its planned_gpus');

-- The baseline policies keep the invariant too.
SET LOCAL mixdnn.policy = 'k8s';
SELECT mixdnn.run_round('test');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'policy k8s: plans within capacity');
SET LOCAL mixdnn.policy = 'static';
SELECT mixdnn.run_round('test');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'policy static: plans within capacity');
SET LOCAL mixdnn.policy = 'backfill';
SELECT mixdnn.run_round('test');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'policy backfill: plans within capacity');
SELECT is((SELECT policy FROM mixdnn.rounds ORDER BY round_id DESC LIMIT 1), 'backfill', 'rounds.policy records the policy');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND (planned_gpu_type <> gpu_type OR planned_gpus <> gpus)),
	0::bigint, 'the baselines plan every job on its requested configuration');

SELECT * FROM finish();
ROLLBACK;
