-- 71_utilization.sql — mixdnn.utilization(), the GPUs held per type over
-- time. Also the upgrade piece 0.1.0--0.2.0/99x (a link to this file), so
-- that both create the same function.

-- GPUs busy per type and step, from the jobs' parts: a part holds its GPUs
-- from its launch until it ended, or until now, on the type its node had at
-- the launch (job_parts.gpu_type), so a node deleted or registered again
-- with another type since leaves its history where it ran. A type that ran
-- parts in the window but has no GPUs registered now still has its rows
-- (gpus 0, utilization NULL). Aggregates only, so every user may call it.
-- A part whose launch or finished_at is 'infinity' or '-infinity' (only a
-- superuser's UPDATE writes one) is left out, as mixdnn.gantt_svg leaves
-- out its bar: how long it held its GPUs is not known. One that finished
-- before its launch (the virtual clock set back) held them for no time.
CREATE FUNCTION mixdnn.utilization(from_ts timestamptz, to_ts timestamptz, step interval DEFAULT '1 hour')
	RETURNS TABLE (bucket timestamptz, gpu_type text, gpus bigint, busy_gpus float8, utilization float8)
	LANGUAGE plpgsql STABLE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF from_ts IS NULL OR to_ts IS NULL OR step IS NULL THEN
		RAISE EXCEPTION 'mixdnn.utilization needs from_ts, to_ts and step'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF NOT (to_ts > from_ts) OR NOT (step > interval '0') OR NOT pg_catalog.isfinite(from_ts) OR NOT pg_catalog.isfinite(to_ts) THEN
		RAISE EXCEPTION 'mixdnn.utilization needs finite from_ts < to_ts and a positive step'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- months, days and time each not negative, or a step may go back on some
	-- dates ('1 month -30 days' from 1 February) and the series never ends
	IF date_part('year', step) * 12 + date_part('month', step) < 0 OR date_part('day', step) < 0
		OR date_part('epoch', step - date_trunc('day', step)) < 0 THEN
		RAISE EXCEPTION 'mixdnn.utilization needs a step whose months, days and time are none of them negative'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- in seconds of each end: to_ts - from_ts is out of an interval's range
	-- for windows of about 300 000 years
	IF (date_part('epoch', to_ts) - date_part('epoch', from_ts)) / date_part('epoch', step) > 100000 THEN
		RAISE EXCEPTION 'mixdnn.utilization returns at most 100000 steps per type'
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'Use a longer step or a shorter window.';
	END IF;
	-- the last step's end, to_ts + step at most, must be a timestamp too
	BEGIN
		PERFORM to_ts OPERATOR(pg_catalog.+) step;
	EXCEPTION WHEN datetime_field_overflow THEN
		RAISE EXCEPTION 'mixdnn.utilization needs to_ts + step within the timestamps PostgreSQL holds (up to 294276 AD)'
			USING ERRCODE = 'invalid_parameter_value';
	END;
	-- Only the parts that may overlap the window, each with its launch (the
	-- job's attempt-th launching event, as mixdnn._launches numbers them, by
	-- the job_events index), and each summed only into the steps it
	-- overlaps: width_bucket() finds them among the steps' starts by binary
	-- search. A join of every step with every part took 33 to 47 s over 100
	-- days of 200,000 parts, and 2 to 5 s for one day of them.
	RETURN QUERY
	WITH RECURSIVE parts AS (
		-- never ending before its launch: a virtual clock set earlier made busy_gpus negative
		SELECT p.gpu_type AS t, p.gpus AS g, l.at AS s, greatest(coalesce(p.finished_at, mixdnn.now()), l.at) AS e
		FROM mixdnn.job_parts p
		CROSS JOIN LATERAL (
			SELECT e.at FROM mixdnn.job_events e
			WHERE e.job_id = p.job_id AND e.new_status = 'launching'
			ORDER BY e.event_id OFFSET p.attempt - 1 LIMIT 1) l
		WHERE p.gpu_type IS NOT NULL AND p.attempt >= 1 AND isfinite(l.at)
		  AND (p.finished_at IS NULL OR p.finished_at > from_ts AND isfinite(p.finished_at))),
	win AS (
		SELECT p.* FROM parts p WHERE p.s < to_ts AND p.e > from_ts),
	types AS (
		SELECT n.gpu_type AS t, sum(n.gpus)::bigint AS total FROM mixdnn.gpu_nodes n GROUP BY n.gpu_type
		UNION ALL
		SELECT DISTINCT w.t, 0 FROM win w
		WHERE NOT EXISTS (SELECT FROM mixdnn.gpu_nodes n WHERE n.gpu_type = w.t)),
	-- Step i starts at from_ts + i * step, not at the previous start + step:
	-- months from 31 January are 31 January, 28 February, 31 March, not
	-- 28 March. Each ends where the next starts. Step by step, so that no
	-- start past to_ts is computed (near 294276 AD one is out of range),
	-- and a step of no length (a local day a time zone skipped, as
	-- Pacific/Apia's 30 December 2011) is left out: it divided by zero.
	steps(k, s, n) AS (
		SELECT 0::bigint, from_ts, from_ts + step
		UNION ALL
		SELECT st.k + 1, st.n, from_ts + (st.k + 2) * step FROM steps st WHERE st.n < to_ts),
	buckets AS (
		SELECT (row_number() OVER (ORDER BY st.k))::int AS i, st.s, least(st.n, to_ts) AS e
		FROM steps st WHERE st.n > st.s),
	starts AS (
		SELECT array_agg(b.s ORDER BY b.i) AS a FROM buckets b),
	busy AS (
		SELECT b.i, w.t, sum(w.g * date_part('epoch', least(w.e, b.e) - greatest(w.s, b.s))) AS gs
		FROM win w CROSS JOIN starts st
		CROSS JOIN LATERAL generate_series(width_bucket(greatest(w.s, from_ts), st.a),
										   width_bucket(least(w.e, to_ts), st.a)) k
		JOIN buckets b ON b.i = k
		WHERE w.s < b.e AND w.e > b.s
		GROUP BY b.i, w.t)
	SELECT b.s, ty.t, ty.total,
		   coalesce(bu.gs, 0) / date_part('epoch', b.e - b.s),
		   coalesce(bu.gs, 0) / date_part('epoch', b.e - b.s) / nullif(ty.total, 0)
	FROM buckets b CROSS JOIN types ty
	LEFT JOIN busy bu ON bu.i = b.i AND bu.t = ty.t
	ORDER BY b.s, ty.t;
END
$$;
COMMENT ON FUNCTION mixdnn.utilization(timestamptz, timestamptz, interval) IS 'average GPUs held per type in each step of a window, from the jobs'' parts';
REVOKE ALL ON FUNCTION mixdnn.utilization(timestamptz, timestamptz, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.utilization(timestamptz, timestamptz, interval) TO mixdnn_user, mixdnn_admin;
