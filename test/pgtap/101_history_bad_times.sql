-- 101_history_bad_times.sql — one history row with an infinite time (only
-- a superuser's UPDATE writes one) or a part that ended before its launch
-- (the virtual clock set back) leaves every other row of the analysts'
-- functions and views as it was: gantt_svg and utilization leave such a
-- part out, the views' durations with an infinite time are NULL. And
-- gantt_svg draws at most 50000 bars: a longer history is refused with
-- 54000, not drawn into a document no viewer opens.
--
-- Scenario: n1 with 4 v100. alice's good, bad and inv (1 GPU each, 1 h)
-- launch at t0 and are claimed; good and inv end at +30 min. Then a
-- superuser writes infinite times into bad's rows, and inv's end is moved
-- before its launch.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(22);

CREATE ROLE tap101_alice NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit
SELECT pg_temp.submit('tap101_alice', n, 'v100', 1, '1 h') FROM unnest('{good,bad,inv}'::text[]) n;
:commit
SELECT is(mixdnn.launch_due(), 3, '(setup) good, bad and inv launch at t0');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')), 3::bigint, '(setup) n1 claims them');
SELECT pg_temp.set_now(pg_temp.t0() + interval '30 min') IS NOT NULL AS t \gset
SELECT ok(mixdnn.finish(pg_temp.jid(n), 0, 'n1', 1), '(setup) ' || n || ' ends at +30 min') FROM unnest('{good,inv}'::text[]) n;
:commit
SELECT pg_temp.set_now(pg_temp.t0() + interval '40 min') IS NOT NULL AS t \gset

CREATE TEMP TABLE w AS SELECT pg_temp.t0() - interval '1 hour' AS a, pg_temp.t0() + interval '2 hours' AS b;
GRANT SELECT ON w TO PUBLIC;

-- bad (still running): its launch at -infinity; inv: launched at +20 min,
-- ended at +10 min.
SET LOCAL session_replication_role = replica;
UPDATE mixdnn.job_events SET at = '-infinity' WHERE job_id = pg_temp.jid('bad') AND new_status = 'launching';
UPDATE mixdnn.job_events SET at = pg_temp.t0() + interval '20 min' WHERE job_id = pg_temp.jid('inv') AND new_status = 'launching';
UPDATE mixdnn.job_parts SET finished_at = pg_temp.t0() + interval '10 min' WHERE job_id = pg_temp.jid('inv');
SET LOCAL session_replication_role = origin;

SET LOCAL ROLE tap101_alice;
CREATE TEMP TABLE g AS SELECT mixdnn.gantt_svg(a, b) AS svg FROM w;
SELECT ok(xml_is_well_formed_document((SELECT svg FROM g)),
	'gantt_svg with a part launched at -infinity: a well-formed chart (it failed with 22008)');
SELECT is((SELECT count(*) FROM g, regexp_matches(svg, '<rect class="[a-z]+" data-job="' || pg_temp.jid('bad') || '"', 'g')),
	0::bigint, '... without that part''s bar');
SELECT is((SELECT count(*) FROM g, regexp_matches(svg, '<rect class="ran" data-job="' || pg_temp.jid('good') || '"', 'g')),
	1::bigint, '... and with the good part''s');
SELECT results_eq($$SELECT bucket, busy_gpus FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '1 hour', '1 hour')$$,
	$$VALUES (pg_temp.t0(), 0.5::float8)$$,
	'utilization leaves that part out (it was busy from the window''s start), and the part that ended before its launch held its GPU for no time (it counted -1/6)');
RESET ROLE;

-- bad's launch back; its part ended at +infinity, or at -infinity.
SET LOCAL session_replication_role = replica;
UPDATE mixdnn.job_events SET at = pg_temp.t0() WHERE job_id = pg_temp.jid('bad') AND new_status = 'launching';
UPDATE mixdnn.job_parts SET finished_at = 'infinity', state = 'completed' WHERE job_id = pg_temp.jid('bad');
SET LOCAL session_replication_role = origin;
SELECT is((SELECT count(*) FROM w, regexp_matches(mixdnn.gantt_svg(a, b), '<rect class="[a-z]+" data-job="' || pg_temp.jid('bad') || '"', 'g')),
	0::bigint, 'gantt_svg leaves out a part that ended at infinity');
SELECT results_eq($$SELECT bucket, busy_gpus FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '2 hours', '1 hour')$$,
	$$VALUES (pg_temp.t0(), 0.5::float8), (pg_temp.t0() + interval '1 hour', 0::float8)$$,
	'... and so does utilization (it counted it busy to the window''s end)');
UPDATE mixdnn.job_parts SET finished_at = '-infinity' WHERE job_id = pg_temp.jid('bad');
SELECT is((SELECT count(*) FROM w, regexp_matches(mixdnn.gantt_svg(a, b), '<rect class="[a-z]+" data-job="' || pg_temp.jid('bad') || '"', 'g')),
	0::bigint, '... and one that ended at -infinity');
UPDATE mixdnn.job_parts SET finished_at = pg_temp.t0() + interval '30 min' WHERE job_id = pg_temp.jid('bad');
-- The first plan at -infinity: the bar is drawn, without its plan line.
UPDATE mixdnn.plan_history SET planned_start = '-infinity' WHERE job_id = pg_temp.jid('bad');
SELECT is((SELECT count(*) FROM w, regexp_matches(mixdnn.gantt_svg(a, b), '<rect class="plan" data-job="' || pg_temp.jid('bad') || '"', 'g')),
	0::bigint, 'a first plan from -infinity: no plan line (it failed with 22008)');
SELECT is((SELECT count(*) FROM w, regexp_matches(mixdnn.gantt_svg(a, b), '<rect class="ran" data-job="' || pg_temp.jid('bad') || '"', 'g')),
	1::bigint, '... and the part''s bar');
-- A waiting job planned from -infinity.
SET LOCAL session_replication_role = replica;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at, planned_gpu_type, planned_gpus, planned_start, planned_end)
	VALUES ('pinf', 'hard', 'v100', 1, '1h', 'planned', pg_temp.t0(), 'v100', 1, '-infinity', pg_temp.t0() + interval '1 hour');
SELECT ok(xml_is_well_formed_document(mixdnn.gantt_svg(a, b)), 'a plan from -infinity leaves the chart drawn') FROM w;
DELETE FROM mixdnn.jobs WHERE name = 'pinf';
SET LOCAL session_replication_role = origin;

-- The views: a running job started at infinity, a completed one finished at -infinity.
SET LOCAL session_replication_role = replica;
UPDATE mixdnn.jobs SET started_at = 'infinity' WHERE name = 'bad';
UPDATE mixdnn.jobs SET finished_at = '-infinity' WHERE name = 'good';
UPDATE mixdnn.job_events SET at = '-infinity' WHERE job_id = pg_temp.jid('bad') AND new_status = 'launching';
UPDATE mixdnn.job_events SET at = pg_temp.t0() WHERE job_id = pg_temp.jid('inv') AND new_status = 'launching';
UPDATE mixdnn.job_parts SET finished_at = NULL, state = 'running', claimed_at = mixdnn.now() - interval '1 min'
	WHERE job_id = pg_temp.jid('bad');
SET LOCAL session_replication_role = origin;
SET LOCAL ROLE tap101_alice;
SELECT results_eq($$SELECT name, waited FROM mixdnn.queue$$, $$VALUES ('bad'::text, NULL::interval)$$,
	'mixdnn.queue: a job started at infinity has no waited (the view failed for every user)');
SELECT results_eq($$SELECT name, wait, jct FROM mixdnn.schedule ORDER BY job_id$$,
	$$VALUES ('good'::text, interval '0', NULL::interval), ('bad', NULL, NULL), ('inv', interval '0', interval '30 min')$$,
	'mixdnn.schedule: wait and jct NULL where the time is infinite');
SELECT results_eq($$SELECT job_id, actual_run, run_ratio FROM mixdnn.estimate_accuracy ORDER BY job_id$$,
	$$VALUES (pg_temp.jid('good'), NULL::interval, NULL::float8), (pg_temp.jid('inv'), interval '30 min', 0.5::float8)$$,
	'mixdnn.estimate_accuracy: durations NULL where a time is infinite');
SELECT lives_ok($$SELECT * FROM mixdnn.estimate_accuracy_summary$$, '... and its summary is read');
SELECT is((SELECT value FROM mixdnn.metrics WHERE metric = 'launch_claim_p95_seconds'), 0::float8,
	'mixdnn.metrics: a part claimed a minute ago whose launch is at -infinity is left out of the launch latency (it failed every scrape)');
RESET ROLE;

-- At most 50000 bars: 6250 parts of 8 GPUs are drawn, one more GPU is refused.
SET LOCAL session_replication_role = replica;
TRUNCATE mixdnn.gpu_holds, mixdnn.job_parts, mixdnn.plan_history, mixdnn.job_events, mixdnn.jobs;
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) SELECT 'big' || i, 'v100', 8 FROM generate_series(1, 50) i;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at)
	SELECT 'big-' || i, 'hard', 'v100', 8, '1h', 'completed', pg_temp.t0() - interval '1 hour' FROM generate_series(1, 6250) i;
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
	SELECT job_id, pg_temp.t0() - interval '50 min', 'planned', 'launching' FROM mixdnn.jobs;
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, finished_at, exit_code)
	SELECT job_id, 1, 'big' || (1 + job_id % 50), 0, 8, 'completed', pg_temp.t0() - interval '50 min', pg_temp.t0() - interval '10 min', 0
	FROM mixdnn.jobs;
SET LOCAL session_replication_role = origin;
SELECT is((SELECT count(*) FROM w, regexp_matches(mixdnn.gantt_svg(a, b), '<rect class="ran"', 'g')), 50000::bigint,
	'50000 bars are drawn');
SET LOCAL session_replication_role = replica;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at)
	VALUES ('one-more', 'hard', 'v100', 1, '1h', 'completed', pg_temp.t0() - interval '1 hour');
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
	VALUES (pg_temp.jid('one-more'), pg_temp.t0() - interval '50 min', 'planned', 'launching');
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, finished_at, exit_code)
	VALUES (pg_temp.jid('one-more'), 1, 'n1', 0, 1, 'completed', pg_temp.t0() - interval '50 min', pg_temp.t0() - interval '10 min', 0);
SET LOCAL session_replication_role = origin;
SELECT throws_ok($$SELECT mixdnn.gantt_svg(pg_temp.t0() - interval '1 hour', pg_temp.t0())$$, '54000',
	'mixdnn.gantt_svg draws at most 50000 bars, and this window has 50001',
	'50001 bars are refused with 54000, before any is drawn');
SELECT is(length(mixdnn.gantt_svg(pg_temp.t0() - interval '9 min', pg_temp.t0())) > 0, true,
	'a window after those bars is drawn');

SELECT * FROM finish();
ROLLBACK;
