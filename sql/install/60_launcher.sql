-- The launcher protocol (contract §5, docs/launcher.md): what launchers call,
-- lease expiry, and the background worker's start-up repair.
--
-- Every function runs as the extension's owner, a superuser, because the
-- status changes it makes are the scheduler's ('system' in
-- mixdnn.status_transitions), with search_path = pg_catalog, pg_temp. Each
-- that changes job state takes the scheduler lock before it reads or writes
-- a row; every lock wait lasts at most mixdnn.lock_timeout (then SQLSTATE
-- 55P03, which the launcher retries), and rows a user's open transaction
-- holds are skipped where waiting would hold up other jobs (docs/design.md,
-- "Concurrency").

-- Internal: the lease a claim or heartbeat grants, in C so that the
-- setting's default is written once (src/pg/guc.c) and a backend that has
-- not loaded the library yet gets the same lease as launch_due().
CREATE FUNCTION mixdnn._lease() RETURNS interval
	AS 'MODULE_PATHNAME', 'mixdnn_lease'
	LANGUAGE C STABLE;
COMMENT ON FUNCTION mixdnn._lease() IS 'internal: the setting mixdnn.lease_timeout as an interval';

-- Internal: a launcher names a registered node, never NULL.
CREATE FUNCTION mixdnn._check_node(node text) RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF node IS NULL THEN
		RAISE EXCEPTION 'node must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF NOT EXISTS (SELECT FROM mixdnn.gpu_nodes n WHERE n.node = _check_node.node) THEN
		RAISE EXCEPTION 'unknown node "%"', node
			USING ERRCODE = 'undefined_object',
				  HINT = 'Registered nodes are listed in mixdnn.gpu_nodes; start the launcher with --node set to one of them.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_node(text) IS 'internal: raises unless node names a registered GPU node';

-- Internal: a job lost the parts on lost_nodes (lease expired, launcher
-- restarted, crash). Those parts become 'lost', the job's other nodes are
-- told to stop, and the job is re-queued while retries remain, else failed.
-- Its attempt is kept: the next launch takes the next one. The caller holds
-- the scheduler lock. A job whose row another transaction holds (its owner
-- cancelling it) is left alone: false, and the next call looks again.
CREATE FUNCTION mixdnn._lose_job(job bigint, lost_nodes text[], what text) RETURNS boolean
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

-- Internal: locks a job's row for a launcher call, after the call took
-- the scheduler lock, without waiting. Its owner may hold it (an open
-- cancel) for as long as she likes; a call that waited for it under the
-- scheduler lock held every round and launcher call up for
-- mixdnn.lock_timeout, at each of its launcher's retries. So a held row is
-- SQLSTATE 55P03 at once, which the launcher retries. (Taken before the
-- scheduler lock, it deadlocked with what takes that lock and then job
-- rows: an admin setting the node down; 62_finish.sql.)
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

-- One launcher per node, with a lock only the extension's C code can take
-- (src/pg/lock.c): an outsider cannot hold it to keep a launcher out.
CREATE FUNCTION mixdnn.lock_node(node text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'mixdnn_lock_node'
	LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION mixdnn.lock_node(text) IS 'launcher: takes the session lock that makes this session the only launcher of node; false if another session holds it';

-- Internal, for the background worker: when it must look again.
CREATE FUNCTION mixdnn._next_wakeup() RETURNS timestamptz
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT LEAST(
		(SELECT pg_catalog.min(j.planned_start) FROM mixdnn.jobs j WHERE j.status = 'planned'),
		(SELECT pg_catalog.min(p.lease_until)
		 FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		 WHERE p.state IN ('launching', 'running') AND j.status IN ('launching', 'running')))
	$$;
COMMENT ON FUNCTION mixdnn._next_wakeup() IS 'internal: the earliest planned start or lease end, when the worker must act next';

-- Internal, for the background worker at start-up: undo what a crash may
-- have left inconsistent, and give launchers one lease to come back after a
-- server restart before their jobs are declared lost.
CREATE FUNCTION mixdnn._repair() RETURNS int
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	fixed	int := 0;
	k		int;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();

	-- Every node has its GPUs 0 .. gpus - 1: a data load (a restore, or a
	-- superuser's COPY with row_security off) skips the node trigger that
	-- keeps them, and one node's missing GPU failed every launch.
	INSERT INTO mixdnn.gpus (node, gpu_index)
		SELECT n.node, i FROM mixdnn.gpu_nodes n, pg_catalog.generate_series(0, n.gpus - 1) i
		ON CONFLICT DO NOTHING;
	GET DIAGNOSTICS k = ROW_COUNT;
	fixed := fixed + k;
	DELETE FROM mixdnn.gpus g USING mixdnn.gpu_nodes n
		WHERE g.node = n.node AND g.gpu_index >= n.gpus
		  AND NOT EXISTS (SELECT FROM mixdnn.gpu_holds h WHERE h.node = g.node AND h.gpu_index = g.gpu_index);
	GET DIAGNOSTICS k = ROW_COUNT;
	fixed := fixed + k;

	DELETE FROM mixdnn.gpu_holds h
		WHERE NOT EXISTS (SELECT FROM mixdnn.jobs j
						  WHERE j.job_id = h.job_id AND j.status IN ('launching', 'running'));
	GET DIAGNOSTICS k = ROW_COUNT;
	fixed := fixed + k;

	UPDATE mixdnn.job_parts p SET state = 'lost', finished_at = coalesce(p.finished_at, mixdnn.now())
		WHERE p.state IN ('launching', 'running')
		  AND NOT EXISTS (SELECT FROM mixdnn.jobs j
						  WHERE j.job_id = p.job_id AND j.attempt = p.attempt
							AND j.status IN ('launching', 'running'));
	GET DIAGNOSTICS k = ROW_COUNT;
	fixed := fixed + k;

	-- The half-launched jobs: mixdnn._lose_half_launched(), which the
	-- worker calls after this in the same transaction.
	RETURN fixed;
END
$$;
COMMENT ON FUNCTION mixdnn._repair() IS 'internal: background worker start-up repair of half-done launches';

REVOKE ALL ON FUNCTION mixdnn._lease(), mixdnn._check_node(text), mixdnn._lose_job(bigint, text[], text), mixdnn._lock_job(bigint),
	mixdnn._next_wakeup(), mixdnn._repair(), mixdnn.lock_node(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.lock_node(text) TO mixdnn_launcher;
-- mixdnn.expire_leases(): 61_expire_leases.sql.
