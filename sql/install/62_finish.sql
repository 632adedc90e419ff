-- 62_finish.sql — the launchers' report of a part's end. Also the upgrade
-- piece 0.1.0--0.2.0/99q (a link to this file), so that both create the
-- same functions; hence CREATE OR REPLACE (0.1.0 has them).
--
-- The scheduler lock first, then the node's row, then the job's row
-- without waiting (mixdnn._lock_job), the order of everything else that
-- takes them (claim(), expire_leases(), a change to a node, which
-- re-queues its running jobs). The job's row first deadlocked with an
-- admin setting the node down (it holds the scheduler lock, or in
-- plan_mode = worker the node's row, and waits for the rows of the jobs
-- it re-queues): the detector aborted one of them a second later, and a
-- part's exit 0 reported after the re-queue was stale, so the job ran
-- again (e2e 28_finish_node_down, both modes; the soak found it).
--
-- The reference launcher reports with the part's launch_token (it came
-- with the claim, 63_launcher_parts.sql): a report of a launch the
-- database does not list for the node, say a process of a launch that a
-- restored copy of the cluster forgot, whose job id, attempt and node a
-- new job has taken since, counts for nothing (false), and a report of a
-- job that does not exist is just as stale (false, not no_data_found,
-- which the launcher retried without end). The 5-argument finish of
-- 0.1.0 is this one without the token (99z drops it).

CREATE OR REPLACE FUNCTION mixdnn.finish(job_id bigint, exit_code int, node text, attempt int DEFAULT NULL,
							  reason text DEFAULT NULL, launch_token uuid DEFAULT NULL)
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
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(finish.node);
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = mixdnn.now(), unreachable_since = NULL WHERE n.node = finish.node;
	-- Fencing by launch: not this launch's part (another launch took the
	-- job id, or no job has it).
	IF finish.launch_token IS NOT NULL
	   AND NOT EXISTS (SELECT FROM mixdnn.job_parts p
					   WHERE p.job_id = finish.job_id AND p.node = finish.node
						 AND p.launch_token = finish.launch_token) THEN
		RETURN false;
	END IF;
	j := mixdnn._lock_job(finish.job_id);

	-- Fencing: a stale attempt, a part this node did not claim, or a second
	-- report changes nothing.
	IF (finish.attempt IS NOT NULL AND finish.attempt <> j.attempt)
	   OR j.status NOT IN ('launching', 'running') THEN
		RETURN false;
	END IF;
	UPDATE mixdnn.job_parts p
		SET state = CASE WHEN finish.exit_code = 0 THEN 'completed' ELSE 'failed' END,
			finished_at = mixdnn.now(), exit_code = finish.exit_code
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = finish.node AND p.state = 'running'
		  AND (finish.launch_token IS NULL OR p.launch_token = finish.launch_token);
	IF NOT FOUND THEN
		RETURN false;
	END IF;

	IF finish.exit_code <> 0 THEN
		-- One failed part fails the gang: the jobs' trigger
		-- (mixdnn._job_after_write) tells the other nodes to stop theirs.
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
COMMENT ON FUNCTION mixdnn.finish(bigint, int, text, int, text, uuid) IS 'launcher: reports the exit code of the job''s part on node (of attempt, and of the launch with launch_token, when given; why it failed, when known); true if it counted, false for a stale attempt, another launch, an unclaimed part or a repeated report';

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
	PERFORM mixdnn._lock_scheduler_now();
	-- Read, not locked: the report below locks the node's row, then the
	-- job's, and checks the attempt again under that lock.
	SELECT jb.job_id, jb.attempt INTO j FROM mixdnn.jobs jb WHERE jb.job_id = finish.job_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', finish.job_id
			USING ERRCODE = 'no_data_found';
	END IF;
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

REVOKE ALL ON FUNCTION mixdnn.finish(bigint, int, text, int, text, uuid), mixdnn.finish(bigint, int) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.finish(bigint, int, text, int, text, uuid), mixdnn.finish(bigint, int) TO mixdnn_launcher;
GRANT EXECUTE ON FUNCTION mixdnn.finish(bigint, int) TO mixdnn_admin;
