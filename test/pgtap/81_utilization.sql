-- 81_utilization.sql — mixdnn.utilization() from the jobs' parts, and the
-- estimate-accuracy views (planned versus actual), as their users see them.
--
-- Scenario: 4 v100. At t0 alice's A and bob's B (2 GPUs each, estimated
-- 1 h) launch; A completes at +30 min, B at +90 min. Busy GPUs: 4 until
-- +30 min, then 2 until +90 min: the first hour averages 3 GPUs (75 %),
-- the second 1 GPU (25 %).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(36);

CREATE ROLE tap81_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap81_bob NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('k1', 'k80', 2);
:commit
SET LOCAL ROLE tap81_alice;
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration) VALUES ('A', 'resnet', 'hard', 'v100', 2, '1 h');
:commit
RESET ROLE;
SET LOCAL ROLE tap81_bob;
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration) VALUES ('B', 'bert', 'hard', 'v100', 2, '1 h');
:commit
RESET ROLE;
SELECT is(mixdnn.launch_due(), 2, '(setup) A and B launch at t0');
SELECT pg_temp.set_now(pg_temp.t0() + interval '30 min') AS t \gset
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'A';
:commit
SELECT pg_temp.set_now(pg_temp.t0() + interval '90 min') AS t \gset
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'B';
:commit
SELECT pg_temp.set_now(pg_temp.t0() + interval '3 hours') AS t \gset

SET LOCAL ROLE tap81_alice;
SELECT results_eq($$SELECT bucket, gpu_type, gpus, busy_gpus, utilization
					FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '2 hours', '1 hour')$$,
	$$VALUES (pg_temp.t0(), 'k80', 2::bigint, 0::float8, 0::float8),
			 (pg_temp.t0(), 'v100', 4::bigint, 3::float8, 0.75::float8),
			 (pg_temp.t0() + interval '1 hour', 'k80', 2::bigint, 0::float8, 0::float8),
			 (pg_temp.t0() + interval '1 hour', 'v100', 4::bigint, 1::float8, 0.25::float8)$$,
	'utilization per type and hour: 3 of 4 v100 busy on average, then 1; counts every user''s jobs');
SELECT results_eq($$SELECT busy_gpus FROM mixdnn.utilization(pg_temp.t0() + interval '15 min', pg_temp.t0() + interval '45 min', '10 min')
					WHERE gpu_type = 'v100'$$,
	$$VALUES (4::float8), (3::float8), (2::float8)$$,
	'a step across A''s end averages its part over the step');
SELECT throws_ok($$SELECT * FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0(), '1 hour')$$, '22023', NULL,
	'an empty window is refused');
SELECT throws_ok($$SELECT * FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '1 year', '1 second')$$, '54000', NULL,
	'too many steps are refused');
-- A step with a negative part may go back on some dates, and the series would
-- never reach to_ts: '1 month -30 days 1 second' from 1 February goes back.
-- (The bound makes a regression fail here instead of looping.)
SET LOCAL statement_timeout = '30s';
SELECT throws_ok($$SELECT * FROM mixdnn.utilization('2026-02-01 00:00+00', '2026-02-01 01:00+00',
	interval '1 month -30 days 1 second')$$, '22023',
	'mixdnn.utilization needs a step whose months, days and time are none of them negative',
	'a step with negative days is refused (it went back from 1 February, and looped)');
SELECT throws_ok($$SELECT * FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '1 year',
	interval '-1 month 40 days')$$, '22023', NULL, 'a step with negative months is refused');
SELECT is((SELECT count(*) FROM mixdnn.utilization('2026-01-31 00:00+00', '2026-06-01 00:00+00', interval '1 month')
	WHERE gpu_type = (SELECT min(gpu_type) FROM mixdnn.gpu_types)), 5::bigint,
	'a step of one month from 31 January: five buckets');
SET LOCAL timezone = 'UTC';
SELECT results_eq($$SELECT DISTINCT bucket::date FROM mixdnn.utilization('2026-01-31 00:00+00', '2026-06-01 00:00+00', interval '1 month')
	ORDER BY 1$$,
	$$VALUES ('2026-01-31'::date), ('2026-02-28'), ('2026-03-31'), ('2026-04-30'), ('2026-05-31')$$,
	'... each a whole month from 31 January: 31 March, not 28 March after 28 February');
RESET statement_timeout;
SELECT throws_ok($$SELECT * FROM mixdnn.utilization(NULL, pg_temp.t0(), '1 hour')$$, '22004', NULL,
	'a NULL bound is refused');
SELECT throws_ok($$SELECT * FROM mixdnn.utilization(pg_temp.t0(), 'infinity', '1 hour')$$, '22023',
	'mixdnn.utilization needs finite from_ts < to_ts and a positive step', 'an infinite bound is refused, in plain words');
SELECT throws_ok($$SELECT mixdnn.gantt_svg('-infinity', pg_temp.t0())$$, '22023',
	'mixdnn.gantt_svg needs finite from_ts < to_ts', '... by the Gantt chart too');
-- Finite windows at the calendar's ends: in plain words, not 22008 from inside.
SELECT throws_ok($$SELECT * FROM mixdnn.utilization('294276-12-01 00:00+00', '294276-12-31 00:00+00', '1 mon')$$, '22023',
	'mixdnn.utilization needs to_ts + step within the timestamps PostgreSQL holds (up to 294276 AD)',
	'a last step past the last timestamp is refused, in plain words');
SELECT throws_ok($$SELECT * FROM mixdnn.utilization('4713-01-01 00:00+00 BC', '294276-12-31 00:00+00', '10000 years')$$, '22023',
	NULL, 'a window wider than an interval holds: 22023, not 22008');
SELECT lives_ok($$SELECT * FROM mixdnn.utilization('294276-11-01 00:00+00', '294276-12-01 00:00+00', '1 day')$$,
	'a window at the calendar''s end whose steps fit is answered');
SELECT lives_ok($$SELECT * FROM mixdnn.utilization('294276-11-01 00:00+00', '294276-12-25 00:00+00', '1 day')$$,
	'... and one of 54 days: no start past to_ts is computed (from_ts + 68 days was out of range)');
SET LOCAL timezone = 'Pacific/Apia';
SELECT is((SELECT count(DISTINCT bucket) FROM mixdnn.utilization('2011-12-28 12:00', '2012-01-03', '1 day')), 5::bigint,
	'a local day the time zone skipped (Apia, 30 December 2011) is no bucket of no length (it divided by zero)');
SET LOCAL timezone = 'UTC';
SELECT throws_ok($$SELECT mixdnn.gantt_svg('4713-01-01 00:00+00 BC', '294276-12-31 00:00+00')$$, '22023',
	'mixdnn.gantt_svg draws windows of at most 10000 years', 'a Gantt chart over the whole calendar is refused, in plain words');

-- Accuracy: alice sees her job only; A ran 30 min of an estimated hour.
SELECT results_eq($$SELECT owner::text COLLATE "default", model, start_error, estimated_run, actual_run, run_error, run_ratio
					FROM mixdnn.estimate_accuracy$$,
	$$VALUES ('tap81_alice', 'resnet', interval '0', interval '1 hour', interval '30 min', interval '-30 min', 0.5::float8)$$,
	'estimate_accuracy: alice''s job, planned versus actual');
SELECT results_eq($$SELECT model, jobs, median_run_ratio, mean_abs_run_error_ratio FROM mixdnn.estimate_accuracy_summary$$,
	$$VALUES ('resnet', 1::bigint, 0.5::float8, 0.5::float8)$$, 'the summary per user and model, hers only');
RESET ROLE;
SET LOCAL ROLE tap81_bob;
SELECT results_eq($$SELECT model, run_error, run_ratio FROM mixdnn.estimate_accuracy$$,
	$$VALUES ('bert', interval '30 min', 1.5::float8)$$, 'bob sees his job only: 30 min over');
RESET ROLE;
SELECT is((SELECT count(*) FROM mixdnn.estimate_accuracy), 2::bigint, 'the superuser sees both');
SELECT is((SELECT jobs FROM mixdnn.estimate_accuracy_summary WHERE model = 'bert'), 1::bigint, '... summarised per model');
-- A job still running counts until now.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('C', 'hard', 'k80', 1, '1 h');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) C launches at +3 h');
SELECT pg_temp.set_now(pg_temp.t0() + interval '3 hours 30 min') AS t \gset
SELECT is((SELECT busy_gpus FROM mixdnn.utilization(pg_temp.t0() + interval '3 hours', pg_temp.t0() + interval '4 hours', '1 hour')
		   WHERE gpu_type = 'k80'), 0.5::float8, 'a running part is busy until now');

-- mixdnn.metrics at +3.5 h: A and B completed, C holds 1 of 2 k80.
SELECT results_eq($$SELECT status, value FROM mixdnn.metrics WHERE metric = 'jobs' AND value > 0 ORDER BY status$$,
	$$VALUES ('completed', 2::float8), ('launching', 1::float8)$$, 'metrics: jobs by status');
SELECT results_eq($$SELECT metric, value FROM mixdnn.metrics WHERE gpu_type = 'k80' ORDER BY metric$$,
	$$VALUES ('gpus', 2::float8), ('gpus_free', 1::float8), ('gpus_held', 1::float8)$$,
	'metrics: GPUs per type, held and free');
SELECT results_eq($$SELECT metric, value FROM mixdnn.metrics
					WHERE metric IN ('queue_wait_p50_seconds', 'waiting_oldest_seconds', 'launch_claim_p95_seconds') ORDER BY metric$$,
	$$VALUES ('launch_claim_p95_seconds', NULL::float8), ('queue_wait_p50_seconds', 0::float8), ('waiting_oldest_seconds', 0::float8)$$,
	'metrics: C started without waiting in the last hour; nothing waits; no claim (no launcher) gives NULL');
-- Rounds stamped after now (the worker's, at the real time, while a test's
-- virtual clock is set back) are not in the last five minutes.
SELECT value AS rpm FROM mixdnn.metrics WHERE metric = 'rounds_per_minute' \gset
INSERT INTO mixdnn.rounds (at, event, policy, solver, solve_ms) VALUES (mixdnn.now() + interval '1 minute', 'test', 'mixdnn', 'none', 1);
SELECT is((SELECT value FROM mixdnn.metrics WHERE metric = 'rounds_per_minute'), :'rpm'::float8,
	'metrics: a round stamped after now is not counted in rounds_per_minute');
CREATE ROLE tap81_monitor NOLOGIN IN ROLE pg_monitor;
SET LOCAL ROLE tap81_monitor;
SELECT is((SELECT count(*) FROM mixdnn.metrics WHERE metric = 'jobs'), 7::bigint, 'a pg_monitor member reads the metrics');
RESET ROLE;

-- Retention purges A's and B's history (finished over an hour ago), not the
-- record of their work: utilization and the Gantt chart still see them.
SELECT is((SELECT events > 0 FROM mixdnn.purge_history('1 hour')), true, '(setup) A''s and B''s events are purged');
SELECT is((SELECT count(*) FROM mixdnn.job_events WHERE job_id IN (pg_temp.jid('A'), pg_temp.jid('B'))
		   AND new_status IS DISTINCT FROM 'launching'), 0::bigint, '... all but their launches');
SELECT results_eq($$SELECT busy_gpus FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '2 hours', '1 hour')
					WHERE gpu_type = 'v100'$$,
	$$VALUES (3::float8), (1::float8)$$, 'utilization of a purged window is what it was (it read 0: no launch time)');
SELECT ok(mixdnn.gantt_svg(pg_temp.t0(), pg_temp.t0() + interval '2 hours') LIKE '%data-job="' || pg_temp.jid('A') || '"%',
	'the Gantt chart of a purged window still draws A');

-- A virtual clock set before a running part's launch: the part counts
-- nothing (it ended before it began, and busy_gpus went negative).
SELECT mixdnn.now() AS tl \gset
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('D', 'hard', 'k80', 1, '1 h');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) D launches on k1');
SELECT pg_temp.set_now(:'tl'::timestamptz - interval '1 hour') AS t \gset
SELECT is((SELECT busy_gpus FROM mixdnn.utilization(:'tl'::timestamptz - interval '2 hours', :'tl'::timestamptz + interval '1 hour', '3 hours')
		   WHERE gpu_type = 'k80'), 0::float8,
	'a clock set an hour before a running part''s launch: the part counts nothing (busy_gpus went negative)');

SELECT * FROM finish();
ROLLBACK;
