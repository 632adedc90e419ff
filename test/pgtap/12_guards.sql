-- 12_guards.sql — the planner's guards (docs/model.md, "Who holds GPUs")
-- reach the rounds through their settings: mixdnn.drain_margin and
-- mixdnn.critical_margin change which waiting job holds GPUs, and
-- mixdnn.critical_wait when a job that has just arrived may hold them.
--
-- Scenario (the unit test test_guard_drain in SQL): 4 v100 GPUs, 2 held by
-- a running job until +1000 s; long (4 GPUs, 20000 s) and short (2 GPUs,
-- 1500 s) wait. The known-makespan bound leaves long 1250 s of slack.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(12);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('run', 'hard', 'v100', 2, '1000 s');
:commit
SELECT is(mixdnn.launch_due(), 1, 'run launches on 2 of the 4 GPUs');
SET LOCAL mixdnn.critical_margin = 0.1;
SET LOCAL mixdnn.critical_wait = 0;	-- long is guarded on arrival (the wait: below)
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('long', 'hard', 'v100', 4, '20000 s'),
	('short', 'hard', 'v100', 2, '1500 s');
:commit

-- Default: long is critical but cannot start now, so it holds nothing.
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'short'), pg_temp.t0(),
	'drain off: short starts now beside run');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'long'), pg_temp.t0() + interval '1500 s',
	'drain off: long is planned when short ends');

-- drain_margin 0.1: long's slack (1250 s) is below 0.1 x 20000 s: it is reserved.
SET LOCAL mixdnn.drain_margin = 0.1;
SELECT mixdnn.run_round('test');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'long'), pg_temp.t0() + interval '1000 s',
	'drain 0.1: long is reserved for when run ends');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'short'), pg_temp.t0() + interval '21000 s',
	'drain 0.1: short, which would overlap the reservation, waits for long');
SELECT is(mixdnn.launch_due(), 0, 'drain 0.1: nothing starts now, the 2 free GPUs are drained for long');

-- critical_wait 0.05 (the default): long has waited 0 of the 1000 s it
-- needs before it can be critical or draining, so nothing is drained yet.
SET LOCAL mixdnn.critical_wait = 0.05;
SELECT mixdnn.run_round('test');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'short'), pg_temp.t0(),
	'critical_wait 0.05: long, just arrived, is not drained for yet; short starts now');
SELECT is((SELECT detail FROM mixdnn.explain(pg_temp.jid('long')) WHERE chosen),
	'chosen: the round''s plan; the job becomes makespan-critical at 2026-01-01 00:16:40 UTC, '
	'once it has waited mixdnn.critical_wait times its run time',
	'explain says when long''s wait ends (0.05 x 20000 s after its submission)');
-- ... and once it has waited them (submitted 1000 s earlier), it is.
UPDATE mixdnn.jobs SET submitted_at = submitted_at - interval '1000 s' WHERE name = 'long';
SELECT mixdnn.run_round('test');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'long'), pg_temp.t0() + interval '1000 s',
	'critical_wait 0.05: long, waiting for 1000 s, is reserved again');
SET LOCAL mixdnn.critical_wait = 0;

-- drain_margin 0: 1250 s of slack is more than none: long is only critical.
SET LOCAL mixdnn.drain_margin = 0;
SELECT mixdnn.run_round('test');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'short'), pg_temp.t0(),
	'drain 0: short starts now again');

-- Out-of-range values are refused and change nothing.
SELECT throws_ok($$SET mixdnn.drain_margin = -2$$, '22023', NULL, 'drain_margin below -1 is refused');
SELECT throws_ok($$SET mixdnn.critical_wait = -0.1$$, '22023', NULL, 'a negative critical_wait is refused');

SELECT * FROM finish();
ROLLBACK;
