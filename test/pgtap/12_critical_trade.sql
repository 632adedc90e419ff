-- 12_critical_trade.sql — the critical guard's trade (docs/model.md, "The
-- critical guard's trade λ") reaches the rounds through
-- mixdnn.critical_trade.
--
-- Scenario (the unit test test_guard_critical_trade in SQL): 8 v100 GPUs,
-- all free; wide (8 GPUs, 1000 s, submitted 100 s ago) sets the makespan
-- bound alone and is critical; ten tiny jobs (1 GPU, 10 s) want the same
-- GPUs. Served first, wide holds all ten back for 1000 s and the last job
-- ends at +1020 s either way: not worth it at the default λ = 3.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(8);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 8);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, submitted_at)
VALUES ('wide', 'hard', 'v100', 8, '1000 s', pg_temp.t0() - interval '100 s');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
SELECT 'tiny-' || i, 'hard', 'v100', 1, '10 s' FROM generate_series(1, 10) i;
:commit

SELECT is(current_setting('mixdnn.critical_trade'), '3', 'critical_trade defaults to 3');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'wide'), pg_temp.t0() + interval '20 s',
	'default: wide yields to the tiny jobs and is planned after them');
SELECT is((SELECT count(*)::int FROM mixdnn.jobs WHERE name LIKE 'tiny-%' AND planned_start = pg_temp.t0()), 8,
	'default: eight tiny jobs start now');
SELECT is((SELECT detail FROM mixdnn.explain(pg_temp.jid('wide')) WHERE chosen),
	'chosen: the job is makespan-critical but does not start now: its GPUs are not all free, '
	'or serving it first would cost the other jobs more than it gains (mixdnn.critical_trade)',
	'explain says why wide, critical, is not served first');

-- λ = 0: the guard as before, wide first and the tiny jobs after it.
SET LOCAL mixdnn.critical_trade = 0;
SELECT mixdnn.run_round('test');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'wide'), pg_temp.t0(),
	'critical_trade 0: wide starts now');
SELECT is((SELECT min(planned_start) FROM mixdnn.jobs WHERE name LIKE 'tiny-%'), pg_temp.t0() + interval '1000 s',
	'critical_trade 0: the tiny jobs wait for wide');
SELECT is((SELECT detail FROM mixdnn.explain(pg_temp.jid('wide')) WHERE chosen),
	'chosen: the job is makespan-critical and starts now',
	'explain: wide starts now');

SELECT throws_ok($$SET mixdnn.critical_trade = -0.1$$, '22023', NULL, 'a negative critical_trade is refused');

SELECT * FROM finish();
ROLLBACK;
