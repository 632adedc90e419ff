-- 99b_finish_row_first.sql — finish() locks the job's row before the
-- scheduler lock, without waiting (mixdnn._lock_job): waiting for a row its
-- owner held, it held the scheduler lock up to mixdnn.lock_timeout at each
-- of its launcher's retries.
-- Internal: locks a job's row for a launcher call, before the call takes
-- the scheduler lock and without waiting. Its owner may hold it (an open
-- cancel) for as long as she likes; a call that waited for it under the
-- scheduler lock held every round and launcher call up for
-- mixdnn.lock_timeout, at each of its launcher's retries. So a held row is
-- SQLSTATE 55P03 at once, which the launcher retries.
CREATE FUNCTION mixdnn._lock_job(job bigint, OUT job_id bigint, OUT status text, OUT attempt int)
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	SELECT jb.job_id, jb.status, jb.attempt INTO _lock_job.job_id, _lock_job.status, _lock_job.attempt
		FROM mixdnn.jobs jb WHERE jb.job_id = job FOR UPDATE SKIP LOCKED;
	IF FOUND THEN
		RETURN;
	END IF;
	IF EXISTS (SELECT FROM mixdnn.jobs jb WHERE jb.job_id = job) THEN
		RAISE EXCEPTION 'job % is locked by another transaction', job
			USING ERRCODE = 'lock_not_available',
				  DETAIL = 'Its owner may be cancelling or changing it; try again.';
	END IF;
	RAISE EXCEPTION 'job % does not exist', job
		USING ERRCODE = 'no_data_found';
END
$$;
COMMENT ON FUNCTION mixdnn._lock_job(bigint) IS 'internal: locks a job''s row without waiting (55P03 when another transaction holds it)';
REVOKE ALL ON FUNCTION mixdnn._lock_job(bigint) FROM PUBLIC;

CREATE OR REPLACE FUNCTION mixdnn.finish(job_id bigint, exit_code int, node text, attempt int DEFAULT NULL,
							  reason text DEFAULT NULL)
	RETURNS boolean
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	j		record;
BEGIN
	IF finish.job_id IS NULL OR finish.exit_code IS NULL THEN
		RAISE EXCEPTION 'job_id and exit_code must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	j := mixdnn._lock_job(finish.job_id);
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(finish.node);
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = mixdnn.now(), unreachable_since = NULL WHERE n.node = finish.node;

	-- Fencing: a stale attempt, a part this node did not claim, or a second
	-- report changes nothing.
	IF (finish.attempt IS NOT NULL AND finish.attempt <> j.attempt)
	   OR j.status NOT IN ('launching', 'running') THEN
		RETURN false;
	END IF;
	UPDATE mixdnn.job_parts p
		SET state = CASE WHEN finish.exit_code = 0 THEN 'completed' ELSE 'failed' END,
			finished_at = mixdnn.now(), exit_code = finish.exit_code
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = finish.node AND p.state = 'running';
	IF NOT FOUND THEN
		RETURN false;
	END IF;

	IF finish.exit_code <> 0 THEN
		-- One failed part fails the gang: the other nodes stop theirs.
		PERFORM pg_catalog.pg_notify('mixdnn_cancel',
				pg_catalog.format('{"job_id": %s, "node": %s}', p.job_id, pg_catalog.to_json(p.node)))
			FROM mixdnn.job_parts p
			WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state IN ('launching', 'running');
		UPDATE mixdnn.jobs jb
			SET status = 'failed', exit_code = finish.exit_code,
				reason = pg_catalog.concat(pg_catalog.format('exited with code %s on node %s', finish.exit_code, finish.node),
										   ': ' OPERATOR(pg_catalog.||) pg_catalog.left(finish.reason, 1000))
			WHERE jb.job_id = j.job_id;
	ELSIF NOT EXISTS (SELECT FROM mixdnn.job_parts p
					  WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state <> 'completed') THEN
		UPDATE mixdnn.jobs jb SET status = 'completed', exit_code = 0, reason = NULL
			WHERE jb.job_id = j.job_id;
	END IF;
	RETURN true;
END
$$;
COMMENT ON FUNCTION mixdnn.finish(bigint, int, text, int, text) IS 'launcher: reports the exit code of the job''s part on node (of attempt, when given; why it failed, when known); true if it counted, false for a stale attempt, an unclaimed part or a repeated report';

CREATE OR REPLACE FUNCTION mixdnn.finish(job_id bigint, exit_code int) RETURNS boolean
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	j		record;
	running	text[];
BEGIN
	IF finish.job_id IS NULL OR finish.exit_code IS NULL THEN
		RAISE EXCEPTION 'job_id and exit_code must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	j := mixdnn._lock_job(finish.job_id);
	PERFORM mixdnn._lock_scheduler_now();
	SELECT pg_catalog.array_agg(p.node) INTO running FROM mixdnn.job_parts p
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state = 'running';
	IF running IS NULL THEN
		RETURN false;
	END IF;
	IF pg_catalog.cardinality(running) > 1 THEN
		RAISE EXCEPTION 'job % runs on % nodes', j.job_id, pg_catalog.cardinality(running)
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Each node''s launcher reports with mixdnn.finish(job_id, exit_code, node).';
	END IF;
	RETURN mixdnn.finish(j.job_id, finish.exit_code, running[1], j.attempt);
END
$$;
COMMENT ON FUNCTION mixdnn.finish(bigint, int) IS 'reports the exit code of a job running on one node; false if it is not running';
