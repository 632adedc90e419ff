-- Operating the extension (docs/operations.md): what pg_dump saves, the
-- guard on DROP EXTENSION, history retention, and the preload check.

-- pg_dump saves the rows of these tables and the values of these
-- sequences; a restore loads them back as they were (25_restore.sql), in
-- the order of their foreign keys. Not dumped: mixdnn.status_transitions,
-- the version's rules, which the install script writes.
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_types', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_nodes', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpus', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.profiles', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_parts', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_holds', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.rounds', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.plan_history', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_events', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.jobs_job_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.rounds_round_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_events_event_id_seq', '');

-- DROP EXTENSION mixdnn while jobs run is refused (src/pg/dropguard.c).
CREATE FUNCTION mixdnn._guard_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'mixdnn_guard_drop'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._guard_drop() IS 'internal event trigger: refuses DROP EXTENSION mixdnn or DROP SCHEMA mixdnn while jobs are launching or running, unless mixdnn.force_drop is on';
REVOKE ALL ON FUNCTION mixdnn._guard_drop() FROM PUBLIC;

CREATE EVENT TRIGGER mixdnn_guard_drop ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
	EXECUTE FUNCTION mixdnn._guard_drop();
COMMENT ON EVENT TRIGGER mixdnn_guard_drop IS 'refuses to drop mixdnn while jobs are launching or running';

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
	cutoff := mixdnn.now() - keep;

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
