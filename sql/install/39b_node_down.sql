-- 39b_node_down.sql — what happens to the jobs of a node that goes down:
-- the nodes' AFTER trigger function and the worker's sweep,
-- mixdnn.requeue_down_nodes(). Also the upgrade piece 0.1.0--0.2.0/99zx (a
-- link to this file), so that both create the same functions (the trigger
-- is 40_events.sql's).
--
-- A job's row may be held by its owner (an open cancel, SELECT ... FOR
-- UPDATE) for as long as she likes. The admin who sets the node down holds
-- the scheduler lock: waiting for that row would hold every round and
-- launcher call, and giving up after mixdnn.lock_timeout would keep the
-- node up until she let go. So a held job is left for the worker, which
-- re-queues it at its first cycle after the row is free, if the node is
-- still down then.

-- The launching and running jobs with a live part of their current attempt
-- on node: what cannot go on when the node is down.
CREATE OR REPLACE FUNCTION mixdnn._node_live_jobs(on_node text) RETURNS SETOF bigint
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT j.job_id FROM mixdnn.jobs j
	WHERE j.status IN ('launching', 'running')
	  AND EXISTS (SELECT FROM mixdnn.job_parts p
				  WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = on_node
					AND p.state IN ('launching', 'running'))
	$$;
COMMENT ON FUNCTION mixdnn._node_live_jobs(text) IS 'internal: the launching and running jobs with a live part on the node';
REVOKE ALL ON FUNCTION mixdnn._node_live_jobs(text) FROM PUBLIC;

-- Re-queues (or, past mixdnn.max_retries, fails) the live jobs of node,
-- except those whose row another transaction holds; returns how many it
-- changed. The jobs' trigger (mixdnn._job_after_write) stops their other
-- parts and frees their GPUs.
CREATE OR REPLACE FUNCTION mixdnn._requeue_node_jobs(down_node text) RETURNS int
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	retries	int := coalesce(nullif(pg_catalog.current_setting('mixdnn.max_retries', true), '')::int, 3);
	n		int;
BEGIN
	UPDATE mixdnn.jobs j
		SET status = CASE WHEN j.attempt <= retries THEN 'planned' ELSE 'failed' END,
			reason = CASE WHEN j.attempt <= retries
						  THEN pg_catalog.format('node %s went down; re-queued after attempt %s', down_node, j.attempt)
						  ELSE pg_catalog.format('node %s went down; failed after %s attempts', down_node, j.attempt) END
		WHERE j.job_id IN (
			SELECT l.job_id FROM mixdnn.jobs l
			WHERE l.job_id IN (SELECT mixdnn._node_live_jobs(down_node))
			ORDER BY l.job_id
			FOR UPDATE OF l SKIP LOCKED);
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn._requeue_node_jobs(text) IS 'internal: re-queues or fails the live jobs of a node that is down, skipping rows another transaction holds';
REVOKE ALL ON FUNCTION mixdnn._requeue_node_jobs(text) FROM PUBLIC;

-- Keeps mixdnn.gpus in step with gpu_nodes, and deals with a node that goes down.
CREATE OR REPLACE FUNCTION mixdnn._node_after_write() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	held	record;
	n_left	bigint;
	left_ids text;
BEGIN
	IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.gpus > OLD.gpus) THEN
		INSERT INTO mixdnn.gpus (node, gpu_index)
			SELECT NEW.node, i FROM pg_catalog.generate_series(CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE OLD.gpus END,
															   NEW.gpus - 1) i;
	ELSIF TG_OP = 'UPDATE' AND NEW.gpus < OLD.gpus THEN
		SELECT h.gpu_index, h.job_id INTO held FROM mixdnn.gpu_holds h
			WHERE h.node = NEW.node AND h.gpu_index >= NEW.gpus LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'node % cannot shrink to % GPUs: GPU % is held by job %',
					NEW.node, NEW.gpus, held.gpu_index, held.job_id
				USING ERRCODE = 'object_in_use',
					  HINT = 'Drain the node and wait for its jobs to finish first.';
		END IF;
		DELETE FROM mixdnn.gpus g WHERE g.node = NEW.node AND g.gpu_index >= NEW.gpus;
	END IF;

	IF TG_OP = 'UPDATE' AND NEW.status = 'down' AND OLD.status <> 'down' THEN
		-- Its jobs cannot go on: re-queue them while retries remain.
		PERFORM mixdnn._requeue_node_jobs(NEW.node);
		SELECT pg_catalog.count(*), pg_catalog.string_agg(l::pg_catalog.text, ', ' ORDER BY l) INTO n_left, left_ids
			FROM mixdnn._node_live_jobs(NEW.node) l;
		IF n_left > 0 THEN
			RAISE NOTICE 'node % is down; %', NEW.node,
					CASE WHEN n_left = 1
						 THEN pg_catalog.format('job %s is held by another transaction: it is re-queued (or failed, past mixdnn.max_retries) once free, if the node is still down then', left_ids)
						 ELSE pg_catalog.format('jobs %s are held by other transactions: each is re-queued (or failed, past mixdnn.max_retries) once free, if the node is still down then', left_ids) END
				USING HINT = 'The background worker looks at each cycle (mixdnn.worker_poll_interval); without it, an admin runs SELECT mixdnn.requeue_down_nodes().';
		END IF;
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._node_after_write() IS 'internal trigger: keeps mixdnn.gpus in step and re-queues the jobs of a node that goes down';

-- The worker's sweep: the jobs a node's going down left because their rows
-- were held then. Returns how many it re-queued or failed. The unlocked
-- look first: most calls find nothing, and need not take the scheduler lock.
CREATE OR REPLACE FUNCTION mixdnn.requeue_down_nodes() RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d		record;
	n		int := 0;
BEGIN
	IF NOT EXISTS (SELECT FROM mixdnn.gpu_nodes g
				   WHERE g.status = 'down' AND EXISTS (SELECT FROM mixdnn._node_live_jobs(g.node))) THEN
		RETURN 0;
	END IF;
	PERFORM mixdnn._lock_scheduler_now();
	FOR d IN
		SELECT g.node FROM mixdnn.gpu_nodes g
		WHERE g.status = 'down' AND EXISTS (SELECT FROM mixdnn._node_live_jobs(g.node))
		ORDER BY g.node
	LOOP
		n := n + mixdnn._requeue_node_jobs(d.node);
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn.requeue_down_nodes() IS 're-queues (or, past mixdnn.max_retries, fails) the live jobs of nodes that are down whose rows another transaction held when the node went down; returns how many; the background worker calls it at each cycle';
REVOKE ALL ON FUNCTION mixdnn.requeue_down_nodes() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.requeue_down_nodes() TO mixdnn_admin;
