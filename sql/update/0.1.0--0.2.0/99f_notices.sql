-- 99f_notices.sql — the launchers' notifications leave the transactions
-- that hold the scheduler lock: a launch, a round at commit, a cancel, a
-- lost or failed part queue a row of mixdnn.notices, which the launch
-- worker sends from a transaction of its own (src/pg/notices.c). Any
-- role's large NOTIFY held PostgreSQL's queue lock for seconds, and the
-- scheduler lock with it; a full queue failed every launch.

-- The launchers' notifications (mixdnn_launch, mixdnn_cancel), written as
-- rows with the change they announce and sent by the launch worker from a
-- transaction of its own (src/pg/notices.c): PostgreSQL queues NOTIFYs at
-- commit under one lock for the whole server, which any role's large
-- NOTIFY holds for seconds, and a transaction holding the scheduler lock
-- must not wait for it. Only the extension's owner reads or writes it; a
-- dump leaves it out (notices hurry launchers, which poll).
CREATE TABLE mixdnn.notices (
	notice_id	bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel		text NOT NULL CHECK (channel IN ('mixdnn_launch', 'mixdnn_cancel')),
	payload		text NOT NULL
);
COMMENT ON TABLE mixdnn.notices IS 'internal: launcher notifications the launch worker sends after the commit that queued them';
REVOKE ALL ON mixdnn.notices FROM PUBLIC;

-- A notice, queued for the worker (or sent at commit where no worker
-- serves the database; dropped while PostgreSQL's queue is half full).
CREATE FUNCTION mixdnn._queue_notice(channel text, payload text) RETURNS void
	AS 'MODULE_PATHNAME', 'mixdnn_queue_notice'
	LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mixdnn._queue_notice(text, text) IS 'internal: queues a launcher notification for the launch worker';
REVOKE ALL ON FUNCTION mixdnn._queue_notice(text, text) FROM PUBLIC;

-- mixdnn._job_after_write() sends its cancel notices through _queue_notice:
-- piece 99v (39_job_after_write.sql) replaces it.

CREATE OR REPLACE FUNCTION mixdnn._lose_job(job bigint, lost_nodes text[], what text) RETURNS boolean
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	j		record;
	retries	int := coalesce(nullif(pg_catalog.current_setting('mixdnn.max_retries', true), '')::int, 3);
BEGIN
	SELECT jb.job_id, jb.status, jb.attempt INTO j FROM mixdnn.jobs jb WHERE jb.job_id = job FOR UPDATE SKIP LOCKED;
	IF NOT FOUND OR j.status NOT IN ('launching', 'running') THEN
		RETURN false;
	END IF;

	UPDATE mixdnn.job_parts p SET state = 'lost', finished_at = mixdnn.now()
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = ANY (lost_nodes)
		  AND p.state IN ('launching', 'running');

	-- The jobs' trigger (mixdnn._job_after_write) tells the nodes still
	-- running the job's parts to stop them.
	UPDATE mixdnn.jobs jb
		SET status = CASE WHEN j.attempt <= retries THEN 'planned' ELSE 'failed' END,
			reason = CASE WHEN j.attempt <= retries
						  THEN pg_catalog.format('%s; re-queued after attempt %s', what, j.attempt)
						  ELSE pg_catalog.format('%s; failed after %s attempts', what, j.attempt) END
		WHERE jb.job_id = j.job_id;
	RETURN true;
END
$$;
COMMENT ON FUNCTION mixdnn._lose_job(bigint, text[], text) IS 'internal: marks a job''s parts on the given nodes lost and re-queues or fails the job';

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
		PERFORM mixdnn._queue_notice('mixdnn_cancel',
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
