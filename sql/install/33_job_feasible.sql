-- 33_job_feasible.sql — whether some configuration of the registered
-- cluster could ever run a request: a submission (mixdnn._job_before_write)
-- and mixdnn.what_if refuse the same requests in the same words (what_if
-- answered "blocked_by cluster", or "quota" for a caller with a quota,
-- for a job a submission refuses). Also the upgrade piece
-- 0.1.0--0.2.0/99zf (a link to this file); hence CREATE OR REPLACE.

CREATE OR REPLACE FUNCTION mixdnn._check_job_feasible(model_class text, gpu_type text, gpus int, min_gpus int,
													   max_gpus int, allowed_types text[], model text)
	RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cap_total	bigint;
BEGIN
	-- "Ever": every registered node counts, whatever its status.
	IF _check_job_feasible.model_class = 'hard' THEN
		SELECT coalesce(sum(n.gpus), 0) INTO cap_total FROM mixdnn.gpu_nodes n
			WHERE n.gpu_type = _check_job_feasible.gpu_type;
		IF cap_total < _check_job_feasible.gpus THEN
			RAISE EXCEPTION 'no configuration of the cluster can run this job'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = format('It needs %s GPUs of type %s; the cluster has %s.', _check_job_feasible.gpus,
									  _check_job_feasible.gpu_type, cap_total);
		END IF;
	ELSIF _check_job_feasible.model_class = 'soft' THEN
		SELECT coalesce(max(s.total), 0) INTO cap_total FROM (
			SELECT sum(n.gpus) AS total FROM mixdnn.gpu_nodes n
			WHERE _check_job_feasible.allowed_types IS NULL OR n.gpu_type = ANY (_check_job_feasible.allowed_types)
			GROUP BY n.gpu_type) s;
		IF cap_total < _check_job_feasible.min_gpus THEN
			RAISE EXCEPTION 'no configuration of the cluster can run this job'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = format('It needs at least %s GPUs of one allowed type; the largest allowed type has %s.',
									  _check_job_feasible.min_gpus, cap_total);
		END IF;
	END IF;
	-- The GPUs exist; the model's measured throughputs may still rule every configuration out.
	IF _check_job_feasible.model IS NOT NULL
	   AND NOT mixdnn._job_can_run(_check_job_feasible.model_class, _check_job_feasible.gpu_type,
								   _check_job_feasible.gpus, _check_job_feasible.min_gpus,
								   _check_job_feasible.max_gpus, _check_job_feasible.allowed_types,
								   _check_job_feasible.model) THEN
		RAISE EXCEPTION 'no configuration of the cluster can run this job'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('mixdnn.profiles measures a throughput of 0 for model %s on every configuration it fits.',
								  _check_job_feasible.model);
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_job_feasible(text, text, int, int, int, text[], text) IS 'internal: refuses a request no configuration of the registered cluster could ever run, as a submission and mixdnn.what_if do';
REVOKE ALL ON FUNCTION mixdnn._check_job_feasible(text, text, int, int, int, text[], text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn._check_job_feasible(text, text, int, int, int, text[], text)
	TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
