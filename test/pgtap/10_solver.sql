-- 10_solver.sql — the round records its solver; a GLPK time-out or a
-- failing round never aborts the user's statement: the round falls back to
-- the heuristic (and says so in rounds.solver) or, if the round itself
-- fails, the statement still succeeds with a WARNING and the jobs wait for
-- the next round.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(22);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.5), ('v100', 1.0), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
SELECT t || '-' || i, t, 4 FROM unnest(ARRAY['k80', 'v100', 'a100']) t, generate_series(1, 2) i;
:commit
CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;

-- Heuristic only.
SET LOCAL mixdnn.use_milp = off;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('h-1', 'v100', 2, '1h'), ('h-2', 'a100', 4, '2h');
:commit
SELECT results_eq($$SELECT solver, milp_jobs FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)$$,
	$$VALUES ('heuristic', 0)$$, 'use_milp = off: the round records solver heuristic and no MILP jobs');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned'), 2::bigint, '... and plans the jobs');
RESET mixdnn.use_milp;

-- The configuration LP (the default) chooses a soft job's configuration.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('lp-1', 'soft', 'v100', 2, 1, 4, '1h');
:commit
SELECT ok((SELECT solver = 'glpk (lp configurations)' AND milp_jobs > 0 AND milp_vars > 0
		   FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'lp_configs = on: the round records solver glpk (lp configurations) with its LP size');
SET LOCAL mixdnn.lp_configs = off;
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('lp-2', 'soft', 'v100', 2, 1, 4, '1h');
:commit
SELECT ok((SELECT solver <> 'glpk (lp configurations)' FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'lp_configs = off: the start-now MILP instead');

-- GLPK on, the start-now MILP: a small round is solved (or proven optimal) by glpk.
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('g-1', 'v100', 2, '1h');
:commit
SELECT ok((SELECT solver LIKE 'glpk%' AND milp_jobs > 0 AND milp_vars > 0 FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'use_milp = on: a small round records solver glpk... with its MILP size');
SELECT ok((SELECT bound IS NOT NULL AND bound >= objective - 1e-6 FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'a solved round records an LP bound no smaller than its objective');
SELECT ok((SELECT objective >= heuristic_objective - 1e-9 FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'the kept plan is no worse than the heuristic''s');

-- Planning window 0: GLPK is not used.
SET LOCAL mixdnn.planning_window = 0;
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('w-1', 'k80', 2, '1h');
:commit
SELECT is((SELECT solver FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 'heuristic',
	'planning_window = 0: heuristic');
RESET mixdnn.planning_window;
RESET mixdnn.lp_configs;

-- A 1 ms solver budget with many jobs: the INSERT succeeds, every job is
-- planned, and the round says the heuristic (or GLPK's best so far) was used
-- because of the time limit.
SET LOCAL mixdnn.solver_time_limit = 1;
SET LOCAL mixdnn.planning_window = 200;
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT lives_ok($$
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration, priority)
	SELECT 'tl-' || i, CASE WHEN i % 4 = 0 THEN 'hard' ELSE 'soft' END,
		   (ARRAY['k80', 'v100', 'a100'])[1 + i % 3], 1 + i % 8,
		   CASE WHEN i % 4 <> 0 THEN 1 END, CASE WHEN i % 4 <> 0 THEN 8 END,
		   make_interval(mins => 5 + (i * 37) % 300), i % 11 - 5
	FROM generate_series(1, 150) i$$,
	'with solver_time_limit = 1 ms, an INSERT of 150 jobs succeeds');
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'tl-%' AND status = 'planned'), 150::bigint,
	'... and all 150 jobs are planned');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint, '... by one round');
SELECT matches((SELECT solver FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'^heuristic|time limit', 'rounds.solver says heuristic / time limit');
SELECT ok((SELECT solve_ms < 10000 FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'the round did not run away (solve_ms < 10 s)');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'the fallback plan respects capacity');
-- The heuristic's plan is kept, or GLPK's best-so-far when it is no worse.
SELECT ok((SELECT CASE WHEN solver LIKE 'heuristic%' THEN objective = heuristic_objective
					   ELSE objective >= heuristic_objective - 1e-9 * greatest(1, abs(heuristic_objective)) END
		   FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)),
	'a heuristic fallback records the heuristic''s objective; a GLPK plan kept is no worse than it');
RESET mixdnn.solver_time_limit;
RESET mixdnn.planning_window;

-- A job whose plan cannot be represented (here: the clock is past the last
-- time the scheduler plans) stays pending with a reason; the round itself
-- succeeds.
DELETE FROM mixdnn.jobs;
:commit
SELECT pg_temp.set_now('294276-12-01 00:00+00');
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('far', 'v100', 1, '300 days')$$,
	'a job whose plan cannot be represented is still accepted');
:commit
SELECT is((SELECT status || ': ' || reason FROM mixdnn.jobs WHERE name = 'far'),
	'pending: its plan would end after 9999-12-31, the last time the scheduler plans',
	'the job stays pending, not lost, and says why');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint,
	'the round succeeded and is recorded');

-- A round that fails outright (here: writing its record fails) does not
-- abort the statement; the jobs keep waiting, nothing is lost.
SELECT pg_temp.set_now(pg_temp.t0());
UPDATE r0 SET last = (SELECT max(round_id) FROM mixdnn.rounds);
CREATE FUNCTION pg_temp.fail_round() RETURNS trigger LANGUAGE plpgsql AS
	$$BEGIN RAISE EXCEPTION 'round record refused by the test'; END$$;
CREATE TRIGGER tap10_fail BEFORE INSERT ON mixdnn.rounds FOR EACH ROW EXECUTE FUNCTION pg_temp.fail_round();
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('near', 'v100', 1, '1h');
SET LOCAL client_min_messages = error;  -- the failed round's WARNING is expected
SELECT lives_ok('SET CONSTRAINTS ALL IMMEDIATE', 'the failing round does not abort the commit');
SET CONSTRAINTS ALL DEFERRED;
SET LOCAL client_min_messages = warning;
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'near'), 'pending', 'the new job stays pending, not lost');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 0::bigint,
	'the failed round left no half-written round row');
DROP TRIGGER tap10_fail ON mixdnn.rounds;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('next', 'v100', 1, '1h');
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned'), 3::bigint,
	'the next round (clock back to normal) plans every job');

SELECT * FROM finish();
ROLLBACK;
