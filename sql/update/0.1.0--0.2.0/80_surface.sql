-- What users and operators look at (issue #14; docs/reference.md, "The
-- queue, why and what-if" and the sections after it): the queue, why a job
-- has its plan, what a submission would get (both planned with the core
-- exactly as a round does, writing nothing), the failure log line,
-- estimate accuracy and metrics for scrapers; utilization and the Gantt
-- chart have files of their own (71_utilization.sql, 72_gantt.sql).

-- Every unfinished job, in the order the scheduler serves them. The view
-- runs as its owner, so it sees every job; a user sees the private columns
-- (name, model, reason) of their own jobs only, an admin of every job.
-- waited is NULL for a job whose started_at is 'infinity' or '-infinity'
-- (a superuser's UPDATE): one such job failed every user's queue with
-- "cannot subtract infinite timestamps".
CREATE VIEW mixdnn.queue WITH (security_barrier = true) AS
	SELECT CASE WHEN q.waiting THEN q.served END::int AS position,
		   q.job_id, q.owner,
		   CASE WHEN q.visible THEN q.name END AS name,
		   q.status, q.model_class,
		   q.gpu_type AS requested_gpu_type, q.gpus AS requested_gpus,
		   q.min_gpus, q.max_gpus,
		   q.planned_gpu_type, q.planned_gpus, q.planned_start, q.planned_end,
		   (SELECT pg_catalog.array_agg(p.node ORDER BY p.node_rank) FROM mixdnn.job_parts p
			 WHERE p.job_id = q.job_id AND p.attempt = q.attempt
			   AND p.state OPERATOR(pg_catalog.=) ANY ('{launching,running}'::text[])) AS nodes,
		   CASE WHEN q.waiting THEN mixdnn.now() OPERATOR(pg_catalog.-) q.submitted_at
				WHEN pg_catalog.isfinite(q.started_at) THEN q.started_at OPERATOR(pg_catalog.-) q.submitted_at END AS waited,
		   CASE WHEN q.visible THEN q.model END AS model,
		   CASE WHEN q.visible THEN q.reason END AS reason,
		   q.owner OPERATOR(pg_catalog.=) CURRENT_USER AS mine
	FROM (SELECT j.*,
				 j.status OPERATOR(pg_catalog.=) ANY ('{pending,planned}'::text[]) AS waiting,
				 j.owner OPERATOR(pg_catalog.=) CURRENT_USER
				   OR pg_catalog.pg_has_role(CURRENT_USER, 'mixdnn_admin', 'MEMBER') AS visible,
				 -- launch_due starts planned jobs by (planned_start, job_id); unplanned ones follow in
				 -- queue order, so a job behind the planning horizon gets its rank in queue order
				 pg_catalog.row_number() OVER (
					 PARTITION BY j.status OPERATOR(pg_catalog.=) ANY ('{pending,planned}'::text[])
					 ORDER BY j.planned_start NULLS LAST,
							  CASE WHEN j.planned_start IS NULL THEN OPERATOR(pg_catalog.-) j.priority END,
							  CASE WHEN j.planned_start IS NULL THEN j.submitted_at END,
							  j.job_id) AS served
		  FROM mixdnn.jobs j
		  WHERE j.status OPERATOR(pg_catalog.=) ANY ('{pending,planned,launching,running}'::text[])) q;
COMMENT ON VIEW mixdnn.queue IS 'unfinished jobs in the order the scheduler serves them; others'' jobs without their private columns';

-- Why a waiting job has its plan: each candidate configuration (C: src/pg/explain.c).
CREATE FUNCTION mixdnn.explain(job_id bigint)
	RETURNS TABLE (gpu_type text, gpus int, utility float8, run_time interval,
				   earliest_start timestamptz, earliest_end timestamptz, value float8,
				   chosen boolean, blocked_by text, detail text)
	AS 'MODULE_PATHNAME', 'mixdnn_explain'
	LANGUAGE C STRICT VOLATILE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION mixdnn.explain(bigint) IS 'each candidate configuration of a waiting job, which one a round chooses now and what blocks the faster ones';

-- Internal: the planning part of mixdnn.what_if (src/pg/what_if.c); takes
-- validated arguments with the submission defaults applied (it checks them
-- again). As the caller: it counts the caller's waiting jobs against
-- mixdnn.max_waiting_jobs, then plans as the extension's owner.
CREATE FUNCTION mixdnn._what_if(hard boolean, gpu_type text, gpus int, min_gpus int, max_gpus int,
								allowed_types text[], duration_s float8, priority int, model text)
	RETURNS TABLE (planned_gpu_type text, planned_gpus int, planned_start timestamptz,
				   planned_end timestamptz, wait interval, "position" int, reason text,
				   blocked_by text)
	AS 'MODULE_PATHNAME', 'mixdnn_what_if'
	LANGUAGE C VOLATILE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION mixdnn._what_if(boolean, text, int, int, int, text[], float8, int, text) IS 'internal: plan a hypothetical job with every waiting job, writing nothing';

-- When and on what a job would run if submitted now, or why it would not
-- be planned (behind the planning horizon) or not accepted (the caller's
-- mixdnn.max_waiting_jobs). Arguments as the columns of mixdnn.jobs,
-- checked as a submission is (same SQLSTATEs). As the caller, who must be
-- known to count their waiting jobs; reads only what users may read.
CREATE FUNCTION mixdnn.what_if(model_class text DEFAULT 'soft', gpu_type text DEFAULT NULL,
							   gpus int DEFAULT NULL, min_gpus int DEFAULT NULL, max_gpus int DEFAULT NULL,
							   allowed_types text[] DEFAULT NULL, duration interval DEFAULT NULL,
							   priority int DEFAULT 0, model text DEFAULT NULL)
	RETURNS TABLE (planned_gpu_type text, planned_gpus int, planned_start timestamptz,
				   planned_end timestamptz, wait interval, "position" int, reason text,
				   blocked_by text)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	hard		boolean := what_if.model_class = 'hard';
	lo			int := what_if.min_gpus;
	hi			int := what_if.max_gpus;
	missing		text;
BEGIN
	missing := CASE WHEN what_if.model_class IS NULL THEN 'model_class' WHEN what_if.gpus IS NULL THEN 'gpus'
					WHEN what_if.duration IS NULL THEN 'duration' WHEN what_if.priority IS NULL THEN 'priority' END;
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'mixdnn.what_if needs a value for %', missing
			USING ERRCODE = 'not_null_violation';
	END IF;
	IF what_if.model_class NOT IN ('hard', 'soft') THEN
		RAISE EXCEPTION 'model_class must be hard or soft, not %', what_if.model_class
			USING ERRCODE = 'check_violation';
	END IF;
	IF what_if.gpus NOT BETWEEN 1 AND 4096 OR lo NOT BETWEEN 1 AND 4096 OR hi NOT BETWEEN 1 AND 4096 THEN
		RAISE EXCEPTION 'gpus, min_gpus and max_gpus must be between 1 and 4096'
			USING ERRCODE = 'check_violation';
	END IF;
	IF what_if.duration <= interval '0' OR what_if.duration > interval '366 days'
	   OR pg_catalog.date_part('epoch', what_if.duration) NOT BETWEEN 1e-6 AND 366 * 86400 THEN
		RAISE EXCEPTION 'duration must be positive and at most 366 days, not %', what_if.duration
			USING ERRCODE = 'check_violation';
	END IF;
	IF what_if.priority NOT BETWEEN -100 AND 100 THEN
		RAISE EXCEPTION 'priority must be between -100 and 100, not %', what_if.priority
			USING ERRCODE = 'check_violation';
	END IF;
	-- The limits of a submission (mixdnn._job_before_write), in its words.
	IF pg_catalog.length(what_if.model) > 63 THEN
		RAISE EXCEPTION 'model must have at most 63 characters, as mixdnn.profiles.model, not %', pg_catalog.length(what_if.model)
			USING ERRCODE = 'string_data_right_truncation';
	END IF;
	IF pg_catalog.cardinality(what_if.allowed_types) > 64 THEN
		RAISE EXCEPTION 'allowed_types must name at most 64 GPU types, not %', pg_catalog.cardinality(what_if.allowed_types)
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'mixdnn supports at most 64 gpu types; leave allowed_types NULL to allow every registered type.';
	END IF;
	IF pg_catalog.array_ndims(what_if.allowed_types) > 1 THEN
		RAISE EXCEPTION 'allowed_types must be a one-dimensional list of GPU types'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	missing := (SELECT a FROM pg_catalog.unnest(what_if.allowed_types) a WHERE a IS NOT NULL
				GROUP BY a HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 1 ORDER BY a LIMIT 1);
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'allowed_types names "%" more than once', missing
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	missing := (SELECT t FROM pg_catalog.unnest(pg_catalog.array_append(what_if.allowed_types, what_if.gpu_type)) t
				WHERE t IS NOT NULL AND NOT EXISTS (SELECT FROM mixdnn.gpu_types g WHERE g.gpu_type = t) LIMIT 1);
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'unknown gpu type "%"', missing
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Registered types are listed in mixdnn.gpu_types.';
	END IF;
	IF hard AND (what_if.gpu_type IS NULL OR what_if.allowed_types IS NOT NULL
				 OR coalesce(lo, what_if.gpus) <> what_if.gpus
				 OR coalesce(hi, what_if.gpus) <> what_if.gpus) THEN
		RAISE EXCEPTION 'a hard-model job needs a gpu_type and runs on exactly gpus GPUs'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Leave min_gpus, max_gpus and allowed_types unset for a hard-model job.';
	END IF;
	IF NOT hard AND (pg_catalog.cardinality(what_if.allowed_types) = 0
					 OR pg_catalog.array_position(what_if.allowed_types, NULL) IS NOT NULL) THEN
		RAISE EXCEPTION 'allowed_types must name at least one GPU type and no NULL'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Leave allowed_types NULL to allow every registered type.';
	END IF;
	-- The submission defaults (mixdnn.jobs' column comments).
	hi := coalesce(hi, greatest(what_if.gpus, lo));
	lo := coalesce(lo, least(greatest(1, what_if.gpus / 2), hi));
	IF lo > hi THEN
		RAISE EXCEPTION 'min_gpus (%) is greater than max_gpus (%)', lo, hi
			USING ERRCODE = 'check_violation';
	END IF;
	RETURN QUERY SELECT * FROM mixdnn._what_if(hard, what_if.gpu_type, what_if.gpus, lo, hi,
		what_if.allowed_types, pg_catalog.date_part('epoch', what_if.duration)::float8,
		what_if.priority, what_if.model);
END
$$;
COMMENT ON FUNCTION mixdnn.what_if(text, text, int, int, int, text[], interval, int, text) IS 'when and on which configuration such a job would run if submitted now, or why it would wait unplanned or be refused; writes nothing';

REVOKE ALL ON mixdnn.queue FROM PUBLIC;
REVOKE ALL ON FUNCTION mixdnn.explain(bigint), mixdnn._what_if(boolean, text, int, int, int, text[], float8, int, text),
	mixdnn.what_if(text, text, int, int, int, text[], interval, int, text) FROM PUBLIC;
GRANT SELECT ON mixdnn.queue TO mixdnn_user, mixdnn_admin;
GRANT EXECUTE ON FUNCTION mixdnn.explain(bigint),
	mixdnn._what_if(boolean, text, int, int, int, text[], float8, int, text),
	mixdnn.what_if(text, text, int, int, int, text[], interval, int, text) TO mixdnn_user, mixdnn_admin;

-- One server-log line per failed job (src/pg/failure_log.c); launches and
-- expired leases are logged where they happen, each round at DEBUG1.
CREATE FUNCTION mixdnn._log_job_failure() RETURNS trigger
	AS 'MODULE_PATHNAME', 'mixdnn_log_job_failure'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._log_job_failure() IS 'internal trigger: logs a job''s failure at LOG';
CREATE TRIGGER jobs_log_failure AFTER UPDATE OF status ON mixdnn.jobs
	FOR EACH ROW WHEN (NEW.status = 'failed' AND OLD.status IS DISTINCT FROM 'failed')
	EXECUTE FUNCTION mixdnn._log_job_failure();

-- Internal: when each launch attempt of each job happened (the job's n-th
-- 'launching' event is attempt n). Not granted: only the owner's views and
-- functions below read it.
CREATE VIEW mixdnn._launches AS
	SELECT e.job_id, pg_catalog.row_number() OVER (PARTITION BY e.job_id ORDER BY e.event_id)::int AS attempt, e.at
	FROM mixdnn.job_events e WHERE e.new_status OPERATOR(pg_catalog.=) 'launching';
COMMENT ON VIEW mixdnn._launches IS 'internal: the time of every launch attempt of every job';

-- Planned versus actual per finished job, as the reader may see it (RLS).
-- A difference with an infinite time in it ('infinity' or '-infinity', a
-- superuser's UPDATE) is NULL, and so is the ratio: one such job failed the
-- view for every reader who may see it.
CREATE VIEW mixdnn.estimate_accuracy WITH (security_invoker = true) AS
	SELECT s.job_id, s.owner, j.model, s.model_class, s.planned_gpu_type AS gpu_type, s.planned_gpus AS gpus,
		   s.status, s.submitted_at, s.first_planned_start, s.started_at,
		   CASE WHEN isfinite(s.started_at) AND isfinite(s.first_planned_start)
				THEN s.started_at - s.first_planned_start END AS start_error,
		   CASE WHEN isfinite(s.planned_end) AND isfinite(s.started_at) THEN s.planned_end - s.started_at END AS estimated_run,
		   CASE WHEN isfinite(s.finished_at) AND isfinite(s.started_at) THEN s.finished_at - s.started_at END AS actual_run,
		   CASE WHEN isfinite(s.finished_at) AND isfinite(s.planned_end) THEN s.finished_at - s.planned_end END AS run_error,
		   CASE WHEN isfinite(s.finished_at) AND isfinite(s.started_at) AND isfinite(s.planned_end)
				THEN date_part('epoch', s.finished_at - s.started_at)
					 / nullif(date_part('epoch', s.planned_end - s.started_at), 0) END AS run_ratio
	FROM mixdnn.schedule s JOIN mixdnn.jobs j ON j.job_id = s.job_id
	WHERE s.status = 'completed' AND s.started_at IS NOT NULL;
COMMENT ON VIEW mixdnn.estimate_accuracy IS 'per completed job: planned versus actual start and run time';

CREATE VIEW mixdnn.estimate_accuracy_summary WITH (security_invoker = true) AS
	SELECT a.owner, a.model, count(*) AS jobs,
		   avg(abs(date_part('epoch', a.start_error))) AS mean_abs_start_error_s,
		   percentile_cont(0.5) WITHIN GROUP (ORDER BY a.run_ratio) AS median_run_ratio,
		   avg(abs(a.run_ratio - 1)) AS mean_abs_run_error_ratio
	FROM mixdnn.estimate_accuracy a
	GROUP BY a.owner, a.model;
COMMENT ON VIEW mixdnn.estimate_accuracy_summary IS 'forecast quality per user and model';

-- For scrapers (tools/prometheus-postgres-exporter.yaml): one row per
-- metric and label, aggregates over every user's jobs, so it runs as its
-- owner and may be granted to monitoring roles. Windows: waits and launch
-- latencies of the last hour, rounds per minute over the last 5 minutes;
-- none after now (with mixdnn.virtual_now set back, the rounds the worker
-- stamped at the real time were counted); no launch at 'infinity' or
-- '-infinity' (a superuser's UPDATE), which failed every scrape.
CREATE VIEW mixdnn.metrics WITH (security_barrier = true) AS
	WITH clock AS (SELECT mixdnn.now() AS t),
	nodes AS (
		SELECT n.gpu_type, n.gpus, (n.status = 'up' AND n.unreachable_since IS NULL) AS takes_jobs,
			   (SELECT count(*) FROM mixdnn.gpu_holds h WHERE h.node = n.node) AS held
		FROM mixdnn.gpu_nodes n),
	waits AS (
		SELECT date_part('epoch', j.started_at - j.submitted_at) AS s
		FROM mixdnn.jobs j, clock WHERE j.started_at > clock.t - interval '1 hour' AND j.started_at <= clock.t),
	rounds AS (
		SELECT r.at, r.solve_ms FROM mixdnn.rounds r, clock WHERE r.at > clock.t - interval '1 hour' AND r.at <= clock.t),
	-- each part's launch by the job_events index (as mixdnn._launches numbers
	-- them), not by numbering every launch of the history at each scrape
	claims AS (
		SELECT date_part('epoch', p.claimed_at - l.at) AS s
		FROM mixdnn.job_parts p CROSS JOIN clock
		CROSS JOIN LATERAL (
			SELECT e.at FROM mixdnn.job_events e
			WHERE e.job_id = p.job_id AND e.new_status = 'launching'
			ORDER BY e.event_id OFFSET p.attempt - 1 LIMIT 1) l
		WHERE p.claimed_at > clock.t - interval '1 hour' AND p.claimed_at <= clock.t AND p.attempt >= 1
		  AND isfinite(l.at))
	SELECT 'jobs'::text AS metric, NULL::text AS gpu_type, s.status, coalesce(c.n, 0)::float8 AS value
	FROM (VALUES ('pending'), ('planned'), ('launching'), ('running'), ('completed'), ('failed'), ('cancelled')) s(status)
	LEFT JOIN (SELECT j.status, count(*) AS n FROM mixdnn.jobs j GROUP BY j.status) c ON c.status = s.status
	UNION ALL
	SELECT m.metric, n.gpu_type, NULL,
		   CASE m.metric WHEN 'gpus' THEN sum(n.gpus) WHEN 'gpus_held' THEN sum(n.held)
			   ELSE sum(CASE WHEN n.takes_jobs THEN n.gpus - n.held ELSE 0 END) END::float8
	FROM nodes n CROSS JOIN (VALUES ('gpus'), ('gpus_held'), ('gpus_free')) m(metric)
	GROUP BY m.metric, n.gpu_type
	UNION ALL
	SELECT 'waiting_oldest_seconds', NULL, NULL, coalesce(max(date_part('epoch', clock.t - j.submitted_at)), 0)
	FROM mixdnn.jobs j RIGHT JOIN clock ON j.status IN ('pending', 'planned')
	UNION ALL
	SELECT 'queue_wait_p50_seconds', NULL, NULL, percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM waits
	UNION ALL
	SELECT 'queue_wait_p95_seconds', NULL, NULL, percentile_cont(0.95) WITHIN GROUP (ORDER BY s) FROM waits
	UNION ALL
	SELECT 'rounds_per_minute', NULL, NULL, count(*) FILTER (WHERE r.at > clock.t - interval '5 minutes') / 5.0
	FROM clock LEFT JOIN rounds r ON true
	UNION ALL
	SELECT 'round_solve_ms_p95', NULL, NULL, percentile_cont(0.95) WITHIN GROUP (ORDER BY solve_ms) FROM rounds
	UNION ALL
	SELECT 'launch_claim_p50_seconds', NULL, NULL, percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM claims
	UNION ALL
	SELECT 'launch_claim_p95_seconds', NULL, NULL, percentile_cont(0.95) WITHIN GROUP (ORDER BY s) FROM claims;
COMMENT ON VIEW mixdnn.metrics IS 'scheduler metrics for scrapers: jobs by status, GPUs per type, waits, rounds, launch latency';

REVOKE ALL ON mixdnn.estimate_accuracy, mixdnn.estimate_accuracy_summary FROM PUBLIC;
REVOKE ALL ON mixdnn.metrics, mixdnn._launches FROM PUBLIC;
GRANT SELECT ON mixdnn.metrics TO mixdnn_user, mixdnn_admin, pg_monitor;
-- What pg_monitor needs for mixdnn.metrics: the schema, and the clock the view calls as its reader.
GRANT USAGE ON SCHEMA mixdnn TO pg_monitor;
GRANT EXECUTE ON FUNCTION mixdnn.now() TO pg_monitor;
REVOKE ALL ON FUNCTION mixdnn._log_job_failure() FROM PUBLIC;
GRANT SELECT ON mixdnn.estimate_accuracy, mixdnn.estimate_accuracy_summary TO mixdnn_user, mixdnn_admin;
