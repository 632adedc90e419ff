-- 99_long_history.sql — the analysts' and scrapers' queries over a long
-- history. mixdnn.utilization() (docs/reference.md, "Utilization and
-- estimate accuracy") reads
-- only the parts that may overlap the window and sums each part into the
-- steps it overlaps. Before, it joined every step with every part of the
-- type and numbered every launch event of the history: 100 days by the hour
-- over 200,000 finished parts took 33-47 s (here, 60,000 parts: about 15 s
-- against the 6 s timeout), one day by 10 minutes 2-5 s. mixdnn.metrics
-- (docs/reference.md, "Metrics") finds the launch of each part claimed in
-- the last hour by the job_events index: each scrape numbered every launch
-- of the history (a WindowAgg over job_events, 0.45 of the 0.65 s a scrape
-- took over 200,000 finished jobs). mixdnn.gantt_svg() likewise (its bars
-- over one day of 200,000 parts: 0.8 s, now 0.05 s).
--
-- 60,000 one-GPU parts on 16 nodes of 8 v100 / p100, one every 144 s over
-- 100 days, each held 20 min from its launch (a 'launching' event): 8.33
-- GPUs busy on average, half of them per type. Rows written directly,
-- triggers off, as tools/bench/surface.sh does.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(10);

SET LOCAL session_replication_role = replica;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('p100', 0.9);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
	SELECT 'n' || i, CASE WHEN i % 2 = 0 THEN 'v100' ELSE 'p100' END, 8 FROM generate_series(1, 16) i;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at, started_at, finished_at, attempt)
	SELECT 'j' || i, 'hard', CASE WHEN i % 2 = 0 THEN 'v100' ELSE 'p100' END, 1, '20 min', 'completed',
		   pg_temp.t0() - interval '100 days' + i * interval '144 s',
		   pg_temp.t0() - interval '100 days' + i * interval '144 s',
		   pg_temp.t0() - interval '100 days' + i * interval '144 s' + interval '20 min', 1
	FROM generate_series(0, 59999) i;
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
	SELECT job_id, started_at, 'planned', 'launching' FROM mixdnn.jobs;
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, finished_at, exit_code, gpu_type)
	SELECT job_id, 1, 'n' || (1 + (job_id % 8) * 2 + CASE gpu_type WHEN 'v100' THEN 1 ELSE 0 END), 0, 1, 'completed',
		   started_at + interval '2 s', finished_at, 0, gpu_type
	FROM mixdnn.jobs;
SET LOCAL session_replication_role = origin;
ANALYZE mixdnn.jobs, mixdnn.job_events, mixdnn.job_parts;

SET LOCAL statement_timeout = '6s';
CREATE TEMP TABLE u AS
	SELECT * FROM mixdnn.utilization(pg_temp.t0() - interval '100 days', pg_temp.t0(), '1 hour');
SELECT is((SELECT count(*) FROM u), 4800::bigint, '100 days by the hour, 2 types: 4800 rows within the timeout');
SELECT is((SELECT round(avg(busy_gpus)::numeric, 3) FROM u WHERE bucket >= pg_temp.t0() - interval '99 days'),
	4.167, 'busy GPUs per type: 25 parts an hour x 1/3 h / 2 types');
-- GPU-seconds of the parts overlapping [t0 - a, t0 - b), as counted by hand.
CREATE FUNCTION pg_temp.gpu_s(a interval, b interval) RETURNS numeric LANGUAGE sql AS $$
	SELECT round(sum(p.gpus * date_part('epoch', least(j.finished_at, pg_temp.t0() - b)
										   - greatest(j.started_at, pg_temp.t0() - a)))::numeric, 1)
	FROM mixdnn.jobs j JOIN mixdnn.job_parts p USING (job_id)
	WHERE j.started_at < pg_temp.t0() - b AND j.finished_at > pg_temp.t0() - a $$;
SELECT is((SELECT round(sum(busy_gpus * 3600)::numeric, 1) FROM u), pg_temp.gpu_s('100 days', '0'),
	'every part counted once: the steps hold the GPU-seconds of the parts');
SELECT is((SELECT count(*) FROM mixdnn.utilization(pg_temp.t0() - interval '1 day', pg_temp.t0(), '10 minutes')),
	288::bigint, 'one day by 10 minutes within the timeout');
SELECT is((SELECT round(sum(busy_gpus * date_part('epoch', least(bucket + interval '17 min', pg_temp.t0() - interval '49 days')
															   - bucket))::numeric, 1)
		   FROM mixdnn.utilization(pg_temp.t0() - interval '50 days 7 min', pg_temp.t0() - interval '49 days', '17 minutes')),
	pg_temp.gpu_s('50 days 7 min', '49 days'),
	'an odd window and step, the last step cut: the same GPU-seconds');
RESET statement_timeout;

-- Metrics: the 25 parts claimed in the last hour, each 2 s after its launch.
CREATE FUNCTION pg_temp.plan_nodes(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN QUERY WITH RECURSIVE n(p) AS (SELECT j -> 0 -> 'Plan' UNION ALL SELECT c FROM n, json_array_elements(n.p -> 'Plans') c)
		SELECT p ->> 'Node Type' FROM n;
END $$;
SELECT is((SELECT count(*) FROM pg_temp.plan_nodes('SELECT * FROM mixdnn.metrics') t WHERE t = 'WindowAgg'), 0::bigint,
	'mixdnn.metrics numbers no launch events of the history');
SELECT is((SELECT value FROM mixdnn.metrics WHERE metric = 'launch_claim_p50_seconds'), 2::float8,
	'launch_claim_p50_seconds: 2 s from each launch to its claim');
SELECT is((SELECT value FROM mixdnn.metrics WHERE metric = 'jobs' AND status = 'completed'), 60000::float8,
	'jobs{status="completed"}: 60,000');

-- The Gantt chart: its bars find their launches the same way, only for
-- the parts that end after the window's start.
SELECT is((SELECT count(*) FROM pg_temp.plan_nodes('SELECT * FROM mixdnn._gantt_bars') t WHERE t = 'WindowAgg'), 0::bigint,
	'mixdnn._gantt_bars numbers no launch events of the history');
SELECT is((SELECT count(*) FROM regexp_matches(mixdnn.gantt_svg(pg_temp.t0() - interval '1 day', pg_temp.t0()),
												 '<rect class="ran"', 'g')),
	(SELECT count(*) FROM mixdnn.jobs WHERE started_at < pg_temp.t0() AND finished_at > pg_temp.t0() - interval '1 day'),
	'gantt_svg of the last day: a bar for each part that overlaps it');

SELECT * FROM finish();
ROLLBACK;
