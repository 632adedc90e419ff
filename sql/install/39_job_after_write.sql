-- 39_job_after_write.sql — the jobs' AFTER trigger function: status
-- history, GPU release, and the notices that stop a part whose job has
-- ended. Also the upgrade piece 0.1.0--0.2.0/99v (a link to this file), so
-- that both create the same function (the trigger is 40_events.sql's).

-- Status history, GPU release and cancel notices. Runs as the owner because
-- a user who cancels its job may not write these tables itself.
CREATE OR REPLACE FUNCTION mixdnn._job_after_write() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status, reason)
			VALUES (NEW.job_id, NEW.submitted_at, NULL, NEW.status, NULL);
		RETURN NULL;
	END IF;
	IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
		RETURN NULL;
	END IF;
	INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status, reason)
		VALUES (NEW.job_id, mixdnn.now(), OLD.status, NEW.status,
				CASE WHEN NEW.status IN ('pending', 'planned', 'launching') AND OLD.status IN ('pending', 'planned')
					 THEN NULL ELSE NEW.reason END);
	IF OLD.status IN ('launching', 'running') AND NEW.status NOT IN ('launching', 'running') THEN
		-- Whatever ended the job (a cancel, another part's failure, its node
		-- going down, a lost lease, an admin), a part still running is
		-- stopped now, not at its launcher's next heartbeat: a re-queued job
		-- may start elsewhere meanwhile. The one place these notices are
		-- sent; the launcher checks mixdnn.node_parts on one.
		PERFORM mixdnn._queue_notice('mixdnn_cancel',
				json_build_object('job_id', p.job_id, 'node', p.node)::text)
			FROM mixdnn.job_parts p
			WHERE p.job_id = OLD.job_id AND p.attempt = OLD.attempt AND p.state IN ('launching', 'running');
		UPDATE mixdnn.job_parts p
			SET state = CASE NEW.status WHEN 'cancelled' THEN 'cancelled'
										WHEN 'planned' THEN 'lost'
										WHEN 'completed' THEN 'completed'
										ELSE 'failed' END,
				finished_at = coalesce(p.finished_at, mixdnn.now())
			WHERE p.job_id = OLD.job_id AND p.attempt = OLD.attempt AND p.state IN ('launching', 'running');
		DELETE FROM mixdnn.gpu_holds h WHERE h.job_id = OLD.job_id;
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._job_after_write() IS 'internal trigger: status history, GPU release and cancel notices';
