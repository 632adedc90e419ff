-- Event triggers: the scheduler lock, bookkeeping of status changes and
-- nodes, and the C triggers that run a round at commit (src/pg/triggers.c).

-- The scheduler lock (src/pg/lock.c): rounds, launches, the launcher
-- functions that change job state and every writer of the cluster tables
-- take it, each waiting at most mixdnn.lock_timeout. Writers of jobs do not:
-- their round takes it at commit, and rounds never wait for their rows.
CREATE FUNCTION mixdnn._lock_scheduler() RETURNS trigger
	AS 'MODULE_PATHNAME', 'mixdnn_lock_scheduler_trigger'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._lock_scheduler() IS 'internal trigger: takes the scheduler lock before a statement changes the cluster';

CREATE FUNCTION mixdnn._lock_scheduler_now() RETURNS void
	AS 'MODULE_PATHNAME', 'mixdnn_lock_scheduler'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._lock_scheduler_now() IS 'internal: bounds the calling function''s lock waits by mixdnn.lock_timeout, then takes the scheduler lock until the end of the transaction';
REVOKE ALL ON FUNCTION mixdnn._lock_scheduler_now() FROM PUBLIC;

CREATE FUNCTION mixdnn._bound_lock_waits() RETURNS void
	AS 'MODULE_PATHNAME', 'mixdnn_bound_lock_waits'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._bound_lock_waits() IS 'internal: bounds the calling function''s lock waits by mixdnn.lock_timeout';
REVOKE ALL ON FUNCTION mixdnn._bound_lock_waits() FROM PUBLIC;

-- Launcher calls write last_heartbeat and unreachable_since without it.
CREATE TRIGGER gpu_nodes_lock BEFORE INSERT OR UPDATE OF node, gpu_type, gpus, status OR DELETE ON mixdnn.gpu_nodes
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();
CREATE TRIGGER profiles_lock BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.profiles
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();
CREATE TRIGGER gpu_types_lock BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_types
	FOR EACH STATEMENT EXECUTE FUNCTION mixdnn._lock_scheduler();

-- mixdnn._job_after_write(): 39_job_after_write.sql.

CREATE TRIGGER jobs_after_write AFTER INSERT OR UPDATE OF status ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._job_after_write();

-- mixdnn._node_after_write(): 39b_node_down.sql.

CREATE TRIGGER gpu_nodes_after_write AFTER INSERT OR UPDATE ON mixdnn.gpu_nodes
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._node_after_write();

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
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER gpu_nodes_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_nodes
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER profiles_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.profiles
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER gpu_types_note_event BEFORE UPDATE ON mixdnn.gpu_types
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();

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
	LANGUAGE C CALLED ON NULL INPUT;
COMMENT ON FUNCTION mixdnn.run_round(text) IS 'runs a scheduling round now and returns its round_id';

CREATE FUNCTION mixdnn.launch_due() RETURNS int
	AS 'MODULE_PATHNAME', 'mixdnn_launch_due'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn.launch_due() IS 'allocates GPUs to planned jobs whose start has come (gang: all or nothing) and notifies their launchers; returns how many it launched';
