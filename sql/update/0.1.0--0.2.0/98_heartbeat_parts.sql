-- 98_heartbeat_parts.sql — the heartbeat says which parts it renewed, so
-- that a launcher renews only those keepers' leases; heartbeat(node) keeps
-- its count, and its grants.
CREATE FUNCTION mixdnn.heartbeat_parts(node text)
	RETURNS TABLE (job_id bigint, attempt int, renewed boolean)
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
		SELECT p.job_id, p.attempt FROM mixdnn.job_parts p
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
	SELECT h.job_id, h.attempt, r.job_id IS NOT NULL
	FROM held h LEFT JOIN renew r ON r.job_id = h.job_id AND r.attempt = h.attempt
	ORDER BY h.job_id, h.attempt;
END
$$;
COMMENT ON FUNCTION mixdnn.heartbeat_parts(text) IS 'launcher: renews the node''s last_heartbeat and the leases of the parts it runs; returns those parts, renewed false where a lock held the lease back';

CREATE OR REPLACE FUNCTION mixdnn.heartbeat(node text) RETURNS int
	LANGUAGE sql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$ SELECT pg_catalog.count(*)::int FROM mixdnn.heartbeat_parts(heartbeat.node) $$;
COMMENT ON FUNCTION mixdnn.heartbeat(text) IS 'launcher: renews the node''s last_heartbeat and the leases of the parts it runs; returns how many parts it runs';

REVOKE ALL ON FUNCTION mixdnn.heartbeat_parts(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.heartbeat_parts(text) TO mixdnn_launcher;
