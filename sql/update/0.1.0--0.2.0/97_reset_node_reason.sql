-- 97_reset_node_reason.sql — reset_node(node, job) says why the part is
-- gone: a launcher also calls it when its keeper killed a part whose lease
-- ran out, so "launcher restarted" is not always true.
CREATE OR REPLACE FUNCTION mixdnn.reset_node(node text, job_id bigint DEFAULT NULL) RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	r		record;
	n		int := 0;
	-- with a job: the launcher's reconciliation found the part gone, after
	-- its own restart, a claim whose answer it lost, or its keeper killing
	-- the part on the lease
	reason	text := CASE WHEN reset_node.job_id IS NULL
						 THEN pg_catalog.format('launcher of node %s restarted', reset_node.node)
						 ELSE pg_catalog.format('node %s no longer runs it (its launcher restarted or lost the answer to its claim, or the part''s lease ran out)',
											reset_node.node)
					END;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(reset_node.node);
	FOR r IN
		SELECT p.job_id FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE p.node = reset_node.node AND p.state = 'running' AND j.status IN ('launching', 'running')
		  AND (reset_node.job_id IS NULL OR p.job_id = reset_node.job_id)
		ORDER BY p.job_id
	LOOP
		IF mixdnn._lose_job(r.job_id, ARRAY[reset_node.node], reason) THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn.reset_node(text, bigint) IS 'launcher: the parts the node claimed (of job_id only, when given) and no longer runs are lost at once, as if their lease had expired; a launcher calls it for each part it claimed and does not run; returns how many jobs';
