-- Cluster, jobs, and what the scheduler writes (contract §3).

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
	submitted_at timestamptz NOT NULL DEFAULT mixdnn.now()
		CONSTRAINT jobs_submitted_at_check CHECK (pg_catalog.isfinite(submitted_at)),
	planned_gpu_type text,
	planned_gpus int,
	planned_start timestamptz,
	planned_end	timestamptz,
	started_at	timestamptz,
	finished_at	timestamptz,
	exit_code	int,
	reason		text,
	attempt		int NOT NULL DEFAULT 0,
	workdir		text,
	env			jsonb,
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
COMMENT ON COLUMN mixdnn.jobs.workdir IS 'absolute directory the command starts in; NULL = the owner''s home directory';
COMMENT ON COLUMN mixdnn.jobs.env IS 'extra environment of the command: a JSON object of strings; the launcher''s own names are refused';

CREATE INDEX jobs_waiting_idx ON mixdnn.jobs (job_id) WHERE status IN ('pending', 'planned');
CREATE INDEX jobs_active_idx ON mixdnn.jobs (job_id) WHERE status IN ('launching', 'running');
CREATE INDEX jobs_owner_idx ON mixdnn.jobs (owner);

-- A job's part on one node, per launch attempt (contract §5).
CREATE TABLE mixdnn.job_parts (
	job_id		bigint NOT NULL REFERENCES mixdnn.jobs ON DELETE CASCADE,
	attempt		int NOT NULL,
	-- no foreign key: a part is history, kept after its node is deleted (a
	-- node whose GPUs a job holds cannot be: _validate's node check)
	node		text NOT NULL,
	node_rank	int NOT NULL CHECK (node_rank >= 0),
	gpus		int NOT NULL CHECK (gpus >= 1),
	state		text NOT NULL DEFAULT 'launching'
				CHECK (state IN ('launching', 'running', 'completed', 'failed', 'lost', 'cancelled')),
	claimed_at	timestamptz,
	lease_until	timestamptz,
	finished_at	timestamptz,
	exit_code	int,
	-- the node's type when the part launched: a node deleted, or registered
	-- again with another type, since then leaves the part's history as it ran
	gpu_type	text,
	-- this launch of the part, as no other anywhere: a copy of the cluster
	-- restored to an earlier time reuses job ids and attempts (and rewinds
	-- sequences), so random, never counted (63_launcher_parts.sql)
	launch_token uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid(),
	PRIMARY KEY (job_id, attempt, node)
);
COMMENT ON TABLE mixdnn.job_parts IS 'each node''s part of each launch of a job, for the launcher protocol';
COMMENT ON COLUMN mixdnn.job_parts.attempt IS 'the job''s attempt when launched; calls for an older attempt are ignored';
COMMENT ON COLUMN mixdnn.job_parts.node_rank IS 'NODE_RANK of this part; rank 0 is MASTER_ADDR';
COMMENT ON COLUMN mixdnn.job_parts.state IS 'launching -> running -> completed | failed; lost when its lease expired; cancelled';
COMMENT ON COLUMN mixdnn.job_parts.lease_until IS 'the part is lost unless its node heartbeats before this';
COMMENT ON COLUMN mixdnn.job_parts.gpu_type IS 'GPU type of its node at launch; NULL where unknown (a part of a node missing at the upgrade from 0.1.0)';
COMMENT ON COLUMN mixdnn.job_parts.launch_token IS 'random id of this launch of the part: the launcher keeps it with the part''s process and reports with it';
CREATE INDEX job_parts_node_idx ON mixdnn.job_parts (node) WHERE state IN ('launching', 'running');

-- GPUs held right now. The primary key is the capacity invariant of contract §4:
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
-- Deleting a round (mixdnn.purge_history) looks up its revisions through the
-- foreign key: without it each deleted round read the whole table.
CREATE INDEX plan_history_round_idx ON mixdnn.plan_history (round_id);

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
