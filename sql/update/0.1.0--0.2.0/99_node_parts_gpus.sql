-- 99_node_parts_gpus.sql — node_parts also names each part's GPUs, so that
-- a launcher that adopts a part after a restart knows what it holds. The
-- result type changes: dropped and made again, with its grant.
DROP FUNCTION mixdnn.node_parts(text);
CREATE FUNCTION mixdnn.node_parts(node text)
	RETURNS TABLE (job_id bigint, attempt int, state text, gpus text)
	LANGUAGE plpgsql STABLE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
BEGIN
	PERFORM mixdnn._check_node(node_parts.node);
	-- gpus: a launcher that adopts a part learns from here which GPUs it holds
	RETURN QUERY
	SELECT p.job_id, p.attempt, p.state,
		   (SELECT pg_catalog.string_agg(h.gpu_index::text, ',' ORDER BY h.gpu_index)
			FROM mixdnn.gpu_holds h WHERE h.job_id = p.job_id AND h.node = p.node)
	FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
	WHERE p.node = node_parts.node AND p.state IN ('launching', 'running')
	  AND j.status IN ('launching', 'running')
	ORDER BY p.job_id;
END
$$;
COMMENT ON FUNCTION mixdnn.node_parts(text) IS 'launcher: the parts the node should be running now (job, attempt, its GPU indices); a launcher stops any process not listed';
REVOKE ALL ON FUNCTION mixdnn.node_parts(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.node_parts(text) TO mixdnn_launcher;
