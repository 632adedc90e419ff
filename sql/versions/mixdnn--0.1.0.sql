-- MixDNN install script, assembled at build time from sql/install/*.sql
-- in file-name order.
\echo Use "CREATE EXTENSION mixdnn" to load this file. \quit

-- Roles are cluster-wide, so they may outlive an earlier install.
DO $roles$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'mixdnn_user') THEN
		CREATE ROLE mixdnn_user NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'mixdnn_admin') THEN
		CREATE ROLE mixdnn_admin NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'mixdnn_launcher') THEN
		CREATE ROLE mixdnn_launcher NOLOGIN;
	END IF;
END
$roles$;

-- Created here rather than by the control file, so that it belongs to the
-- extension and DROP EXTENSION removes it.
CREATE SCHEMA mixdnn;

-- An admin can do all a user can.
GRANT mixdnn_user TO mixdnn_admin;

REVOKE ALL ON SCHEMA mixdnn FROM PUBLIC;
GRANT USAGE ON SCHEMA mixdnn TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
COMMENT ON SCHEMA mixdnn IS 'MixDNN: event-driven utility scheduler for DNN training jobs on a heterogeneous GPU cluster';
-- The scheduler's clock (src/pg/clock.c). Every timestamp the scheduler
-- writes comes from here, so tests and replays can pin it with the
-- superuser-only setting mixdnn.virtual_now.
CREATE FUNCTION mixdnn.now() RETURNS timestamptz
	AS 'MODULE_PATHNAME', 'mixdnn_now'
	LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION mixdnn.now() IS 'scheduler clock: mixdnn.virtual_now when set, else the real clock';

REVOKE ALL ON FUNCTION mixdnn.now() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.now() TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
-- Cluster, jobs, and what the scheduler writes (SPEC §3).

CREATE TABLE mixdnn.gpu_types (
	gpu_type	text PRIMARY KEY
				CONSTRAINT gpu_types_name_check CHECK (gpu_type ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
	speed		float8 NOT NULL DEFAULT 1.0
				CONSTRAINT gpu_types_speed_check CHECK (speed > 0 AND speed <= 1000),
	memory_gb	int CONSTRAINT gpu_types_memory_check CHECK (memory_gb > 0)
);
COMMENT ON TABLE mixdnn.gpu_types IS 'GPU models of the cluster; speed is the scaling model''s throughput relative to a speed-1.0 GPU';
COMMENT ON COLUMN mixdnn.gpu_types.gpu_type IS 'name, e.g. v100';
COMMENT ON COLUMN mixdnn.gpu_types.speed IS 'relative training throughput of one GPU, used where no profile is measured';
COMMENT ON COLUMN mixdnn.gpu_types.memory_gb IS 'memory per GPU in GiB (informational)';

CREATE TABLE mixdnn.gpu_nodes (
	node		text PRIMARY KEY
				CONSTRAINT gpu_nodes_name_check CHECK (node ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
	gpu_type	text NOT NULL REFERENCES mixdnn.gpu_types,
	gpus		int NOT NULL CONSTRAINT gpu_nodes_gpus_check CHECK (gpus BETWEEN 1 AND 64),
	status		text NOT NULL DEFAULT 'up'
				CONSTRAINT gpu_nodes_status_check CHECK (status IN ('up', 'draining', 'down')),
	address		text,
	last_heartbeat timestamptz,
	unreachable_since timestamptz
);
COMMENT ON TABLE mixdnn.gpu_nodes IS 'GPU servers; every GPU of a node is of its gpu_type';
COMMENT ON COLUMN mixdnn.gpu_nodes.node IS 'host name the launcher runs with --node';
COMMENT ON COLUMN mixdnn.gpu_nodes.gpu_type IS 'type of all its GPUs';
COMMENT ON COLUMN mixdnn.gpu_nodes.gpus IS 'GPUs in the node, indexed 0 .. gpus-1';
COMMENT ON COLUMN mixdnn.gpu_nodes.status IS 'up: takes jobs; draining: keeps running jobs, takes no new ones; down: its jobs are re-queued';
COMMENT ON COLUMN mixdnn.gpu_nodes.address IS 'address other nodes reach it at (MASTER_ADDR); the node name when NULL';
COMMENT ON COLUMN mixdnn.gpu_nodes.last_heartbeat IS 'last call (claim, heartbeat, finish) of the node''s launcher';
COMMENT ON COLUMN mixdnn.gpu_nodes.unreachable_since IS 'set when a lease on the node expired; the node takes no new jobs until its launcher calls again';

-- One row per physical GPU, kept by a trigger on gpu_nodes: the target of
-- gpu_holds' foreign key, so no hold can name a GPU that does not exist.
CREATE TABLE mixdnn.gpus (
	node		text NOT NULL REFERENCES mixdnn.gpu_nodes ON DELETE CASCADE,
	gpu_index	int NOT NULL CHECK (gpu_index BETWEEN 0 AND 63),
	PRIMARY KEY (node, gpu_index)
);
COMMENT ON TABLE mixdnn.gpus IS 'every GPU of every node (maintained from mixdnn.gpu_nodes)';

CREATE TABLE mixdnn.profiles (
	model		text NOT NULL CONSTRAINT profiles_model_check CHECK (length(model) BETWEEN 1 AND 63),
	gpu_type	text NOT NULL REFERENCES mixdnn.gpu_types ON DELETE CASCADE,
	gpus		int NOT NULL CONSTRAINT profiles_gpus_check CHECK (gpus BETWEEN 1 AND 4096),
	throughput	float8 NOT NULL CONSTRAINT profiles_throughput_check CHECK (throughput >= 0 AND throughput < 'infinity'),
	PRIMARY KEY (model, gpu_type, gpus)
);
COMMENT ON TABLE mixdnn.profiles IS 'measured training throughput of a model on a configuration; 0 = the model cannot run there';
COMMENT ON COLUMN mixdnn.profiles.throughput IS 'any unit, consistent per model (e.g. steps/s)';

CREATE TABLE mixdnn.jobs (
	job_id		bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name		text NOT NULL CONSTRAINT jobs_name_check CHECK (length(name) BETWEEN 1 AND 200),
	owner		name NOT NULL DEFAULT current_user,
	model		text,
	model_class	text NOT NULL DEFAULT 'soft'
				CONSTRAINT jobs_model_class_check CHECK (model_class IN ('hard', 'soft')),
	gpu_type	text REFERENCES mixdnn.gpu_types,
	gpus		int NOT NULL CONSTRAINT jobs_gpus_check CHECK (gpus BETWEEN 1 AND 4096),
	min_gpus	int CONSTRAINT jobs_min_gpus_check CHECK (min_gpus BETWEEN 1 AND 4096),
	max_gpus	int CONSTRAINT jobs_max_gpus_check CHECK (max_gpus BETWEEN 1 AND 4096),
	allowed_types text[],
	duration	interval NOT NULL
				CONSTRAINT jobs_duration_check CHECK (duration > interval '0' AND duration <= interval '366 days'),
	priority	int NOT NULL DEFAULT 0 CONSTRAINT jobs_priority_check CHECK (priority BETWEEN -100 AND 100),
	command		text,
	status		text NOT NULL DEFAULT 'pending'
				CONSTRAINT jobs_status_check CHECK (status IN ('pending', 'planned', 'launching', 'running',
															   'completed', 'failed', 'cancelled')),
	submitted_at timestamptz NOT NULL DEFAULT mixdnn.now(),
	planned_gpu_type text,
	planned_gpus int,
	planned_start timestamptz,
	planned_end	timestamptz,
	started_at	timestamptz,
	finished_at	timestamptz,
	exit_code	int,
	reason		text,
	attempt		int NOT NULL DEFAULT 0,
	CONSTRAINT jobs_gpu_range_check CHECK (min_gpus <= max_gpus),
	CONSTRAINT jobs_hard_type_check CHECK (model_class = 'soft' OR gpu_type IS NOT NULL),
	CONSTRAINT jobs_hard_shape_check CHECK (model_class = 'soft'
		OR (allowed_types IS NULL AND min_gpus = gpus AND max_gpus = gpus)),
	CONSTRAINT jobs_plan_check CHECK (planned_start IS NULL OR planned_end >= planned_start)
);
COMMENT ON TABLE mixdnn.jobs IS 'training jobs: submitted with INSERT, planned by the scheduler, launched by the background worker';
COMMENT ON COLUMN mixdnn.jobs.job_id IS 'generated identifier';
COMMENT ON COLUMN mixdnn.jobs.name IS 'free-form job name';
COMMENT ON COLUMN mixdnn.jobs.owner IS 'submitting role; a mixdnn_user sees and cancels only its own jobs';
COMMENT ON COLUMN mixdnn.jobs.model IS 'key into mixdnn.profiles; NULL or unknown: the scaling model';
COMMENT ON COLUMN mixdnn.jobs.model_class IS 'hard: exactly (gpu_type, gpus); soft: any allowed type and min_gpus .. max_gpus';
COMMENT ON COLUMN mixdnn.jobs.gpu_type IS 'reference (soft) or required (hard) GPU type; NULL for a soft job stated for speed-1.0 GPUs';
COMMENT ON COLUMN mixdnn.jobs.gpus IS 'reference (soft) or required (hard) GPU count';
COMMENT ON COLUMN mixdnn.jobs.min_gpus IS 'soft: fewest GPUs; default max(1, gpus / 2)';
COMMENT ON COLUMN mixdnn.jobs.max_gpus IS 'soft: most GPUs; default gpus';
COMMENT ON COLUMN mixdnn.jobs.allowed_types IS 'soft: GPU types it may run on; NULL = every registered type';
COMMENT ON COLUMN mixdnn.jobs.duration IS 'estimated run time on the reference configuration';
COMMENT ON COLUMN mixdnn.jobs.priority IS '-100 .. 100; each +10 doubles the job''s weight in the utility model';
COMMENT ON COLUMN mixdnn.jobs.command IS 'shell command the launcher runs on every node of the job';
COMMENT ON COLUMN mixdnn.jobs.status IS 'pending -> planned -> launching -> running -> completed | failed | cancelled';
COMMENT ON COLUMN mixdnn.jobs.submitted_at IS 'mixdnn.now() at submission';
COMMENT ON COLUMN mixdnn.jobs.planned_gpu_type IS 'configuration chosen by the latest round: GPU type';
COMMENT ON COLUMN mixdnn.jobs.planned_gpus IS 'configuration chosen by the latest round: GPU count';
COMMENT ON COLUMN mixdnn.jobs.planned_start IS 'start planned by the latest round (actual start once launched)';
COMMENT ON COLUMN mixdnn.jobs.planned_end IS 'expected end on the chosen configuration';
COMMENT ON COLUMN mixdnn.jobs.started_at IS 'when its GPUs were allocated';
COMMENT ON COLUMN mixdnn.jobs.finished_at IS 'when it completed, failed or was cancelled';
COMMENT ON COLUMN mixdnn.jobs.exit_code IS 'exit code reported by the launcher (first non-zero part, else 0)';
COMMENT ON COLUMN mixdnn.jobs.reason IS 'why it waits, was re-queued or failed, in plain words';
COMMENT ON COLUMN mixdnn.jobs.attempt IS 'launches so far; fences launcher calls of earlier attempts';

CREATE INDEX jobs_waiting_idx ON mixdnn.jobs (job_id) WHERE status IN ('pending', 'planned');
CREATE INDEX jobs_active_idx ON mixdnn.jobs (job_id) WHERE status IN ('launching', 'running');
CREATE INDEX jobs_owner_idx ON mixdnn.jobs (owner);

-- A job's part on one node, per launch attempt (SPEC §5).
CREATE TABLE mixdnn.job_parts (
	job_id		bigint NOT NULL REFERENCES mixdnn.jobs ON DELETE CASCADE,
	attempt		int NOT NULL,
	node		text NOT NULL REFERENCES mixdnn.gpu_nodes ON DELETE CASCADE,
	node_rank	int NOT NULL CHECK (node_rank >= 0),
	gpus		int NOT NULL CHECK (gpus >= 1),
	state		text NOT NULL DEFAULT 'launching'
				CHECK (state IN ('launching', 'running', 'completed', 'failed', 'lost', 'cancelled')),
	claimed_at	timestamptz,
	lease_until	timestamptz,
	finished_at	timestamptz,
	exit_code	int,
	PRIMARY KEY (job_id, attempt, node)
);
COMMENT ON TABLE mixdnn.job_parts IS 'each node''s part of each launch of a job, for the launcher protocol';
COMMENT ON COLUMN mixdnn.job_parts.attempt IS 'the job''s attempt when launched; calls for an older attempt are ignored';
COMMENT ON COLUMN mixdnn.job_parts.node_rank IS 'NODE_RANK of this part; rank 0 is MASTER_ADDR';
COMMENT ON COLUMN mixdnn.job_parts.state IS 'launching -> running -> completed | failed; lost when its lease expired; cancelled';
COMMENT ON COLUMN mixdnn.job_parts.lease_until IS 'the part is lost unless its node heartbeats before this';
CREATE INDEX job_parts_node_idx ON mixdnn.job_parts (node) WHERE state IN ('launching', 'running');

-- GPUs held right now. The primary key is the capacity invariant of SPEC §4:
-- no GPU index is held twice, and the foreign key keeps every hold on a GPU
-- that exists, so a node's holds never exceed its gpus.
CREATE TABLE mixdnn.gpu_holds (
	node		text NOT NULL,
	gpu_index	int NOT NULL,
	job_id		bigint NOT NULL REFERENCES mixdnn.jobs ON DELETE CASCADE,
	PRIMARY KEY (node, gpu_index),
	FOREIGN KEY (node, gpu_index) REFERENCES mixdnn.gpus
);
COMMENT ON TABLE mixdnn.gpu_holds IS 'GPUs held by launching and running jobs; the primary key forbids double-booking';
CREATE INDEX gpu_holds_job_idx ON mixdnn.gpu_holds (job_id);

CREATE VIEW mixdnn.allocations WITH (security_barrier) AS
	SELECT h.job_id, h.node, array_agg(h.gpu_index ORDER BY h.gpu_index) AS gpu_indices
	FROM mixdnn.gpu_holds h
	GROUP BY h.job_id, h.node;
COMMENT ON VIEW mixdnn.allocations IS 'GPUs held by launching and running jobs, one row per job and node';

CREATE TABLE mixdnn.rounds (
	round_id	bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at			timestamptz NOT NULL,
	event		text NOT NULL,
	policy		text NOT NULL,
	solver		text NOT NULL,
	solve_ms	float8,
	waiting		int,
	running		int,
	launched	int,
	objective	float8,
	heuristic_objective float8,
	bound		float8,
	milp_jobs	int,
	milp_vars	int
);
COMMENT ON TABLE mixdnn.rounds IS 'one row per scheduling round';
COMMENT ON COLUMN mixdnn.rounds.round_id IS 'generated identifier, in the order rounds ran';
COMMENT ON COLUMN mixdnn.rounds.at IS 'mixdnn.now() when the round ran';
COMMENT ON COLUMN mixdnn.rounds.policy IS 'mixdnn.policy of the round';
COMMENT ON COLUMN mixdnn.rounds.event IS 'what started it: arrival, completion, cancel, node, due, lease, retry, manual, ...';
COMMENT ON COLUMN mixdnn.rounds.solver IS 'what produced the plan: glpk, heuristic, or heuristic with the reason GLPK was not used';
COMMENT ON COLUMN mixdnn.rounds.solve_ms IS 'planner wall time in milliseconds';
COMMENT ON COLUMN mixdnn.rounds.waiting IS 'waiting jobs the round planned';
COMMENT ON COLUMN mixdnn.rounds.running IS 'launching and running jobs it planned around';
COMMENT ON COLUMN mixdnn.rounds.launched IS 'jobs launched right after it (by mixdnn.launch_due)';
COMMENT ON COLUMN mixdnn.rounds.objective IS 'utility-model value of the plan (docs/model.md)';
COMMENT ON COLUMN mixdnn.rounds.heuristic_objective IS 'value of the greedy heuristic''s plan alone';
COMMENT ON COLUMN mixdnn.rounds.bound IS 'upper bound on the objective from the LP relaxation, NULL when not solved';
COMMENT ON COLUMN mixdnn.rounds.milp_jobs IS 'jobs inside the MILP''s planning window';
COMMENT ON COLUMN mixdnn.rounds.milp_vars IS 'binary variables of the MILP';
CREATE INDEX rounds_at_idx ON mixdnn.rounds (at);

-- Every revision of every job's plan, for planned-versus-actual analyses.
CREATE TABLE mixdnn.plan_history (
	round_id	bigint NOT NULL REFERENCES mixdnn.rounds ON DELETE CASCADE,
	job_id		bigint NOT NULL REFERENCES mixdnn.jobs ON DELETE CASCADE,
	status		text NOT NULL,
	planned_gpu_type text,
	planned_gpus int,
	planned_start timestamptz,
	planned_end	timestamptz,
	reason		text,
	PRIMARY KEY (job_id, round_id)
);
COMMENT ON TABLE mixdnn.plan_history IS 'each round''s plan for a job, written only when it differs from the job''s previous plan';

-- Every status change, with the scheduler clock's time.
CREATE TABLE mixdnn.job_events (
	event_id	bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	job_id		bigint NOT NULL REFERENCES mixdnn.jobs ON DELETE CASCADE,
	at			timestamptz NOT NULL,
	old_status	text,
	new_status	text NOT NULL,
	reason		text
);
COMMENT ON TABLE mixdnn.job_events IS 'status history of every job';
CREATE INDEX job_events_job_idx ON mixdnn.job_events (job_id);
-- Validation of submissions and status changes (SPEC §7). Runs as the
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

CREATE FUNCTION mixdnn._job_before_write() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	cap_total	bigint;
	bad_type	text;
	rule_level	text;
	caller		text;
BEGIN
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
	IF NEW.duration IS NOT NULL AND (NEW.duration <= interval '0' OR NEW.duration > interval '366 days') THEN
		RAISE EXCEPTION 'duration must be positive and at most 366 days, not %', NEW.duration
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
			IF cardinality(NEW.allowed_types) = 0 OR array_position(NEW.allowed_types, NULL) IS NOT NULL THEN
				RAISE EXCEPTION 'allowed_types must name at least one GPU type and no NULL'
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Leave allowed_types NULL to allow every registered type.';
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

CREATE TRIGGER jobs_before_write
	BEFORE INSERT OR UPDATE ON mixdnn.jobs
	FOR EACH ROW EXECUTE FUNCTION mixdnn._job_before_write();

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
-- Event triggers: the scheduler lock, bookkeeping of status changes and
-- nodes, and the C triggers that run a round at commit (src/pg/triggers.c).

-- Every writer takes the scheduler's transaction lock before it touches a
-- row, so a round never waits for a row held by a writer that waits for it.
CREATE FUNCTION mixdnn._lock_scheduler() RETURNS trigger
	AS 'MODULE_PATHNAME', 'mixdnn_lock_scheduler_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._lock_scheduler() IS 'internal trigger: takes the scheduler lock before a statement writes jobs or nodes';

CREATE FUNCTION mixdnn._lock_scheduler_now() RETURNS void
	AS 'MODULE_PATHNAME', 'mixdnn_lock_scheduler'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._lock_scheduler_now() IS 'internal: takes the scheduler lock until the end of the transaction';
REVOKE ALL ON FUNCTION mixdnn._lock_scheduler_now() FROM PUBLIC;

CREATE TRIGGER jobs_lock BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.jobs
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();
CREATE TRIGGER gpu_nodes_lock BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_nodes
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();
CREATE TRIGGER profiles_lock BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.profiles
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();
CREATE TRIGGER gpu_types_lock BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_types
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();

-- Status history, GPU release and cancel notices. Runs as the owner because
-- a user who cancels its job may not write these tables itself.
CREATE FUNCTION mixdnn._job_after_write() RETURNS trigger
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
		IF NEW.status = 'cancelled' THEN
			PERFORM pg_catalog.pg_notify('mixdnn_cancel',
					json_build_object('job_id', p.job_id, 'node', p.node)::text)
				FROM mixdnn.job_parts p
				WHERE p.job_id = OLD.job_id AND p.attempt = OLD.attempt AND p.state IN ('launching', 'running');
		END IF;
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

CREATE TRIGGER jobs_after_write AFTER INSERT OR UPDATE OF status ON mixdnn.jobs
	FOR EACH ROW EXECUTE FUNCTION mixdnn._job_after_write();

-- Keeps mixdnn.gpus in step with gpu_nodes, and deals with a node that goes down.
CREATE FUNCTION mixdnn._node_after_write() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	held	record;
	retries	int := coalesce(nullif(current_setting('mixdnn.max_retries', true), '')::int, 3);
BEGIN
	IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.gpus > OLD.gpus) THEN
		INSERT INTO mixdnn.gpus (node, gpu_index)
			SELECT NEW.node, i FROM generate_series(CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE OLD.gpus END,
													NEW.gpus - 1) i;
	ELSIF TG_OP = 'UPDATE' AND NEW.gpus < OLD.gpus THEN
		SELECT h.gpu_index, h.job_id INTO held FROM mixdnn.gpu_holds h
			WHERE h.node = NEW.node AND h.gpu_index >= NEW.gpus LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'node % cannot shrink to % GPUs: GPU % is held by job %',
					NEW.node, NEW.gpus, held.gpu_index, held.job_id
				USING ERRCODE = 'object_in_use',
					  HINT = 'Drain the node and wait for its jobs to finish first.';
		END IF;
		DELETE FROM mixdnn.gpus g WHERE g.node = NEW.node AND g.gpu_index >= NEW.gpus;
	END IF;

	IF TG_OP = 'UPDATE' AND NEW.status = 'down' AND OLD.status <> 'down' THEN
		-- Its jobs cannot go on: re-queue them while retries remain.
		UPDATE mixdnn.jobs j
			SET status = CASE WHEN j.attempt <= retries THEN 'planned' ELSE 'failed' END,
				reason = CASE WHEN j.attempt <= retries
							  THEN format('node %s went down; re-queued after attempt %s', NEW.node, j.attempt)
							  ELSE format('node %s went down; failed after %s attempts', NEW.node, j.attempt) END
			WHERE j.status IN ('launching', 'running')
			  AND EXISTS (SELECT FROM mixdnn.job_parts p
						  WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = NEW.node
							AND p.state IN ('launching', 'running'));
	END IF;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._node_after_write() IS 'internal trigger: keeps mixdnn.gpus in step and re-queues the jobs of a node that goes down';

CREATE TRIGGER gpu_nodes_after_write AFTER INSERT OR UPDATE ON mixdnn.gpu_nodes
	FOR EACH ROW EXECUTE FUNCTION mixdnn._node_after_write();

-- Round requests (BEFORE each row) and rounds at commit (deferred), in C.
CREATE FUNCTION mixdnn._note_event() RETURNS trigger
	AS 'MODULE_PATHNAME', 'mixdnn_note_event'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._note_event() IS 'internal trigger: notes that the transaction needs a scheduling round';

CREATE FUNCTION mixdnn._round_at_commit() RETURNS trigger
	AS 'MODULE_PATHNAME', 'mixdnn_round_at_commit'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._round_at_commit() IS 'internal trigger: runs the transaction''s scheduling round when it commits';

CREATE TRIGGER jobs_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.jobs
	FOR EACH ROW EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER gpu_nodes_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_nodes
	FOR EACH ROW EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER profiles_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.profiles
	FOR EACH ROW EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER gpu_types_note_event BEFORE UPDATE ON mixdnn.gpu_types
	FOR EACH ROW EXECUTE FUNCTION mixdnn._note_event();

CREATE CONSTRAINT TRIGGER jobs_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.jobs
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();
CREATE CONSTRAINT TRIGGER gpu_nodes_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.gpu_nodes
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();
CREATE CONSTRAINT TRIGGER profiles_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.profiles
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();
CREATE CONSTRAINT TRIGGER gpu_types_round AFTER UPDATE ON mixdnn.gpu_types
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();

-- Rounds and launches on demand.
CREATE FUNCTION mixdnn.run_round(event text DEFAULT 'manual') RETURNS bigint
	AS 'MODULE_PATHNAME', 'mixdnn_run_round'
	LANGUAGE C STRICT;
COMMENT ON FUNCTION mixdnn.run_round(text) IS 'runs a scheduling round now and returns its round_id';

CREATE FUNCTION mixdnn.launch_due() RETURNS int
	AS 'MODULE_PATHNAME', 'mixdnn_launch_due'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn.launch_due() IS 'allocates GPUs to planned jobs whose start has come (gang: all or nothing) and notifies their launchers; returns how many it launched';
-- Who sees and changes what. Nothing is granted to PUBLIC.

-- Planned versus actual, for analysts.
CREATE VIEW mixdnn.schedule WITH (security_invoker = true) AS
	SELECT j.job_id, j.name, j.owner, j.model_class, j.status,
		   j.gpu_type AS requested_gpu_type, j.gpus AS requested_gpus,
		   j.planned_gpu_type, j.planned_gpus,
		   j.submitted_at,
		   (SELECT h.planned_start FROM mixdnn.plan_history h
			 WHERE h.job_id = j.job_id AND h.planned_start IS NOT NULL
			 ORDER BY h.round_id LIMIT 1) AS first_planned_start,
		   j.planned_start, j.planned_end, j.started_at, j.finished_at,
		   j.started_at - j.submitted_at AS wait,
		   j.finished_at - j.submitted_at AS jct,
		   (SELECT count(*) FROM mixdnn.plan_history h WHERE h.job_id = j.job_id) AS revisions,
		   j.reason
	FROM mixdnn.jobs j;
COMMENT ON VIEW mixdnn.schedule IS 'each job''s first plan, latest plan and actual start and finish';

ALTER TABLE mixdnn.jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY jobs_own ON mixdnn.jobs TO mixdnn_user
	USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY jobs_admin ON mixdnn.jobs TO mixdnn_admin
	USING (true) WITH CHECK (true);

ALTER TABLE mixdnn.plan_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY plan_history_own ON mixdnn.plan_history FOR SELECT TO mixdnn_user
	USING (EXISTS (SELECT FROM mixdnn.jobs j WHERE j.job_id = plan_history.job_id));
ALTER TABLE mixdnn.job_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_events_own ON mixdnn.job_events FOR SELECT TO mixdnn_user
	USING (EXISTS (SELECT FROM mixdnn.jobs j WHERE j.job_id = job_events.job_id));
ALTER TABLE mixdnn.job_parts ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_parts_own ON mixdnn.job_parts FOR SELECT TO mixdnn_user
	USING (EXISTS (SELECT FROM mixdnn.jobs j WHERE j.job_id = job_parts.job_id));
ALTER TABLE mixdnn.gpu_holds ENABLE ROW LEVEL SECURITY;
CREATE POLICY gpu_holds_all ON mixdnn.gpu_holds FOR SELECT TO mixdnn_user, mixdnn_launcher
	USING (true);

REVOKE ALL ON ALL TABLES IN SCHEMA mixdnn FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA mixdnn FROM PUBLIC;

-- Users: submit, read, cancel their own jobs; read the cluster and history.
GRANT SELECT ON mixdnn.gpu_types, mixdnn.gpu_nodes, mixdnn.gpus, mixdnn.profiles, mixdnn.rounds,
	mixdnn.status_transitions, mixdnn.gpu_holds, mixdnn.allocations TO mixdnn_user;
GRANT SELECT ON mixdnn.jobs, mixdnn.plan_history, mixdnn.job_events, mixdnn.job_parts, mixdnn.schedule TO mixdnn_user;
GRANT INSERT (name, model, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types,
			  duration, priority, command) ON mixdnn.jobs TO mixdnn_user;
GRANT UPDATE (status) ON mixdnn.jobs TO mixdnn_user;

-- Admins: the cluster, every job, and running rounds and launches by hand.
GRANT SELECT, INSERT, UPDATE, DELETE ON mixdnn.gpu_types, mixdnn.gpu_nodes, mixdnn.profiles TO mixdnn_admin;
GRANT INSERT (owner, submitted_at), UPDATE (status, priority, reason, owner) ON mixdnn.jobs TO mixdnn_admin;
GRANT SELECT ON mixdnn.plan_history, mixdnn.job_events, mixdnn.job_parts TO mixdnn_admin;
GRANT EXECUTE ON FUNCTION mixdnn.run_round(text), mixdnn.launch_due() TO mixdnn_admin;

-- Launchers: only through the launcher functions (60_launcher.sql).
GRANT SELECT ON mixdnn.gpu_nodes TO mixdnn_launcher;

-- Functions that triggers call as the invoker. (Trigger functions
-- themselves need no EXECUTE grant.)
GRANT EXECUTE ON FUNCTION mixdnn.now(), mixdnn._caller_level(),
	mixdnn._job_can_run(text, text, int, int, int, text[], text) TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
-- The launcher protocol (SPEC §5, docs/launcher.md): what launchers call,
-- lease expiry, and the background worker's start-up repair.
--
-- Every function runs as the extension's owner, a superuser, because the
-- status changes it makes are the scheduler's ('system' in
-- mixdnn.status_transitions). Each takes the scheduler lock before it reads
-- or writes a row, so it never deadlocks with a round, and names everything
-- with its schema.

-- Internal: the lease a claim or heartbeat grants.
CREATE FUNCTION mixdnn._lease() RETURNS interval
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce(nullif(pg_catalog.current_setting('mixdnn.lease_timeout', true), ''), '60s')::interval
	$$;
COMMENT ON FUNCTION mixdnn._lease() IS 'internal: the setting mixdnn.lease_timeout as an interval';

-- Internal: a launcher names a registered node, never NULL.
CREATE FUNCTION mixdnn._check_node(node text) RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	IF node IS NULL THEN
		RAISE EXCEPTION 'node must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF NOT EXISTS (SELECT FROM mixdnn.gpu_nodes n WHERE n.node = _check_node.node) THEN
		RAISE EXCEPTION 'unknown node "%"', node
			USING ERRCODE = 'undefined_object',
				  HINT = 'Registered nodes are listed in mixdnn.gpu_nodes; start the launcher with --node set to one of them.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_node(text) IS 'internal: raises unless node names a registered GPU node';

-- Internal: a job lost the parts on lost_nodes (lease expired, launcher
-- restarted, crash). Those parts become 'lost', the job's other nodes are
-- told to stop, and the job is re-queued while retries remain, else failed.
-- Its attempt is kept: the next launch takes the next one. The caller holds
-- the scheduler lock.
CREATE FUNCTION mixdnn._lose_job(job bigint, lost_nodes text[], what text) RETURNS boolean
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	j		record;
	retries	int := coalesce(nullif(pg_catalog.current_setting('mixdnn.max_retries', true), '')::int, 3);
BEGIN
	SELECT jb.job_id, jb.status, jb.attempt INTO j FROM mixdnn.jobs jb WHERE jb.job_id = job FOR UPDATE;
	IF NOT FOUND OR j.status NOT IN ('launching', 'running') THEN
		RETURN false;
	END IF;

	UPDATE mixdnn.job_parts p SET state = 'lost', finished_at = mixdnn.now()
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = ANY (lost_nodes)
		  AND p.state IN ('launching', 'running');

	-- The bookkeeping trigger only notifies for a cancel; here the nodes
	-- still running the job must hear it as well.
	PERFORM pg_catalog.pg_notify('mixdnn_cancel',
			pg_catalog.format('{"job_id": %s, "node": %s}', p.job_id, pg_catalog.to_json(p.node)))
		FROM mixdnn.job_parts p
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state IN ('launching', 'running');

	UPDATE mixdnn.jobs jb
		SET status = CASE WHEN j.attempt <= retries THEN 'planned' ELSE 'failed' END,
			reason = CASE WHEN j.attempt <= retries
						  THEN pg_catalog.format('%s; re-queued after attempt %s', what, j.attempt)
						  ELSE pg_catalog.format('%s; failed after %s attempts', what, j.attempt) END
		WHERE jb.job_id = j.job_id;
	RETURN true;
END
$$;
COMMENT ON FUNCTION mixdnn._lose_job(bigint, text[], text) IS 'internal: marks a job''s parts on the given nodes lost and re-queues or fails the job';

CREATE FUNCTION mixdnn.claim(node text)
	RETURNS TABLE (job_id bigint, name text, command text, gpu_indices int[], nodes text[],
				   node_rank int, world_gpus int, env jsonb)
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	now_ts		timestamptz;
	claimed		bigint[];
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(claim.node);
	now_ts := mixdnn.now();
	-- Any call from a launcher shows it is alive.
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = now_ts, unreachable_since = NULL WHERE n.node = claim.node;

	-- Only the current attempt of a job that is still launching or running.
	WITH c AS (
		UPDATE mixdnn.job_parts p
			SET state = 'running', claimed_at = now_ts, lease_until = now_ts + mixdnn._lease()
			FROM mixdnn.jobs j
			WHERE p.node = claim.node AND p.state = 'launching'
			  AND j.job_id = p.job_id AND j.attempt = p.attempt AND j.status IN ('launching', 'running')
			RETURNING p.job_id)
	SELECT pg_catalog.array_agg(c.job_id ORDER BY c.job_id) INTO claimed FROM c;
	IF claimed IS NULL THEN
		RETURN;
	END IF;

	-- The first claimed part makes the job running: its process exists.
	UPDATE mixdnn.jobs j SET status = 'running'
		WHERE j.job_id = ANY (claimed) AND j.status = 'launching';

	RETURN QUERY
	SELECT j.job_id, j.name, j.command, x.gpu_indices, w.nodes, p.node_rank, w.world_gpus,
		   pg_catalog.jsonb_build_object(
				'MASTER_ADDR', coalesce(m.address, m.node),
				'MASTER_PORT', (29500 + j.job_id % 1000)::text,
				'WORLD_SIZE', w.world_gpus::text,
				'NODE_RANK', p.node_rank::text,
				'MIXDNN_JOB_ID', j.job_id::text,
				'CUDA_VISIBLE_DEVICES', pg_catalog.array_to_string(x.gpu_indices, ','),
				'MIXDNN_ATTEMPT', j.attempt::text,
				'MIXDNN_NODE', p.node,
				'MIXDNN_NNODES', pg_catalog.cardinality(w.nodes)::text,
				'MIXDNN_LOCAL_GPUS', p.gpus::text)
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
	WHERE p.node = claim.node AND p.job_id = ANY (claimed)
	ORDER BY j.job_id;
END
$$;
COMMENT ON FUNCTION mixdnn.claim(text) IS 'launcher: takes the node''s launching parts (current attempts only), marks them and their jobs running, renews their leases and returns what to run with its environment';

CREATE FUNCTION mixdnn.heartbeat(node text) RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	now_ts	timestamptz;
	held	int;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(heartbeat.node);
	now_ts := mixdnn.now();

	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = now_ts, unreachable_since = NULL WHERE n.node = heartbeat.node;

	-- Only claimed parts: a launching part must be claimed before its lease ends.
	UPDATE mixdnn.job_parts p SET lease_until = now_ts + mixdnn._lease()
		FROM mixdnn.jobs j
		WHERE p.node = heartbeat.node AND p.state = 'running'
		  AND j.job_id = p.job_id AND j.attempt = p.attempt AND j.status IN ('launching', 'running');
	GET DIAGNOSTICS held = ROW_COUNT;
	RETURN held;
END
$$;
COMMENT ON FUNCTION mixdnn.heartbeat(text) IS 'launcher: renews the node''s last_heartbeat and the leases of the parts it runs; returns how many parts it runs';

CREATE FUNCTION mixdnn.finish(job_id bigint, exit_code int, node text, attempt int DEFAULT NULL)
	RETURNS boolean
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	j		record;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	IF finish.job_id IS NULL OR finish.exit_code IS NULL THEN
		RAISE EXCEPTION 'job_id and exit_code must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	PERFORM mixdnn._check_node(finish.node);
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = mixdnn.now(), unreachable_since = NULL WHERE n.node = finish.node;
	SELECT jb.job_id, jb.status, jb.attempt INTO j FROM mixdnn.jobs jb WHERE jb.job_id = finish.job_id FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', finish.job_id
			USING ERRCODE = 'no_data_found';
	END IF;

	-- Fencing: a stale attempt, a part this node did not claim, or a second
	-- report changes nothing.
	IF (finish.attempt IS NOT NULL AND finish.attempt <> j.attempt)
	   OR j.status NOT IN ('launching', 'running') THEN
		RETURN false;
	END IF;
	UPDATE mixdnn.job_parts p
		SET state = CASE WHEN finish.exit_code = 0 THEN 'completed' ELSE 'failed' END,
			finished_at = mixdnn.now(), exit_code = finish.exit_code
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = finish.node AND p.state = 'running';
	IF NOT FOUND THEN
		RETURN false;
	END IF;

	IF finish.exit_code <> 0 THEN
		-- One failed part fails the gang: the other nodes stop theirs.
		PERFORM pg_catalog.pg_notify('mixdnn_cancel',
				pg_catalog.format('{"job_id": %s, "node": %s}', p.job_id, pg_catalog.to_json(p.node)))
			FROM mixdnn.job_parts p
			WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state IN ('launching', 'running');
		UPDATE mixdnn.jobs jb
			SET status = 'failed', exit_code = finish.exit_code,
				reason = pg_catalog.format('exited with code %s on node %s', finish.exit_code, finish.node)
			WHERE jb.job_id = j.job_id;
	ELSIF NOT EXISTS (SELECT FROM mixdnn.job_parts p
					  WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state <> 'completed') THEN
		UPDATE mixdnn.jobs jb SET status = 'completed', exit_code = 0, reason = NULL
			WHERE jb.job_id = j.job_id;
	END IF;
	RETURN true;
END
$$;
COMMENT ON FUNCTION mixdnn.finish(bigint, int, text, int) IS 'launcher: reports the exit code of the job''s part on node (of attempt, when given); true if it counted, false for a stale attempt, an unclaimed part or a repeated report';

CREATE FUNCTION mixdnn.finish(job_id bigint, exit_code int) RETURNS boolean
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	j		record;
	running	text[];
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	IF finish.job_id IS NULL OR finish.exit_code IS NULL THEN
		RAISE EXCEPTION 'job_id and exit_code must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT jb.job_id, jb.attempt INTO j FROM mixdnn.jobs jb WHERE jb.job_id = finish.job_id FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', finish.job_id
			USING ERRCODE = 'no_data_found';
	END IF;
	SELECT pg_catalog.array_agg(p.node) INTO running FROM mixdnn.job_parts p
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state = 'running';
	IF running IS NULL THEN
		RETURN false;
	END IF;
	IF pg_catalog.cardinality(running) > 1 THEN
		RAISE EXCEPTION 'job % runs on % nodes', j.job_id, pg_catalog.cardinality(running)
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Each node''s launcher reports with mixdnn.finish(job_id, exit_code, node).';
	END IF;
	RETURN mixdnn.finish(j.job_id, finish.exit_code, running[1], j.attempt);
END
$$;
COMMENT ON FUNCTION mixdnn.finish(bigint, int) IS 'reports the exit code of a job running on one node; false if it is not running';

CREATE FUNCTION mixdnn.node_parts(node text)
	RETURNS TABLE (job_id bigint, attempt int, state text)
	LANGUAGE plpgsql STABLE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
BEGIN
	PERFORM mixdnn._check_node(node_parts.node);
	RETURN QUERY
	SELECT p.job_id, p.attempt, p.state
	FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
	WHERE p.node = node_parts.node AND p.state IN ('launching', 'running')
	  AND j.status IN ('launching', 'running')
	ORDER BY p.job_id;
END
$$;
COMMENT ON FUNCTION mixdnn.node_parts(text) IS 'launcher: the parts the node should be running now (job, attempt); a launcher stops any process not listed';

CREATE FUNCTION mixdnn.reset_node(node text, job_id bigint DEFAULT NULL) RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	r		record;
	n		int := 0;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(reset_node.node);
	FOR r IN
		SELECT p.job_id FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE p.node = reset_node.node AND p.state = 'running' AND j.status IN ('launching', 'running')
		  AND (reset_node.job_id IS NULL OR p.job_id = reset_node.job_id)
		ORDER BY p.job_id
	LOOP
		IF mixdnn._lose_job(r.job_id, ARRAY[reset_node.node],
							pg_catalog.format('launcher of node %s restarted', reset_node.node)) THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn.reset_node(text, bigint) IS 'launcher: the parts the node claimed (of job_id only, when given) and no longer runs are lost at once, as if their lease had expired; a launcher calls it at start-up; returns how many jobs';

CREATE FUNCTION mixdnn.expire_leases() RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r		record;
	n		int := 0;
	now_ts	timestamptz;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	now_ts := mixdnn.now();
	FOR r IN
		SELECT p.job_id, pg_catalog.array_agg(p.node ORDER BY p.node_rank) AS nodes,
			   pg_catalog.bool_and(p.state = 'launching') AS unclaimed
		FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE p.state IN ('launching', 'running') AND p.lease_until < now_ts
		  AND j.status IN ('launching', 'running')
		GROUP BY p.job_id
		ORDER BY p.job_id
	LOOP
		-- Its launcher is gone: the node takes no new jobs until it calls again.
		UPDATE mixdnn.gpu_nodes g SET unreachable_since = now_ts
			WHERE g.node = ANY (r.nodes) AND g.unreachable_since IS NULL;
		IF mixdnn._lose_job(r.job_id, r.nodes,
				CASE WHEN r.unclaimed
					 THEN pg_catalog.format('no launcher claimed it on node %s in time',
											pg_catalog.array_to_string(r.nodes, ', '))
					 ELSE pg_catalog.format('launcher of node %s stopped heartbeating',
											pg_catalog.array_to_string(r.nodes, ', ')) END) THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn.expire_leases() IS 're-queues (or, past mixdnn.max_retries, fails) the jobs with a part whose lease ran out; returns how many; the background worker calls it';

-- Internal, for the background worker: when it must look again.
CREATE FUNCTION mixdnn._next_wakeup() RETURNS timestamptz
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT LEAST(
		(SELECT pg_catalog.min(j.planned_start) FROM mixdnn.jobs j WHERE j.status = 'planned'),
		(SELECT pg_catalog.min(p.lease_until)
		 FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		 WHERE p.state IN ('launching', 'running') AND j.status IN ('launching', 'running')))
	$$;
COMMENT ON FUNCTION mixdnn._next_wakeup() IS 'internal: the earliest planned start or lease end, when the worker must act next';

-- Internal, for the background worker at start-up: undo what a crash may
-- have left inconsistent, and give launchers one lease to come back after a
-- server restart before their jobs are declared lost.
CREATE FUNCTION mixdnn._repair() RETURNS int
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	r		record;
	fixed	int := 0;
	k		int;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();

	DELETE FROM mixdnn.gpu_holds h
		WHERE NOT EXISTS (SELECT FROM mixdnn.jobs j
						  WHERE j.job_id = h.job_id AND j.status IN ('launching', 'running'));
	GET DIAGNOSTICS k = ROW_COUNT;
	fixed := fixed + k;

	UPDATE mixdnn.job_parts p SET state = 'lost', finished_at = coalesce(p.finished_at, mixdnn.now())
		WHERE p.state IN ('launching', 'running')
		  AND NOT EXISTS (SELECT FROM mixdnn.jobs j
						  WHERE j.job_id = p.job_id AND j.attempt = p.attempt
							AND j.status IN ('launching', 'running'));
	GET DIAGNOSTICS k = ROW_COUNT;
	fixed := fixed + k;

	-- An active job needs its GPUs and a part on every node it holds GPUs on.
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
											  AND p.node = h.node AND p.state IN ('launching', 'running'))))
		ORDER BY j.job_id
	LOOP
		PERFORM mixdnn._lose_job(r.job_id,
				ARRAY(SELECT p.node FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id
					  WHERE p.job_id = r.job_id AND p.attempt = j.attempt),
				'found half-launched after a restart');
		fixed := fixed + 1;
	END LOOP;

	UPDATE mixdnn.job_parts p SET lease_until = GREATEST(p.lease_until, mixdnn.now() + mixdnn._lease())
		WHERE p.state IN ('launching', 'running');
	RETURN fixed;
END
$$;
COMMENT ON FUNCTION mixdnn._repair() IS 'internal: background worker start-up repair of half-done launches, and one more lease for every active part';

REVOKE ALL ON FUNCTION mixdnn._lease(), mixdnn._check_node(text), mixdnn._lose_job(bigint, text[], text),
	mixdnn.claim(text), mixdnn.heartbeat(text), mixdnn.finish(bigint, int, text, int),
	mixdnn.finish(bigint, int), mixdnn.node_parts(text), mixdnn.reset_node(text, bigint),
	mixdnn.expire_leases(), mixdnn._next_wakeup(), mixdnn._repair() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.claim(text), mixdnn.heartbeat(text), mixdnn.finish(bigint, int, text, int),
	mixdnn.finish(bigint, int), mixdnn.node_parts(text), mixdnn.reset_node(text, bigint) TO mixdnn_launcher;
GRANT EXECUTE ON FUNCTION mixdnn.finish(bigint, int), mixdnn.expire_leases() TO mixdnn_admin;
