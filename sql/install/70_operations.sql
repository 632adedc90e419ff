-- Operating the extension (docs/operations.md): what pg_dump saves, the
-- guard on DROP EXTENSION, history retention, and the preload check.

-- pg_dump saves the rows of these tables and the values of these
-- sequences; a restore loads them back as they were (25_restore.sql), in
-- the order of their foreign keys. Not dumped: mixdnn.status_transitions,
-- the version's rules, which the install script writes.
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_types', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_nodes', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpus', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.profiles', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_parts', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_holds', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.rounds', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.plan_history', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_events', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.jobs_job_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.rounds_round_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_events_event_id_seq', '');

-- DROP EXTENSION mixdnn while jobs run is refused (src/pg/dropguard.c).
CREATE FUNCTION mixdnn._guard_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'mixdnn_guard_drop'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._guard_drop() IS 'internal event trigger: refuses DROP EXTENSION mixdnn or DROP SCHEMA mixdnn while jobs are launching or running, unless mixdnn.force_drop is on';
REVOKE ALL ON FUNCTION mixdnn._guard_drop() FROM PUBLIC;

CREATE EVENT TRIGGER mixdnn_guard_drop ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
	EXECUTE FUNCTION mixdnn._guard_drop();
COMMENT ON EVENT TRIGGER mixdnn_guard_drop IS 'refuses to drop mixdnn while jobs are launching or running';

-- mixdnn.purge_history(): 70b_purge_history.sql.
