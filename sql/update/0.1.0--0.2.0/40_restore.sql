-- Restores: a data load passes the triggers that validate, record and plan (25_restore.sql).
CREATE FUNCTION mixdnn._loading() RETURNS boolean
	AS 'MODULE_PATHNAME', 'mixdnn_loading'
	LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mixdnn._loading() IS 'internal: whether the current statement is a data load of a restore';
REVOKE ALL ON FUNCTION mixdnn._loading() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn._loading() TO mixdnn_user, mixdnn_admin, mixdnn_launcher;

DROP TRIGGER jobs_before_write ON mixdnn.jobs;
CREATE TRIGGER jobs_before_write
	BEFORE INSERT OR UPDATE ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._job_before_write();

DROP TRIGGER jobs_after_write ON mixdnn.jobs;
CREATE TRIGGER jobs_after_write AFTER INSERT OR UPDATE OF status ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._job_after_write();

DROP TRIGGER gpu_nodes_after_write ON mixdnn.gpu_nodes;
CREATE TRIGGER gpu_nodes_after_write AFTER INSERT OR UPDATE ON mixdnn.gpu_nodes
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._node_after_write();

DROP TRIGGER jobs_note_event ON mixdnn.jobs;
CREATE TRIGGER jobs_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
DROP TRIGGER gpu_nodes_note_event ON mixdnn.gpu_nodes;
CREATE TRIGGER gpu_nodes_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.gpu_nodes
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
DROP TRIGGER profiles_note_event ON mixdnn.profiles;
CREATE TRIGGER profiles_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.profiles
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
DROP TRIGGER gpu_types_note_event ON mixdnn.gpu_types;
CREATE TRIGGER gpu_types_note_event BEFORE UPDATE ON mixdnn.gpu_types
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
-- A 0.1.0 database may hold commands the 64 kB check refuses; its dump must restore.
DROP TRIGGER jobs_check_env ON mixdnn.jobs;
CREATE TRIGGER jobs_check_env
	BEFORE INSERT OR UPDATE OF workdir, env, command ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._job_check_env();
