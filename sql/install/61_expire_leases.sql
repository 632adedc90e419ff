-- 61_expire_leases.sql — mixdnn.expire_leases(), which the launch worker
-- calls at each cycle: the jobs whose part's lease ran out are re-queued
-- (or failed), and their nodes marked unreachable. Also the upgrade piece
-- 0.1.0--0.2.0/99zt (a link to this file); hence CREATE OR REPLACE (0.1.0
-- has the function).

CREATE OR REPLACE FUNCTION mixdnn.expire_leases() RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r		record;
	n		int := 0;
	now_ts	timestamptz;
	lost	boolean;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	now_ts := mixdnn.now();
	FOR r IN
		SELECT p.job_id, pg_catalog.array_agg(p.node ORDER BY p.node_rank) AS nodes,
			   pg_catalog.bool_and(p.state = 'launching') AS unclaimed
		FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE p.state IN ('launching', 'running') AND p.lease_until < now_ts
		  AND j.status IN ('launching', 'running')
		GROUP BY p.job_id
		ORDER BY p.job_id
	LOOP
		-- The nodes' rows before the job's, the order of finish() and of a
		-- change to a node (62_finish.sql).
		PERFORM FROM mixdnn.gpu_nodes g WHERE g.node = ANY (r.nodes) AND g.unreachable_since IS NULL
			FOR NO KEY UPDATE;
		lost := mixdnn._lose_job(r.job_id, r.nodes,
				CASE WHEN r.unclaimed
					 THEN pg_catalog.format('no launcher claimed it on node %s in time',
											pg_catalog.array_to_string(r.nodes, ', '))
					 ELSE pg_catalog.format('launcher of node %s stopped heartbeating',
											pg_catalog.array_to_string(r.nodes, ', ')) END);
		-- Its launcher is gone, or claims nothing: the node takes no new
		-- jobs until it calls again. Not a node whose launcher called
		-- within the lease and had claimed the part: a lease that ran out
		-- there says nothing of the launcher (its owner's open cancel held
		-- the part's row, so the heartbeat could not renew it), and a node
		-- marked for it would keep every other job off its free GPUs.
		UPDATE mixdnn.gpu_nodes g SET unreachable_since = now_ts
			WHERE g.node = ANY (r.nodes) AND g.unreachable_since IS NULL
			  AND (r.unclaimed OR g.last_heartbeat IS NULL OR g.last_heartbeat < now_ts - mixdnn._lease());
		IF lost THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn.expire_leases() IS 're-queues (or, past mixdnn.max_retries, fails) the jobs with a part whose lease ran out; returns how many; the background worker calls it';
REVOKE ALL ON FUNCTION mixdnn.expire_leases() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.expire_leases() TO mixdnn_admin;
