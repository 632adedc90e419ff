-- 63_launcher_parts.sql — what a launcher learns of its node's parts:
-- claim_parts() (and claim(), the contract's), heartbeat_parts() (and
-- heartbeat()), node_parts(). Also the upgrade piece 0.1.0--0.2.0/99za (a
-- link to this file), after 99z has added job_parts.launch_token and
-- dropped the functions whose result changes; hence CREATE FUNCTION for
-- those and CREATE OR REPLACE for claim() and heartbeat(), whose results
-- stay as the contract names them.
--
-- Each launch of a part has a random launch_token (20_tables.sql). Job ids
-- and attempts are not enough to tell launches apart: a physical copy of
-- the cluster that lost the last transactions (a promoted standby, a
-- point-in-time recovery) keeps the installation id, and its next job
-- takes the id, attempt and node of a launch it forgot, whose process may
-- still run. The launcher keeps each part's token with its keeper, stops a
-- keeper whose token the node's parts do not list, and reports with it,
-- so that finish() counts a report only for the launch it is about
-- (docs/launcher.md, "Launch tokens").

CREATE FUNCTION mixdnn.claim_parts(node text)
	RETURNS TABLE (job_id bigint, name text, command text, gpu_indices int[], nodes text[],
				   node_rank int, world_gpus int, env jsonb,
				   workdir text, owner name, attempt int, launch_token uuid)
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	now_ts		timestamptz;
	claimed		bigint[];
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(claim_parts.node);
	now_ts := mixdnn.now();
	-- Any call from a launcher shows it is alive.
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = now_ts, unreachable_since = NULL WHERE n.node = claim_parts.node;

	-- Only the current attempt of a job that is still launching or running;
	-- one being cancelled right now is skipped, not waited for.
	WITH l AS (
		SELECT p.job_id, p.attempt FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
			WHERE p.node = claim_parts.node AND p.state = 'launching' AND j.status IN ('launching', 'running')
			ORDER BY p.job_id
			FOR NO KEY UPDATE OF p, j SKIP LOCKED),
	c AS (
		UPDATE mixdnn.job_parts p
			SET state = 'running', claimed_at = now_ts, lease_until = now_ts + mixdnn._lease()
			FROM l
			WHERE p.node = claim_parts.node AND p.job_id = l.job_id AND p.attempt = l.attempt
			RETURNING p.job_id)
	SELECT pg_catalog.array_agg(c.job_id ORDER BY c.job_id) INTO claimed FROM c;
	IF claimed IS NULL THEN
		RETURN;
	END IF;

	-- The first claimed part makes the job running: its process exists.
	UPDATE mixdnn.jobs j SET status = 'running'
		WHERE j.job_id = ANY (claimed) AND j.status = 'launching';

	-- The job's own env first: the launcher's names win (they are refused
	-- at INSERT anyway). MASTER_PORT comes from the lowest GPU the job holds
	-- on its master node: a GPU is held by one job at a time, and held until
	-- every process of its job has ended, so two jobs sharing a master node
	-- never get the same port (docs/launcher.md). CUDA numbers devices
	-- fastest first unless told otherwise, so CUDA_VISIBLE_DEVICES would not
	-- name the GPUs nvidia-smi (and gpu_holds) number in PCI bus order.
	RETURN QUERY
	SELECT j.job_id, j.name, j.command, x.gpu_indices, w.nodes, p.node_rank, w.world_gpus,
		   coalesce(j.env, '{}'::jsonb) OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
				'MASTER_ADDR', coalesce(m.address, m.node),
				'MASTER_PORT', (29500 + mp.port_gpu)::text,
				'RANK', p.node_rank::text,
				'LOCAL_RANK', '0',
				'WORLD_SIZE', pg_catalog.cardinality(w.nodes)::text,
				'NODE_RANK', p.node_rank::text,
				'CUDA_VISIBLE_DEVICES', pg_catalog.array_to_string(x.gpu_indices, ','),
				'CUDA_DEVICE_ORDER', 'PCI_BUS_ID',
				'MIXDNN_JOB_ID', j.job_id::text,
				'MIXDNN_ATTEMPT', j.attempt::text,
				'MIXDNN_NODE', p.node,
				'MIXDNN_NNODES', pg_catalog.cardinality(w.nodes)::text,
				'MIXDNN_WORLD_GPUS', w.world_gpus::text,
				'MIXDNN_LOCAL_GPUS', p.gpus::text,
				'MIXDNN_GPU_OFFSET', (SELECT coalesce(pg_catalog.sum(q.gpus), 0) FROM mixdnn.job_parts q
									  WHERE q.job_id = p.job_id AND q.attempt = p.attempt
										AND q.node_rank < p.node_rank)::text),
		   j.workdir, j.owner, j.attempt, p.launch_token
	FROM mixdnn.job_parts p
	JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
	CROSS JOIN LATERAL (
		SELECT pg_catalog.array_agg(q.node ORDER BY q.node_rank) AS nodes,
			   pg_catalog.sum(q.gpus)::int AS world_gpus,
			   (pg_catalog.array_agg(q.node ORDER BY q.node_rank))[1] AS master
		FROM mixdnn.job_parts q WHERE q.job_id = p.job_id AND q.attempt = p.attempt) w
	JOIN mixdnn.gpu_nodes m ON m.node = w.master
	CROSS JOIN LATERAL (
		SELECT coalesce(pg_catalog.array_agg(h.gpu_index ORDER BY h.gpu_index), '{}') AS gpu_indices
		FROM mixdnn.gpu_holds h WHERE h.job_id = p.job_id AND h.node = p.node) x
	CROSS JOIN LATERAL (
		SELECT coalesce(pg_catalog.min(h.gpu_index), 0) AS port_gpu
		FROM mixdnn.gpu_holds h WHERE h.job_id = p.job_id AND h.node = w.master) mp
	WHERE p.node = claim_parts.node AND p.job_id = ANY (claimed)
	ORDER BY j.job_id;
END
$$;
COMMENT ON FUNCTION mixdnn.claim_parts(text) IS 'launcher: claim(node), and each part''s launch_token, which the launcher keeps with the part and reports with';

-- The contract's claim (§5), its columns as they were: the reference
-- launcher calls claim_parts().
CREATE OR REPLACE FUNCTION mixdnn.claim(node text)
	RETURNS TABLE (job_id bigint, name text, command text, gpu_indices int[], nodes text[],
				   node_rank int, world_gpus int, env jsonb,
				   workdir text, owner name, attempt int)
	LANGUAGE sql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT c.job_id, c.name, c.command, c.gpu_indices, c.nodes, c.node_rank, c.world_gpus, c.env,
		   c.workdir, c.owner, c.attempt
	FROM mixdnn.claim_parts(claim.node) c
	$$;
COMMENT ON FUNCTION mixdnn.claim(text) IS 'launcher: takes the node''s launching parts (current attempts only), marks them and their jobs running, renews their leases and returns what to run with its environment';

CREATE FUNCTION mixdnn.heartbeat_parts(node text)
	RETURNS TABLE (job_id bigint, attempt int, renewed boolean, launch_token uuid)
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	now_ts	timestamptz;
BEGIN
	-- No scheduler lock: it changes no job, and must not wait behind anyone.
	PERFORM mixdnn._bound_lock_waits();
	PERFORM mixdnn._check_node(heartbeat_parts.node);
	now_ts := mixdnn.now();

	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = now_ts, unreachable_since = NULL WHERE n.node = heartbeat_parts.node;

	-- Only claimed parts: a launching part must be claimed before its lease ends.
	-- A part whose row someone holds locked (a cancel under way, or a
	-- user's open transaction on the job) is listed but not waited for,
	-- and not renewed: renewed tells the
	-- launcher which keepers may run on (docs/launcher.md, "No part
	-- outlives its lease").
	RETURN QUERY
	WITH held AS (
		SELECT p.job_id, p.attempt, p.launch_token FROM mixdnn.job_parts p
			JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE p.node = heartbeat_parts.node AND p.state = 'running' AND j.status IN ('launching', 'running')
	), renew AS (
		UPDATE mixdnn.job_parts p SET lease_until = now_ts + mixdnn._lease()
			WHERE (p.job_id, p.attempt, p.node) IN (
				SELECT q.job_id, q.attempt, q.node FROM mixdnn.job_parts q
					WHERE q.node = heartbeat_parts.node AND q.state = 'running'
					FOR NO KEY UPDATE OF q SKIP LOCKED)
			  AND EXISTS (SELECT FROM mixdnn.jobs j
						  WHERE j.job_id = p.job_id AND j.attempt = p.attempt AND j.status IN ('launching', 'running'))
		RETURNING p.job_id, p.attempt
	)
	SELECT h.job_id, h.attempt, r.job_id IS NOT NULL, h.launch_token
	FROM held h LEFT JOIN renew r ON r.job_id = h.job_id AND r.attempt = h.attempt
	ORDER BY h.job_id, h.attempt;
END
$$;
COMMENT ON FUNCTION mixdnn.heartbeat_parts(text) IS 'launcher: renews the node''s last_heartbeat and the leases of the parts it runs; returns those parts (with their launch tokens), renewed false where a lock held the lease back';

CREATE OR REPLACE FUNCTION mixdnn.heartbeat(node text) RETURNS int
	LANGUAGE sql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT pg_catalog.count(*)::int FROM mixdnn.heartbeat_parts(heartbeat.node) $$;
COMMENT ON FUNCTION mixdnn.heartbeat(text) IS 'launcher: renews the node''s last_heartbeat and the leases of the parts it runs; returns how many parts it runs';

CREATE FUNCTION mixdnn.node_parts(node text)
	RETURNS TABLE (job_id bigint, attempt int, state text, gpus text, launch_token uuid)
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
			FROM mixdnn.gpu_holds h WHERE h.job_id = p.job_id AND h.node = p.node),
		   p.launch_token
	FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
	WHERE p.node = node_parts.node AND p.state IN ('launching', 'running')
	  AND j.status IN ('launching', 'running')
	ORDER BY p.job_id;
END
$$;
COMMENT ON FUNCTION mixdnn.node_parts(text) IS 'launcher: the parts the node should be running now (job, attempt, its GPU indices, launch token); a launcher stops any process not listed';

REVOKE ALL ON FUNCTION mixdnn.claim_parts(text), mixdnn.claim(text), mixdnn.heartbeat_parts(text), mixdnn.heartbeat(text),
	mixdnn.node_parts(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.claim_parts(text), mixdnn.claim(text), mixdnn.heartbeat_parts(text), mixdnn.heartbeat(text),
	mixdnn.node_parts(text) TO mixdnn_launcher;
