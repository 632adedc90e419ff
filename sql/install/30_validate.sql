-- Validation of submissions and status changes (contract §7). Runs as the
-- invoker, so it sees who is asking; every error leaves the tables as they were.

-- Who may move a job where. "system" transitions are made by the scheduler
-- (rounds, mixdnn.launch_due) and the launcher functions, which run as the
-- extension's owner; people get "cancel" and, for admins, "finish".
CREATE TABLE mixdnn.status_transitions (
	from_status	text NOT NULL,
	to_status	text NOT NULL,
	by_whom		text NOT NULL CHECK (by_whom IN ('user', 'admin', 'system')),
	PRIMARY KEY (from_status, to_status)
);
COMMENT ON TABLE mixdnn.status_transitions IS 'the allowed job status changes and who may make them (user < admin < system)';
INSERT INTO mixdnn.status_transitions VALUES
	('pending',   'planned',   'system'),
	('pending',   'cancelled', 'user'),
	('planned',   'pending',   'system'),
	('planned',   'launching', 'system'),
	('planned',   'cancelled', 'user'),
	('launching', 'running',   'system'),
	('launching', 'planned',   'system'),
	('launching', 'completed', 'admin'),
	('launching', 'failed',    'admin'),
	('launching', 'cancelled', 'user'),
	('running',   'planned',   'system'),
	('running',   'completed', 'admin'),
	('running',   'failed',    'admin'),
	('running',   'cancelled', 'user');

-- 'system' for superusers (the scheduler runs as the extension owner),
-- 'admin' for members of mixdnn_admin, else 'user'.
CREATE FUNCTION mixdnn._caller_level() RETURNS text
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT CASE
		WHEN (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN 'system'
		WHEN pg_catalog.pg_has_role(current_user, 'mixdnn_admin', 'MEMBER') THEN 'admin'
		ELSE 'user' END
	$$;
COMMENT ON FUNCTION mixdnn._caller_level() IS 'internal: the caller''s level for mixdnn.status_transitions';

-- The core's own rule for "some configuration could ever run it"
-- (src/pg/feasibility.c): GPU counts and measured zero throughputs.
CREATE FUNCTION mixdnn._job_can_run(model_class text, gpu_type text, gpus int, min_gpus int,
									 max_gpus int, allowed_types text[], model text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'mixdnn_job_can_run'
	LANGUAGE C STABLE;
COMMENT ON FUNCTION mixdnn._job_can_run(text, text, int, int, int, text[], text) IS 'internal: whether any configuration of the registered cluster could ever run such a job';

-- mixdnn._check_job_terms(): 30b_job_terms.sql.

-- The GPUs a request asks for, checked as a submission and mixdnn.what_if
-- check them (plain words for the table's CHECK constraints, same
-- SQLSTATEs, then what no cluster could satisfy), and min_gpus and
-- max_gpus completed with the submission defaults (mixdnn.jobs' comments).
CREATE FUNCTION mixdnn._check_job_shape(model_class text, gpu_type text, gpus int, min_gpus int, max_gpus int,
										allowed_types text[], OUT lo int, OUT hi int)
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	bad_type	text;
BEGIN
	IF model_class IS NULL OR gpus IS NULL THEN
		RAISE EXCEPTION 'a job needs a %', CASE WHEN model_class IS NULL THEN 'model_class' ELSE 'number of gpus' END
			USING ERRCODE = 'not_null_violation';
	END IF;
	IF model_class NOT IN ('hard', 'soft') THEN
		RAISE EXCEPTION 'model_class must be hard or soft, not "%"', model_class
			USING ERRCODE = 'check_violation';
	END IF;
	IF gpus NOT BETWEEN 1 AND 4096 THEN
		RAISE EXCEPTION 'gpus must be between 1 and 4096, not %', gpus
			USING ERRCODE = 'check_violation';
	END IF;
	IF min_gpus NOT BETWEEN 1 AND 4096 OR max_gpus NOT BETWEEN 1 AND 4096 THEN
		RAISE EXCEPTION 'min_gpus and max_gpus must be between 1 and 4096'
			USING ERRCODE = 'check_violation';
	END IF;
	IF gpu_type IS NOT NULL AND NOT EXISTS (SELECT FROM mixdnn.gpu_types t WHERE t.gpu_type = _check_job_shape.gpu_type) THEN
		RAISE EXCEPTION 'unknown gpu type "%"', gpu_type
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Registered types are listed in mixdnn.gpu_types.';
	END IF;
	IF model_class = 'hard' THEN
		IF gpu_type IS NULL THEN
			RAISE EXCEPTION 'a hard-model job needs a gpu_type'
				USING ERRCODE = 'not_null_violation',
					  DETAIL = 'Hard-model jobs run exactly on (gpu_type, gpus).';
		END IF;
		IF allowed_types IS NOT NULL THEN
			RAISE EXCEPTION 'allowed_types is for soft-model jobs only'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF coalesce(min_gpus, gpus) <> gpus OR coalesce(max_gpus, gpus) <> gpus THEN
			RAISE EXCEPTION 'a hard-model job runs on exactly gpus = % GPUs', gpus
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = 'Leave min_gpus and max_gpus unset, or submit it as a soft-model job.';
		END IF;
		lo := gpus;
		hi := gpus;
		RETURN;
	END IF;
	hi := coalesce(max_gpus, greatest(gpus, min_gpus));
	lo := coalesce(min_gpus, least(greatest(1, gpus / 2), hi));
	IF lo > hi THEN
		RAISE EXCEPTION 'min_gpus (%) is greater than max_gpus (%)', lo, hi
			USING ERRCODE = 'check_violation';
	END IF;
	IF allowed_types IS NULL THEN
		RETURN;
	END IF;
	-- Every round reads the list of every waiting job: bounded by the 64
	-- types there can be, each named once.
	IF pg_catalog.cardinality(allowed_types) > 64 THEN
		RAISE EXCEPTION 'allowed_types must name at most 64 GPU types, not %', pg_catalog.cardinality(allowed_types)
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'mixdnn supports at most 64 gpu types; leave allowed_types NULL to allow every registered type.';
	END IF;
	IF pg_catalog.array_ndims(allowed_types) > 1 THEN
		RAISE EXCEPTION 'allowed_types must be a one-dimensional list of GPU types'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.cardinality(allowed_types) = 0 OR pg_catalog.array_position(allowed_types, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'allowed_types must name at least one GPU type and no NULL'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Leave allowed_types NULL to allow every registered type.';
	END IF;
	SELECT a INTO bad_type FROM pg_catalog.unnest(allowed_types) a GROUP BY a HAVING pg_catalog.count(*) > 1 ORDER BY a LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'allowed_types names "%" more than once', bad_type
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT a INTO bad_type FROM pg_catalog.unnest(allowed_types) a
		WHERE NOT EXISTS (SELECT FROM mixdnn.gpu_types t WHERE t.gpu_type = a) LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'unknown gpu type "%" in allowed_types', bad_type
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Registered types are listed in mixdnn.gpu_types.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_job_shape(text, text, int, int, int, text[]) IS 'internal: a request''s GPUs checked as a submission and mixdnn.what_if check them, with min_gpus and max_gpus defaulted';

-- The jobs' validation trigger has a file of its own: 32_job_before_write.sql.

-- The core keeps type sets as 64-bit masks.
CREATE FUNCTION mixdnn._gpu_types_limit() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF (SELECT count(*) FROM mixdnn.gpu_types) > 64 THEN
		RAISE EXCEPTION 'mixdnn supports at most 64 gpu types'
			USING ERRCODE = 'program_limit_exceeded';
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._gpu_types_limit() IS 'internal trigger: at most 64 GPU types';

CREATE TRIGGER gpu_types_limit AFTER INSERT ON mixdnn.gpu_types
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._gpu_types_limit();

-- Plain-words versions of the cluster tables' constraints (same SQLSTATEs),
-- and of the foreign key that keeps a node holding GPUs from being deleted.
CREATE FUNCTION mixdnn._cluster_before_write() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	name_rule	constant text := '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$';
	held		record;
BEGIN
	IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'gpu_types' THEN
		-- A job's gpu_type and a node's are foreign keys; say which row holds on.
		SELECT n.node INTO held FROM mixdnn.gpu_nodes n WHERE n.gpu_type = OLD.gpu_type ORDER BY n.node LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'gpu type % cannot be deleted: node % has that type', OLD.gpu_type, held.node
				USING ERRCODE = 'foreign_key_violation',
					  HINT = 'Delete the type''s nodes first.';
		END IF;
		SELECT j.job_id INTO held FROM mixdnn.jobs j WHERE j.gpu_type = OLD.gpu_type ORDER BY j.job_id LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'gpu type % cannot be deleted: job % names it as its gpu_type', OLD.gpu_type, held.job_id
				USING ERRCODE = 'foreign_key_violation',
					  HINT = 'A type that jobs name, finished ones included, stays registered; delete its nodes to stop using it.';
		END IF;
		RETURN OLD;
	END IF;
	IF TG_OP = 'DELETE' THEN
		SELECT h.gpu_index, h.job_id INTO held FROM mixdnn.gpu_holds h WHERE h.node = OLD.node LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'node % cannot be deleted: GPU % is held by job %', OLD.node, held.gpu_index, held.job_id
				USING ERRCODE = 'object_in_use',
					  HINT = 'Set the node down (its jobs are re-queued) or drain it and wait for its jobs to finish first.';
		END IF;
		RETURN OLD;
	END IF;
	IF TG_TABLE_NAME = 'gpu_types' THEN
		IF NEW.gpu_type !~ name_rule THEN
			RAISE EXCEPTION 'gpu_type must be 1 to 63 letters, digits, "_", "." or "-", starting with a letter or digit, not "%"',
					NEW.gpu_type
				USING ERRCODE = 'check_violation';
		END IF;
		IF NOT (NEW.speed > 0 AND NEW.speed <= 1000) THEN
			RAISE EXCEPTION 'speed must be greater than 0 and at most 1000, not %', NEW.speed
				USING ERRCODE = 'check_violation';
		END IF;
		IF NEW.memory_gb <= 0 THEN
			RAISE EXCEPTION 'memory_gb must be positive, not %', NEW.memory_gb
				USING ERRCODE = 'check_violation';
		END IF;
		RETURN NEW;
	END IF;

	IF NEW.gpu_type IS NOT NULL AND NOT EXISTS (SELECT FROM mixdnn.gpu_types t WHERE t.gpu_type = NEW.gpu_type) THEN
		RAISE EXCEPTION 'unknown gpu type "%"', NEW.gpu_type
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Registered types are listed in mixdnn.gpu_types.';
	END IF;
	IF TG_TABLE_NAME = 'gpu_nodes' THEN
		IF NEW.node !~ name_rule THEN
			RAISE EXCEPTION 'node must be 1 to 63 letters, digits, "_", "." or "-", starting with a letter or digit, not "%"',
					NEW.node
				USING ERRCODE = 'check_violation';
		END IF;
		IF NEW.gpus NOT BETWEEN 1 AND 64 THEN
			RAISE EXCEPTION 'gpus of a node must be between 1 and 64, not %', NEW.gpus
				USING ERRCODE = 'check_violation';
		END IF;
		IF NEW.status NOT IN ('up', 'draining', 'down') THEN
			RAISE EXCEPTION 'status of a node must be up, draining or down, not "%"', NEW.status
				USING ERRCODE = 'check_violation';
		END IF;
	ELSE
		IF pg_catalog.length(NEW.model) NOT BETWEEN 1 AND 63 THEN
			RAISE EXCEPTION 'model must have 1 to 63 characters, not %', pg_catalog.length(NEW.model)
				USING ERRCODE = 'check_violation';
		END IF;
		IF NEW.gpus NOT BETWEEN 1 AND 4096 THEN
			RAISE EXCEPTION 'gpus of a profile must be between 1 and 4096, not %', NEW.gpus
				USING ERRCODE = 'check_violation';
		END IF;
		IF NOT (NEW.throughput >= 0 AND NEW.throughput < 'infinity') THEN
			RAISE EXCEPTION 'throughput must be 0 or more and finite, not %', NEW.throughput
				USING ERRCODE = 'check_violation';
		END IF;
	END IF;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._cluster_before_write() IS 'internal trigger: plain-words errors for bad GPU types, nodes and profiles, for deleting a node whose GPUs are held and a type that nodes or jobs name';

CREATE TRIGGER gpu_types_before_write BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_types
	FOR EACH ROW EXECUTE FUNCTION mixdnn._cluster_before_write();
-- Launcher calls, which write only last_heartbeat and unreachable_since, skip it.
CREATE TRIGGER gpu_nodes_before_write BEFORE INSERT OR UPDATE OF node, gpu_type, gpus, status OR DELETE ON mixdnn.gpu_nodes
	FOR EACH ROW EXECUTE FUNCTION mixdnn._cluster_before_write();
CREATE TRIGGER profiles_before_write BEFORE INSERT OR UPDATE ON mixdnn.profiles
	FOR EACH ROW EXECUTE FUNCTION mixdnn._cluster_before_write();
