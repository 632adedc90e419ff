-- 62_half_launched.sql — the repair of jobs active without their GPUs or
-- parts (a data load, a crash between the writes of an earlier version).
-- mixdnn._lose_job() leaves a job whose row another transaction holds (its
-- owner's open update, say) for the next call; when this was a loop in
-- mixdnn._repair(), which the worker runs only at its start and after a
-- load, such a job stayed half-launched until the worker's next start. The
-- worker calls this after every repair, and again at each cycle while a
-- job was left. Also the upgrade piece 0.1.0--0.2.0/99t (a link to this
-- file).
CREATE FUNCTION mixdnn._lose_half_launched(OUT lost int, OUT held int)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r		record;
BEGIN
	lost := 0;
	held := 0;
	PERFORM mixdnn._lock_scheduler_now();
	-- An active job needs its GPUs and a part on every node it holds GPUs
	-- on; a part that completed keeps its GPUs until the whole job ends.
	FOR r IN
		SELECT j.job_id FROM mixdnn.jobs j
		WHERE j.status IN ('launching', 'running')
		  AND (NOT EXISTS (SELECT FROM mixdnn.gpu_holds h WHERE h.job_id = j.job_id)
			   OR NOT EXISTS (SELECT FROM mixdnn.job_parts p
							  WHERE p.job_id = j.job_id AND p.attempt = j.attempt
								AND p.state IN ('launching', 'running'))
			   OR EXISTS (SELECT FROM mixdnn.gpu_holds h
						  WHERE h.job_id = j.job_id
							AND NOT EXISTS (SELECT FROM mixdnn.job_parts p
											WHERE p.job_id = j.job_id AND p.attempt = j.attempt
											  AND p.node = h.node
											  AND p.state IN ('launching', 'running', 'completed'))))
		ORDER BY j.job_id
	LOOP
		IF mixdnn._lose_job(r.job_id,
				ARRAY(SELECT p.node FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id
					  WHERE p.job_id = r.job_id AND p.attempt = j.attempt),
				'found half-launched after a restart') THEN
			lost := lost + 1;
		ELSE
			held := held + 1;
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION mixdnn._lose_half_launched() IS 'internal: re-queues (or fails) the jobs active without their GPUs or parts; held: how many were left because another transaction holds their row';
REVOKE ALL ON FUNCTION mixdnn._lose_half_launched() FROM PUBLIC;
