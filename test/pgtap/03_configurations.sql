-- 03_configurations.sql — soft jobs move to a faster or free GPU type when
-- their reference type is busy and finish earlier for it; hard jobs never get
-- another configuration; unknown models use the scaling model; measured
-- profiles are used where present.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. mixdnn.launch_due() is called by
-- hand (no background worker).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(26);

-- k80 is slow, v100 is the reference, a100 is fast (scaling model: speed x n^alpha).
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.5), ('v100', 1.0), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('k80-1', 'k80', 4), ('v100-1', 'v100', 4);
:commit

-- Control: with v100 free, a soft v100 job stays on v100 (k80 would be slower).
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('control', 'soft', 'v100', 4, 4, 4, '1h');
:commit
SELECT results_eq($$SELECT status, planned_gpu_type, planned_gpus, planned_start, planned_end
					FROM mixdnn.jobs WHERE name = 'control'$$,
	$$VALUES ('planned', 'v100', 4, pg_temp.t0(), pg_temp.t0() + interval '1 hour')$$,
	'soft job, reference type free: planned on its reference configuration now, for its duration');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'control';
:commit

-- A hard job takes all v100s for 3 hours.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('blocker', 'hard', 'v100', 4, '3h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'the blocker launches');

-- The same soft job now: on v100 it could end at +4h at the earliest; on the
-- free k80s (half speed) it runs 2h from now and ends at +2h.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('soft-free', 'soft', 'v100', 4, 4, 4, '1h');
:commit
SELECT is((SELECT planned_gpu_type FROM mixdnn.jobs WHERE name = 'soft-free'), 'k80',
	'soft job, reference type busy: planned on the free k80s');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'soft-free'), pg_temp.t0(),
	'... starting now');
SELECT ok((SELECT planned_end < (SELECT planned_end FROM mixdnn.jobs WHERE name = 'blocker') + duration
		   FROM mixdnn.jobs WHERE name = 'soft-free'),
	'... and ending before it could end on its busy reference type');
SELECT ok((SELECT planned_end - planned_start > duration FROM mixdnn.jobs WHERE name = 'soft-free'),
	'... with a longer run time than on the reference type (k80 is slower)');
SELECT is(mixdnn.launch_due(), 1, 'launch_due launches it');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds h JOIN mixdnn.gpu_nodes n USING (node)
		   WHERE h.job_id = pg_temp.jid('soft-free') AND n.gpu_type = 'k80'), 4::bigint,
	'its 4 GPUs are k80s');

-- A faster type: add a100s; a soft v100 job goes to the a100s and finishes earlier than 1h.
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('a100-1', 'a100', 2);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('soft-fast', 'soft', 'v100', 2, 1, 2, '1h');
:commit
SELECT is((SELECT planned_gpu_type FROM mixdnn.jobs WHERE name = 'soft-fast'), 'a100',
	'soft job: planned on the faster a100s');
SELECT ok((SELECT planned_start = pg_temp.t0() AND planned_end < pg_temp.t0() + duration
		   FROM mixdnn.jobs WHERE name = 'soft-fast'),
	'... starting now and finishing earlier than its duration on the reference configuration');

-- allowed_types restricts a soft job.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration)
VALUES ('soft-only-v100', 'soft', 'v100', 4, 4, 4, '{v100}', '1h');
:commit
SELECT results_eq($$SELECT planned_gpu_type, planned_start FROM mixdnn.jobs WHERE name = 'soft-only-v100'$$,
	$$VALUES ('v100', pg_temp.t0() + interval '3 hours')$$,
	'a soft job limited to {v100} waits for the v100s instead of using other types');

-- Hard jobs never get another configuration: 30 hard jobs of assorted types
-- and sizes compete with 10 soft jobs for a busy cluster.
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('k80-2', 'k80', 8), ('v100-2', 'v100', 8), ('a100-2', 'a100', 4);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, priority)
SELECT 'hard-' || i, 'hard', (ARRAY['k80', 'v100', 'a100'])[1 + (i * 7) % 3],
	   1 + (i * 5) % (CASE (i * 7) % 3 WHEN 0 THEN 12 WHEN 1 THEN 12 ELSE 6 END),
	   make_interval(mins => 5 + (i * 37) % 240), (i * 13) % 21 - 10
FROM generate_series(1, 30) i;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
SELECT 'soft-' || i, 'soft', (ARRAY['k80', 'v100', 'a100'])[1 + i % 3], 1 + i % 4,
	   make_interval(mins => 10 + (i * 23) % 120)
FROM generate_series(1, 10) i;
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'hard-%' AND status = 'planned'), 30::bigint,
	'all 30 hard jobs are planned');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'hard-%'
		   AND (planned_gpu_type IS DISTINCT FROM gpu_type OR planned_gpus IS DISTINCT FROM gpus)), 0::bigint,
	'every hard job is planned on exactly its (gpu_type, gpus)');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'hard-%'
		   AND planned_end - planned_start <> duration), 0::bigint,
	'every hard job is planned for exactly its duration');
SELECT ok((SELECT count(DISTINCT planned_gpu_type) = 3 FROM mixdnn.jobs WHERE name LIKE 'soft-%' AND status = 'planned')
		  OR (SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'soft-%' AND planned_gpu_type <> coalesce(gpu_type, '')) > 0,
	'the competing soft jobs are spread over types (the test is not trivially hard-only)');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'the mixed plan respects every type''s capacity');

-- Move time forward and launch repeatedly: hard jobs get exactly their configuration.
-- The jobs planned for t0 fit together, and come first among the due jobs:
-- each of them must start.
CREATE TEMP TABLE first AS SELECT job_id, model_class FROM mixdnn.jobs WHERE status = 'planned' AND planned_start = pg_temp.t0();
SELECT pg_temp.set_now(pg_temp.t0() + interval '4 hours');
SELECT cmp_ok(mixdnn.launch_due(), '>=', (SELECT count(*)::int FROM first), 'launch_due starts at least the jobs planned for t0');
:commit
SELECT pg_temp.set_now(pg_temp.t0() + interval '6 hours');
UPDATE mixdnn.jobs SET status = 'completed' WHERE status IN ('launching', 'running')
	AND planned_end <= pg_temp.t0() + interval '6 hours';
:commit
SELECT mixdnn.launch_due();
:commit
SELECT results_eq($$SELECT count(*), count(*) FILTER (WHERE j.status IN ('launching', 'completed'))
					 FROM first f JOIN mixdnn.jobs j USING (job_id) WHERE f.model_class = 'hard'$$,
	$$SELECT count(*), count(*) FROM first WHERE model_class = 'hard' HAVING count(*) >= 3$$,
	'every hard job planned for t0 (3 of them) was launched');
SELECT is_empty($$SELECT j.job_id, j.gpu_type, j.gpus, n.gpu_type, count(*) FROM mixdnn.jobs j
				  JOIN mixdnn.job_parts p ON p.job_id = j.job_id AND p.attempt = j.attempt
				  JOIN mixdnn.gpu_nodes n ON n.node = p.node
				  WHERE j.model_class = 'hard'
				  GROUP BY j.job_id, j.gpu_type, j.gpus, n.gpu_type
				  HAVING n.gpu_type <> j.gpu_type OR sum(p.gpus) <> j.gpus$$,
	'every launched hard job runs on exactly gpus GPUs of its gpu_type');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'hard-%' AND status IN ('planned', 'pending')
		   AND (planned_gpu_type IS DISTINCT FROM gpu_type OR planned_gpus IS DISTINCT FROM gpus)), 0::bigint,
	're-planned hard jobs still have exactly their configuration');

-- Unknown model: accepted and planned by the scaling model (same run time
-- on the reference configuration as no model at all).
DELETE FROM mixdnn.jobs;
:commit
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration)
VALUES ('unknown-model', 'no-such-model-xyz', 'hard', 'v100', 2, '90 min');
:commit
SELECT results_eq($$SELECT status, planned_gpu_type, planned_gpus, planned_end - planned_start
					FROM mixdnn.jobs WHERE name = 'unknown-model'$$,
	$$VALUES ('planned', 'v100', 2, interval '90 minutes')$$,
	'an unknown model is accepted and planned by the scaling model');

-- A measured profile changes the choice: model m runs 10x faster on k80
-- than on v100 (per its measurements), so a soft v100 job of m goes to k80
-- although k80's nominal speed is lower.
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES
	('m', 'v100', 2, 10), ('m', 'k80', 2, 100), ('m', 'a100', 2, 1);
:commit
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('profiled', 'm', 'soft', 'v100', 2, 2, 2, '10 hours');
:commit
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus, planned_end - planned_start
					FROM mixdnn.jobs WHERE name = 'profiled'$$,
	$$VALUES ('k80', 2, interval '1 hour')$$,
	'measured throughput: planned on k80 for duration x 10/100');
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration)
VALUES ('profiled-hard', 'm', 'hard', 'a100', 2, '1 hour');
:commit
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus, planned_end - planned_start
					FROM mixdnn.jobs WHERE name = 'profiled-hard'$$,
	$$VALUES ('a100', 2, interval '1 hour')$$,
	'a hard job runs its duration on its own (reference) configuration, whatever the profile');

-- A soft job without gpu_type states its duration for speed-1.0 GPUs.
INSERT INTO mixdnn.jobs (name, model_class, gpus, min_gpus, max_gpus, allowed_types, duration)
VALUES ('typeless', 'soft', 2, 2, 2, '{a100}', '2 hours');
:commit
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus FROM mixdnn.jobs WHERE name = 'typeless'$$,
	$$VALUES ('a100', 2)$$, 'a typeless soft job is planned on an allowed type');
SELECT ok((SELECT planned_end - planned_start < interval '2 hours' FROM mixdnn.jobs WHERE name = 'typeless'),
	'... and runs faster than its speed-1.0 duration on the speed-2.0 a100');

-- A model's name has up to 63 characters of up to 4 bytes (mixdnn.profiles.model):
-- one of 63 two-byte characters (126 bytes) finds its profile in a round too
-- (the core kept 63 bytes of it, and the round's lookup of the whole name
-- failed: the scaling model planned the job on a100 for 5 hours).
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status IN ('pending', 'planned');
:commit
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput)
	SELECT repeat(U&'\0436', 63), gpu_type, gpus, throughput FROM mixdnn.profiles WHERE model = 'm';
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, min_gpus, max_gpus, duration)
VALUES ('profiled-utf8', repeat(U&'\0436', 63), 'soft', 'v100', 2, 2, 2, '10 hours');
:commit
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus, planned_end - planned_start
					FROM mixdnn.jobs WHERE name = 'profiled-utf8'$$,
	$$VALUES ('k80', 2, interval '1 hour')$$,
	'a model of 63 two-byte characters: its measured throughput plans it on k80 for duration x 10/100');

SELECT * FROM finish();
ROLLBACK;
