-- DROP EXTENSION mixdnn while jobs run is refused (70_operations.sql).
CREATE FUNCTION mixdnn._guard_drop() RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'mixdnn_guard_drop'
	LANGUAGE C;
COMMENT ON FUNCTION mixdnn._guard_drop() IS 'internal event trigger: refuses DROP EXTENSION mixdnn or DROP SCHEMA mixdnn while jobs are launching or running, unless mixdnn.force_drop is on';
REVOKE ALL ON FUNCTION mixdnn._guard_drop() FROM PUBLIC;

CREATE EVENT TRIGGER mixdnn_guard_drop ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA')
	EXECUTE FUNCTION mixdnn._guard_drop();
COMMENT ON EVENT TRIGGER mixdnn_guard_drop IS 'refuses to drop mixdnn while jobs are launching or running';
