-- 99zg_what_if_feasible.sql — mixdnn.what_if refuses, as a submission
-- does, a request no configuration of the registered cluster could ever
-- run (mixdnn._check_job_feasible, 99zf): it answered "blocked_by cluster",
-- or "quota" for a caller with a GPU quota. The function as
-- sql/install/70_surface.sql defines it.

CREATE OR REPLACE FUNCTION mixdnn.what_if(model_class text DEFAULT 'soft', gpu_type text DEFAULT NULL,
							   gpus int DEFAULT NULL, min_gpus int DEFAULT NULL, max_gpus int DEFAULT NULL,
							   allowed_types text[] DEFAULT NULL, duration interval DEFAULT NULL,
							   priority int DEFAULT 0, model text DEFAULT NULL)
	RETURNS TABLE (planned_gpu_type text, planned_gpus int, planned_start timestamptz,
				   planned_end timestamptz, wait interval, "position" int, reason text,
				   blocked_by text)
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	hard		boolean := what_if.model_class = 'hard';
	lo			int;
	hi			int;
	missing		text;
BEGIN
	missing := CASE WHEN what_if.model_class IS NULL THEN 'model_class' WHEN what_if.gpus IS NULL THEN 'gpus'
					WHEN what_if.duration IS NULL THEN 'duration' WHEN what_if.priority IS NULL THEN 'priority' END;
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'mixdnn.what_if needs a value for %', missing
			USING ERRCODE = 'not_null_violation';
	END IF;
	-- Refused as a submission is, in its words (mixdnn._job_before_write).
	PERFORM mixdnn._check_job_terms(what_if.priority, what_if.duration, what_if.model);
	SELECT c.lo, c.hi INTO lo, hi
		FROM mixdnn._check_job_shape(what_if.model_class, what_if.gpu_type, what_if.gpus, what_if.min_gpus,
									 what_if.max_gpus, what_if.allowed_types) c;
	PERFORM mixdnn._check_job_feasible(what_if.model_class, what_if.gpu_type, what_if.gpus, lo, hi,
									   what_if.allowed_types, what_if.model);
	RETURN QUERY SELECT * FROM mixdnn._what_if(hard, what_if.gpu_type, what_if.gpus, lo, hi,
		what_if.allowed_types, pg_catalog.date_part('epoch', what_if.duration)::float8,
		what_if.priority, what_if.model);
END
$$;
COMMENT ON FUNCTION mixdnn.what_if(text, text, int, int, int, text[], interval, int, text) IS 'when and on which configuration such a job would run if submitted now, or why it would wait unplanned or be refused; writes nothing';
