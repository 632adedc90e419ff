-- 32_job_before_write.sql — the validation of every job written but by a
-- data load: submissions, status changes, owners. Also the upgrade piece
-- 0.1.0--0.2.0/99y (a link to this file), so that both create the same
-- functions and trigger; hence CREATE OR REPLACE (0.1.0 has the trigger
-- and its function).

-- Whether the caller may move a job from one status to another:
-- mixdnn.status_transitions lists the moves and who may make each.
CREATE OR REPLACE FUNCTION mixdnn._check_job_transition(job_id bigint, from_status text, to_status text)
	RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	rule_level	text;
	caller		text;
BEGIN
	SELECT t.by_whom INTO rule_level FROM mixdnn.status_transitions t
		WHERE t.from_status = _check_job_transition.from_status AND t.to_status = _check_job_transition.to_status;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % cannot go from % to %', job_id, from_status, coalesce(to_status, 'NULL')
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'The allowed changes are listed in mixdnn.status_transitions.';
	END IF;
	caller := mixdnn._caller_level();
	IF (rule_level = 'system' AND caller <> 'system')
	   OR (rule_level = 'admin' AND caller = 'user') THEN
		RAISE EXCEPTION 'only the scheduler can move job % from % to %', job_id, from_status, to_status
			USING ERRCODE = 'insufficient_privilege',
				  HINT = CASE WHEN rule_level = 'admin' THEN 'Launchers report results with mixdnn.finish().'
							  ELSE 'Cancel a job with status = ''cancelled''.' END;
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_job_transition(bigint, text, text) IS 'internal: refuses a status change that mixdnn.status_transitions does not allow the caller';
REVOKE ALL ON FUNCTION mixdnn._check_job_transition(bigint, text, text) FROM PUBLIC;
-- Called by the jobs' trigger as whoever changes a job's status.
GRANT EXECUTE ON FUNCTION mixdnn._check_job_transition(bigint, text, text) TO mixdnn_user, mixdnn_admin, mixdnn_launcher;

-- What a submission may not set: its status, the scheduler's plan and run
-- columns, a submitted_at later than now.
CREATE OR REPLACE FUNCTION mixdnn._check_new_job(j mixdnn.jobs) RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF j.status IS DISTINCT FROM 'pending' THEN
		RAISE EXCEPTION 'a new job must have status pending, not %', coalesce(j.status, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF j.planned_gpu_type IS NOT NULL OR j.planned_gpus IS NOT NULL OR j.planned_start IS NOT NULL
	   OR j.planned_end IS NOT NULL OR j.started_at IS NOT NULL OR j.finished_at IS NOT NULL
	   OR j.exit_code IS NOT NULL OR j.attempt <> 0 THEN
		RAISE EXCEPTION 'plan and run columns of a job are written by the scheduler'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Leave planned_*, started_at, finished_at, exit_code and attempt unset when submitting.';
	END IF;
	-- An admin may give an earlier submitted_at, not a later one: a job
	-- submitted in the future would count against its owner's
	-- submission budget (46_submission_limits.sql) until then, cancelled
	-- or not, and no admin may delete it. Superusers (replays) may.
	IF j.submitted_at > mixdnn.now() AND mixdnn._caller_level() <> 'system' THEN
		RAISE EXCEPTION 'submitted_at cannot be later than now (%), not %', mixdnn.now(), j.submitted_at
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'A job''s submitted_at counts against its owner''s submission budget until an hour after it.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_new_job(mixdnn.jobs) IS 'internal: refuses a submission that sets its status, plan or run columns, or a submitted_at later than now';
REVOKE ALL ON FUNCTION mixdnn._check_new_job(mixdnn.jobs) FROM PUBLIC;
-- Called by the jobs' trigger as whoever submits.
GRANT EXECUTE ON FUNCTION mixdnn._check_new_job(mixdnn.jobs) TO mixdnn_user, mixdnn_admin, mixdnn_launcher;

CREATE OR REPLACE FUNCTION mixdnn._job_before_write() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	-- Plain-words versions of the CHECK constraints on columns an update may
	-- change alone (same SQLSTATE as the constraint, 23514).
	IF pg_catalog.length(NEW.name) NOT BETWEEN 1 AND 200 THEN
		RAISE EXCEPTION 'name must have 1 to 200 characters, not %', pg_catalog.length(NEW.name)
			USING ERRCODE = 'check_violation';
	END IF;
	-- A model or duration stored before 0.2.0 keeps planning, and a user
	-- cancels a job an admin gave a priority above hers: checked when written.
	PERFORM mixdnn._check_job_terms(
		CASE WHEN TG_OP = 'INSERT' OR NEW.priority IS DISTINCT FROM OLD.priority THEN NEW.priority END,
		CASE WHEN TG_OP = 'INSERT' OR NEW.duration IS DISTINCT FROM OLD.duration THEN NEW.duration END,
		CASE WHEN TG_OP = 'INSERT' OR NEW.model IS DISTINCT FROM OLD.model THEN NEW.model END);
	-- Jobs run as their owner's OS account: an owner named must be a role
	-- (one that is not would fail at its launch), and only a superuser may
	-- make a job another role's than a mixdnn user's who is no superuser, or
	-- an admin could run a command as postgres (docs/design.md, "Threat
	-- model"). A restore's rows do not come here (the trigger's WHEN).
	-- mixdnn's group roles own no job, whoever submits as one (SET ROLE
	-- mixdnn_user).
	IF TG_OP = 'INSERT' AND (NEW.owner IS DISTINCT FROM current_user OR mixdnn._is_group_role(NEW.owner))
	   OR TG_OP = 'UPDATE' AND NEW.owner IS DISTINCT FROM OLD.owner THEN
		PERFORM mixdnn._check_job_owner(NEW.owner);
	END IF;

	IF TG_OP = 'INSERT' THEN
		PERFORM mixdnn._check_new_job(NEW);
		NEW.reason := NULL;
	ELSE
		IF OLD.status IN ('completed', 'failed', 'cancelled') THEN
			RAISE EXCEPTION 'job % is % and can no longer change', OLD.job_id, OLD.status
				USING ERRCODE = 'object_not_in_prerequisite_state';
		END IF;
		IF NEW.owner IS DISTINCT FROM OLD.owner AND mixdnn._caller_level() = 'user' THEN
			RAISE EXCEPTION 'only an admin can change the owner of job %', OLD.job_id
				USING ERRCODE = 'insufficient_privilege';
		END IF;
		IF NEW.status IS NULL THEN
			RAISE EXCEPTION 'status of job % cannot be NULL', OLD.job_id
				USING ERRCODE = 'not_null_violation';
		END IF;
		IF NEW.status IS DISTINCT FROM OLD.status THEN
			PERFORM mixdnn._check_job_transition(OLD.job_id, OLD.status, NEW.status);
			IF NEW.status IN ('completed', 'failed', 'cancelled') THEN
				NEW.finished_at := coalesce(NEW.finished_at, mixdnn.now());
			END IF;
			-- Why it waited is no reason of a cancelled job (an admin may give one).
			IF NEW.status = 'cancelled' AND NEW.reason IS NOT DISTINCT FROM OLD.reason THEN
				NEW.reason := NULL;
			END IF;
		END IF;
		-- A launched job keeps the shape it was launched with.
		IF OLD.status NOT IN ('pending', 'planned')
		   AND (NEW.model_class, NEW.gpu_type, NEW.gpus, NEW.min_gpus, NEW.max_gpus, NEW.allowed_types,
				NEW.duration, NEW.model, NEW.command)
			IS DISTINCT FROM (OLD.model_class, OLD.gpu_type, OLD.gpus, OLD.min_gpus, OLD.max_gpus,
							  OLD.allowed_types, OLD.duration, OLD.model, OLD.command) THEN
			RAISE EXCEPTION 'job % is % and its request can no longer change', OLD.job_id, OLD.status
				USING ERRCODE = 'object_not_in_prerequisite_state';
		END IF;
		IF (NEW.gpus, NEW.min_gpus, NEW.max_gpus, NEW.allowed_types, NEW.gpu_type, NEW.model_class)
		   IS NOT DISTINCT FROM (OLD.gpus, OLD.min_gpus, OLD.max_gpus, OLD.allowed_types, OLD.gpu_type, OLD.model_class) THEN
			RETURN NEW;
		END IF;
	END IF;

	SELECT c.lo, c.hi INTO NEW.min_gpus, NEW.max_gpus
		FROM mixdnn._check_job_shape(NEW.model_class, NEW.gpu_type, NEW.gpus, NEW.min_gpus, NEW.max_gpus,
									 NEW.allowed_types) c;

	-- Some configuration of the registered cluster must be able to run it
	-- (mixdnn.what_if refuses the same requests in the same words).
	PERFORM mixdnn._check_job_feasible(NEW.model_class, NEW.gpu_type, NEW.gpus, NEW.min_gpus, NEW.max_gpus,
									   NEW.allowed_types, NEW.model);
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._job_before_write() IS 'internal trigger: defaults and validation of job submissions and status changes';

CREATE OR REPLACE TRIGGER jobs_before_write
	BEFORE INSERT OR UPDATE ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._job_before_write();
