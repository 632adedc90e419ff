-- 70b_purge_history.sql — mixdnn.purge_history(), the history's
-- retention. Also the upgrade piece 0.1.0--0.2.0/43_retention.sql (a link
-- to this file), so that both create the same function.

-- Retention: the history of jobs finished before the cutoff goes; the jobs
-- themselves, and their parts, stay (one row each).
CREATE FUNCTION mixdnn.purge_history(older_than interval DEFAULT NULL)
	RETURNS TABLE (rounds bigint, plan_revisions bigint, events bigint)
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	keep	interval := older_than;
	cutoff	timestamptz;
BEGIN
	IF keep IS NULL THEN
		SELECT pg_catalog.make_interval(secs => s.setting::float8) INTO keep
			FROM pg_catalog.pg_settings s WHERE s.name = 'mixdnn.history_retention';
		IF keep IS NULL OR keep = interval '0' THEN
			rounds := 0; plan_revisions := 0; events := 0;
			RETURN NEXT;
			RETURN;
		END IF;
	END IF;
	IF keep < interval '0' THEN
		RAISE EXCEPTION 'older_than must not be negative, not %', keep
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Pass how long to keep, e.g. interval ''30 days''; NULL uses mixdnn.history_retention.';
	END IF;
	BEGIN
		cutoff := mixdnn.now() - keep;
	EXCEPTION WHEN datetime_field_overflow THEN
		-- before the first time a timestamp can hold: nothing is that old
		cutoff := '-infinity';
	END;

	DELETE FROM mixdnn.plan_history h USING mixdnn.jobs j
		WHERE h.job_id = j.job_id AND j.status IN ('completed', 'failed', 'cancelled') AND j.finished_at < cutoff;
	GET DIAGNOSTICS plan_revisions = ROW_COUNT;
	-- A launch event stays, one per attempt, as the part it began does: it is
	-- when that part took its GPUs (mixdnn._launches, for utilization and
	-- the Gantt chart, which would show a purged window idle).
	DELETE FROM mixdnn.job_events e USING mixdnn.jobs j
		WHERE e.job_id = j.job_id AND j.status IN ('completed', 'failed', 'cancelled') AND j.finished_at < cutoff
		  AND e.new_status IS DISTINCT FROM 'launching';
	GET DIAGNOSTICS events = ROW_COUNT;
	-- A round some job's remaining plan revision names stays (the foreign key cascades).
	DELETE FROM mixdnn.rounds r
		WHERE r.at < cutoff AND NOT EXISTS (SELECT FROM mixdnn.plan_history h WHERE h.round_id = r.round_id);
	GET DIAGNOSTICS rounds = ROW_COUNT;
	RETURN NEXT;
END
$$;
COMMENT ON FUNCTION mixdnn.purge_history(interval) IS 'deletes the plan revisions and status events (but the launches) of jobs finished more than older_than ago (NULL: mixdnn.history_retention) and the rounds older than that no revision names; returns how many of each; the launch worker runs it hourly';
REVOKE ALL ON FUNCTION mixdnn.purge_history(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.purge_history(interval) TO mixdnn_admin;
