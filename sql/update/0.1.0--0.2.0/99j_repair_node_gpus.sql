-- 99j_repair_node_gpus.sql — mixdnn._repair() (the worker's, at its start
-- and after a data load) gives every node its GPUs 0 .. gpus - 1: a load
-- skips the node trigger that keeps mixdnn.gpus, and a node without its
-- GPU rows failed every launch of the database (an operations review).
CREATE OR REPLACE FUNCTION mixdnn._repair() RETURNS int
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
