-- 99c_job_input_limits.sql — a submission's allowed_types names at most 64
-- types, each once, in a one-dimensional list, and its model has at most 63
-- characters: every round reads both of every waiting job, and unbounded
-- they let one user's rows make every round take seconds. Both are checked
-- when written, so a job stored before keeps planning. A duration must be
-- positive in seconds too, and only a superuser may name a job owner that
-- is no plain mixdnn user.

-- mixdnn._check_job_owner, which the trigger below calls, is created by
-- 99n (sql/install/31_job_owner.sql).

CREATE OR REPLACE FUNCTION mixdnn._job_before_write() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cap_total	bigint;
	bad_type	text;
	rule_level	text;
	caller		text;
BEGIN
	-- Plain-words versions of the CHECK constraints on columns an update may
	-- change alone (same SQLSTATE as the constraint, 23514).
	IF pg_catalog.length(NEW.name) NOT BETWEEN 1 AND 200 THEN
		RAISE EXCEPTION 'name must have 1 to 200 characters, not %', pg_catalog.length(NEW.name)
			USING ERRCODE = 'check_violation';
	END IF;
	IF NEW.priority NOT BETWEEN -100 AND 100 THEN
		RAISE EXCEPTION 'priority must be between -100 and 100, not %', NEW.priority
			USING ERRCODE = 'check_violation';
	END IF;
	-- Every round reads the model of every waiting job; a longer one could
	-- name no profile (mixdnn.profiles.model has at most 63 characters).
	-- Checked when it is written, not on every update: a job stored before
	-- 0.2.0 keeps its longer model, and the scheduler must still plan it.
	IF (TG_OP = 'INSERT' OR NEW.model IS DISTINCT FROM OLD.model) AND pg_catalog.length(NEW.model) > 63 THEN
		RAISE EXCEPTION 'model must have at most 63 characters, as mixdnn.profiles.model, not %', pg_catalog.length(NEW.model)
			USING ERRCODE = 'string_data_right_truncation';
	END IF;
	IF NEW.model_class NOT IN ('hard', 'soft') THEN
		RAISE EXCEPTION 'model_class must be hard or soft, not "%"', NEW.model_class
			USING ERRCODE = 'check_violation';
	END IF;
	-- In seconds, as the planner reads it: interval comparison counts a year
	-- as 360 days, so '-1 year 361 days' passes the table's CHECK while it
	-- lasts -4.25 days.
	IF NEW.duration <= interval '0' OR NEW.duration > interval '366 days'
	   OR ((TG_OP = 'INSERT' OR NEW.duration IS DISTINCT FROM OLD.duration)
		   AND pg_catalog.date_part('epoch', NEW.duration) NOT BETWEEN 1e-6 AND 366 * 86400) THEN
		RAISE EXCEPTION 'duration must be positive and at most 366 days, not %', NEW.duration
			USING ERRCODE = 'check_violation';
	END IF;
	-- Jobs run as their owner's OS account: only a superuser may make a job
	-- another role's than a mixdnn user's who is no superuser, or an admin
	-- could run a command as postgres (docs/design.md, "Threat model").
	IF (TG_OP = 'INSERT' AND NEW.owner IS DISTINCT FROM current_user
		OR TG_OP = 'UPDATE' AND NEW.owner IS DISTINCT FROM OLD.owner)
	   AND mixdnn._caller_level() <> 'system' THEN
		PERFORM mixdnn._check_job_owner(NEW.owner);
	END IF;

	IF TG_OP = 'INSERT' THEN
		IF NEW.status IS DISTINCT FROM 'pending' THEN
			RAISE EXCEPTION 'a new job must have status pending, not %', coalesce(NEW.status, 'NULL')
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF NEW.planned_gpu_type IS NOT NULL OR NEW.planned_gpus IS NOT NULL OR NEW.planned_start IS NOT NULL
		   OR NEW.planned_end IS NOT NULL OR NEW.started_at IS NOT NULL OR NEW.finished_at IS NOT NULL
		   OR NEW.exit_code IS NOT NULL OR NEW.attempt <> 0 THEN
			RAISE EXCEPTION 'plan and run columns of a job are written by the scheduler'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = 'Leave planned_*, started_at, finished_at, exit_code and attempt unset when submitting.';
		END IF;
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
			SELECT t.by_whom INTO rule_level FROM mixdnn.status_transitions t
				WHERE t.from_status = OLD.status AND t.to_status = NEW.status;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'job % cannot go from % to %', OLD.job_id, OLD.status, coalesce(NEW.status, 'NULL')
					USING ERRCODE = 'object_not_in_prerequisite_state',
						  HINT = 'The allowed changes are listed in mixdnn.status_transitions.';
			END IF;
			caller := mixdnn._caller_level();
			IF (rule_level = 'system' AND caller <> 'system')
			   OR (rule_level = 'admin' AND caller = 'user') THEN
				RAISE EXCEPTION 'only the scheduler can move job % from % to %', OLD.job_id, OLD.status, NEW.status
					USING ERRCODE = 'insufficient_privilege',
						  HINT = CASE WHEN rule_level = 'admin' THEN 'Launchers report results with mixdnn.finish().'
									  ELSE 'Cancel a job with status = ''cancelled''.' END;
			END IF;
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

	-- Plain-words versions of the table's CHECK constraints (same SQLSTATEs).
	IF NEW.gpus IS NOT NULL AND NEW.gpus NOT BETWEEN 1 AND 4096 THEN
		RAISE EXCEPTION 'gpus must be between 1 and 4096, not %', NEW.gpus
			USING ERRCODE = 'check_violation';
	END IF;
	IF NEW.min_gpus IS NOT NULL AND NEW.min_gpus NOT BETWEEN 1 AND 4096
	   OR NEW.max_gpus IS NOT NULL AND NEW.max_gpus NOT BETWEEN 1 AND 4096 THEN
		RAISE EXCEPTION 'min_gpus and max_gpus must be between 1 and 4096'
			USING ERRCODE = 'check_violation';
	END IF;
	IF NEW.gpu_type IS NOT NULL AND NOT EXISTS (SELECT FROM mixdnn.gpu_types t WHERE t.gpu_type = NEW.gpu_type) THEN
		RAISE EXCEPTION 'unknown gpu type "%"', NEW.gpu_type
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Registered types are listed in mixdnn.gpu_types.';
	END IF;

	-- The request's shape: defaults, then what no cluster could satisfy.
	IF NEW.model_class = 'hard' THEN
		IF NEW.gpu_type IS NULL THEN
			RAISE EXCEPTION 'a hard-model job needs a gpu_type'
				USING ERRCODE = 'not_null_violation',
					  DETAIL = 'Hard-model jobs run exactly on (gpu_type, gpus).';
		END IF;
		IF NEW.allowed_types IS NOT NULL THEN
			RAISE EXCEPTION 'allowed_types is for soft-model jobs only'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF coalesce(NEW.min_gpus, NEW.gpus) <> NEW.gpus OR coalesce(NEW.max_gpus, NEW.gpus) <> NEW.gpus THEN
			RAISE EXCEPTION 'a hard-model job runs on exactly gpus = % GPUs', NEW.gpus
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = 'Leave min_gpus and max_gpus unset, or submit it as a soft-model job.';
		END IF;
		NEW.min_gpus := NEW.gpus;
		NEW.max_gpus := NEW.gpus;
	ELSIF NEW.model_class = 'soft' AND NEW.gpus IS NOT NULL THEN
		NEW.max_gpus := coalesce(NEW.max_gpus, greatest(NEW.gpus, NEW.min_gpus));
		NEW.min_gpus := coalesce(NEW.min_gpus, least(greatest(1, NEW.gpus / 2), NEW.max_gpus));
		IF NEW.min_gpus > NEW.max_gpus THEN
			RAISE EXCEPTION 'min_gpus (%) is greater than max_gpus (%)', NEW.min_gpus, NEW.max_gpus
				USING ERRCODE = 'check_violation';
		END IF;
		IF NEW.allowed_types IS NOT NULL THEN
			-- Every round reads the list of every waiting job: bounded by the
			-- 64 types there can be, each named once.
			IF cardinality(NEW.allowed_types) > 64 THEN
				RAISE EXCEPTION 'allowed_types must name at most 64 GPU types, not %', cardinality(NEW.allowed_types)
					USING ERRCODE = 'program_limit_exceeded',
						  HINT = 'mixdnn supports at most 64 gpu types; leave allowed_types NULL to allow every registered type.';
			END IF;
			IF array_ndims(NEW.allowed_types) > 1 THEN
				RAISE EXCEPTION 'allowed_types must be a one-dimensional list of GPU types'
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			IF cardinality(NEW.allowed_types) = 0 OR array_position(NEW.allowed_types, NULL) IS NOT NULL THEN
				RAISE EXCEPTION 'allowed_types must name at least one GPU type and no NULL'
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Leave allowed_types NULL to allow every registered type.';
			END IF;
			SELECT a INTO bad_type FROM unnest(NEW.allowed_types) a GROUP BY a HAVING count(*) > 1 ORDER BY a LIMIT 1;
			IF FOUND THEN
				RAISE EXCEPTION 'allowed_types names "%" more than once', bad_type
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			SELECT a INTO bad_type FROM unnest(NEW.allowed_types) a
				WHERE NOT EXISTS (SELECT FROM mixdnn.gpu_types t WHERE t.gpu_type = a) LIMIT 1;
			IF FOUND THEN
				RAISE EXCEPTION 'unknown gpu type "%" in allowed_types', bad_type
					USING ERRCODE = 'foreign_key_violation',
						  HINT = 'Registered types are listed in mixdnn.gpu_types.';
			END IF;
		END IF;
	END IF;

	-- "Ever": every registered node counts, whatever its status.
	IF NEW.model_class = 'hard' THEN
		SELECT coalesce(sum(n.gpus), 0) INTO cap_total FROM mixdnn.gpu_nodes n WHERE n.gpu_type = NEW.gpu_type;
		IF cap_total < NEW.gpus THEN
			RAISE EXCEPTION 'no configuration of the cluster can run this job'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = format('It needs %s GPUs of type %s; the cluster has %s.', NEW.gpus, NEW.gpu_type, cap_total);
		END IF;
	ELSIF NEW.model_class = 'soft' THEN
		SELECT coalesce(max(s.total), 0) INTO cap_total FROM (
			SELECT sum(n.gpus) AS total FROM mixdnn.gpu_nodes n
			WHERE NEW.allowed_types IS NULL OR n.gpu_type = ANY (NEW.allowed_types)
			GROUP BY n.gpu_type) s;
		IF cap_total < NEW.min_gpus THEN
			RAISE EXCEPTION 'no configuration of the cluster can run this job'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = format('It needs at least %s GPUs of one allowed type; the largest allowed type has %s.',
									  NEW.min_gpus, cap_total);
		END IF;
	END IF;
	-- The GPUs exist; the model's measured throughputs may still rule every configuration out.
	IF NEW.model IS NOT NULL
	   AND NOT mixdnn._job_can_run(NEW.model_class, NEW.gpu_type, NEW.gpus, NEW.min_gpus, NEW.max_gpus,
								   NEW.allowed_types, NEW.model) THEN
		RAISE EXCEPTION 'no configuration of the cluster can run this job'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('mixdnn.profiles measures a throughput of 0 for model %s on every configuration it fits.',
								  NEW.model);
	END IF;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._job_before_write() IS 'internal trigger: defaults and validation of job submissions and status changes';
