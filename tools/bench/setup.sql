-- tools/bench/setup.sql — the cluster for the submission benchmark
-- (docs/performance.md, "Submission under load").
--   psql -v nodes=8 -v prefill=50 -f setup.sql
-- :nodes nodes of 8 GPUs (types v100 / a100 / p100 round-robin), filled
-- completely by running jobs that end over the next 6 hours (their
-- launchers never report, so mixdnn.lease_timeout must be long), then
-- :prefill waiting jobs of the submit.sql mix, and a plain table with the
-- same columns as the base of the ratio. Drops and re-creates the
-- extension: for throwaway clusters only.
\set ON_ERROR_STOP on
SET mixdnn.force_drop = on;	-- the prefill's running jobs would refuse the drop
DROP EXTENSION IF EXISTS mixdnn CASCADE;
DROP TABLE IF EXISTS public.plain_jobs;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('a100', 2.0), ('p100', 0.6);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
	SELECT format('n%s', i), (ARRAY['v100', 'a100', 'p100'])[1 + i % 3], 8
	FROM generate_series(0, :nodes - 1) i;

-- running jobs: per node one of four packings of 8 GPUs, largest jobs first
SELECT setseed(0.42);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	SELECT 'running-' || n.i || '-' || k, 'hard', n.gpu_type, g,
		   make_interval(secs => 600 + random() * 6 * 3600)
	FROM (SELECT row_number() OVER (ORDER BY node) - 1 AS i, gpu_type FROM mixdnn.gpu_nodes) n,
		 LATERAL unnest(CASE n.i % 4 WHEN 0 THEN ARRAY[8] WHEN 1 THEN ARRAY[4, 4]
									 WHEN 2 THEN ARRAY[4, 2, 1, 1] ELSE ARRAY[1, 1, 1, 1, 1, 1, 1, 1] END)
			 WITH ORDINALITY AS u(g, k)
	ORDER BY g DESC;
-- the background worker launches them; wait until it has
DO $$
BEGIN
	FOR i IN 1 .. 100 LOOP
		EXIT WHEN NOT EXISTS (SELECT FROM mixdnn.jobs WHERE status IN ('pending', 'planned'));
		PERFORM pg_sleep(0.1);
	END LOOP;
END
$$;

-- the queue: the same job mix as submit.sql, one statement (one round)
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	SELECT 'prefill-' || i,
		   CASE WHEN random() < 0.5 THEN 'soft' ELSE 'hard' END,
		   (ARRAY['v100', 'a100', 'p100'])[1 + floor(random() * 3)::int],
		   CASE WHEN r < 0.9317 THEN 1 WHEN r < 0.9538 THEN 2 WHEN r < 0.9765 THEN 4
				WHEN r < 0.9965 THEN 8 ELSE 16 END,
		   make_interval(secs => least(604800, greatest(60,
				exp(6.79 + 2.16 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))))
	FROM (SELECT i, random() AS r FROM generate_series(1, :prefill) i) q;

CREATE TABLE public.plain_jobs (LIKE mixdnn.jobs INCLUDING ALL);

-- probe.sql: how long after its commit a submission's plan is visible
DROP TABLE IF EXISTS public.probe_log;
CREATE TABLE public.probe_log (job_id bigint, wait_ms float8);
CREATE OR REPLACE FUNCTION public.bench_wait_planned(id bigint, timeout_ms int DEFAULT 10000)
	RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	t0	timestamptz := clock_timestamp();
	st	text;
	why	text;
BEGIN
	LOOP
		-- each statement of a volatile function sees what has committed since
		SELECT status, reason INTO st, why FROM mixdnn.jobs WHERE job_id = id;
		EXIT WHEN st IS DISTINCT FROM 'pending' OR why IS NOT NULL
			OR clock_timestamp() - t0 > make_interval(secs => timeout_ms / 1000.0);
		PERFORM pg_sleep(0.001);
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000.0;
END
$$;
SELECT count(*) FILTER (WHERE status IN ('pending', 'planned')) AS waiting,
	   count(*) FILTER (WHERE status IN ('launching', 'running')) AS running,
	   (SELECT count(*) FROM mixdnn.gpu_holds) AS busy_gpus
	FROM mixdnn.jobs;
