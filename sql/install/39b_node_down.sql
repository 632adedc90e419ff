-- 39b_node_down.sql — what happens to the jobs of a node that goes down:
-- the nodes' AFTER trigger function and the worker's sweep. Also the
-- upgrade piece 0.1.0--0.2.0/99zx (a link to this file), so that both
-- create the same functions (the trigger is 40_events.sql's).
--
-- A job's row may be held by its owner (an open cancel, SELECT ... FOR
-- UPDATE) for as long as she likes. The admin who sets the node down holds
-- the scheduler lock: waiting for that row would hold every round and
-- launcher call, and giving up after mixdnn.lock_timeout would keep the
-- node up until she let go. So a held job is left for the worker, which
-- re-queues it at its first cycle after the row is free, if the node is
-- still down then.

-- Re-queues (or, past mixdnn.max_retries, fails) the launching and running
-- jobs with a part on node, except those whose row another transaction
-- holds; returns how many it changed. The jobs' trigger
-- (mixdnn._job_after_write) stops their other parts and frees their GPUs.
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
			WHERE l.status IN ('launching', 'running')
			  AND EXISTS (SELECT FROM mixdnn.job_parts p
						  WHERE p.job_id = l.job_id AND p.attempt = l.attempt AND p.node = down_node
							AND p.state IN ('launching', 'running'))
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
		SELECT pg_catalog.string_agg(j.job_id::pg_catalog.text, ', ' ORDER BY j.job_id) INTO left_ids
			FROM mixdnn.jobs j
			WHERE j.status IN ('launching', 'running')
			  AND EXISTS (SELECT FROM mixdnn.job_parts p
						  WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = NEW.node
							AND p.state IN ('launching', 'running'));
		IF left_ids IS NOT NULL THEN
			RAISE NOTICE 'node % is down; jobs % are held by other transactions and are re-queued once they are free, if the node is still down then',
					NEW.node, left_ids
				USING HINT = 'The background worker looks at each cycle (mixdnn.worker_poll_interval); without it, an admin runs SELECT mixdnn._requeue_down_nodes().';
		END IF;
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._node_after_write() IS 'internal trigger: keeps mixdnn.gpus in step and re-queues the jobs of a node that goes down';

-- The worker's sweep: the jobs a node's going down left because their rows
-- were held then. Returns how many it re-queued or failed.
CREATE OR REPLACE FUNCTION mixdnn._requeue_down_nodes() RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	d		record;
	n		int := 0;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	FOR d IN
		SELECT g.node FROM mixdnn.gpu_nodes g
		WHERE g.status = 'down'
		  AND EXISTS (SELECT FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
					  WHERE p.node = g.node AND p.state IN ('launching', 'running')
						AND j.status IN ('launching', 'running'))
		ORDER BY g.node
	LOOP
		n := n + mixdnn._requeue_node_jobs(d.node);
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn._requeue_down_nodes() IS 'internal: re-queues or fails the live jobs of nodes that are down whose rows were held when the node went down; the background worker calls it';
REVOKE ALL ON FUNCTION mixdnn._requeue_down_nodes() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn._requeue_down_nodes() TO mixdnn_admin;
