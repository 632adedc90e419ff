-- 99i_guard_drop_owned.sql — DROP OWNED BY the role that owns the extension
-- drops it as DROP EXTENSION does, and so does DROP EXTENSION plpgsql
-- CASCADE: the drop guard (src/pg/dropguard.c) now
-- refuses them too while jobs are launching or running (two reviews
-- dropped everything under a running job these ways).
DROP EVENT TRIGGER mixdnn_guard_drop;
CREATE EVENT TRIGGER mixdnn_guard_drop ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP SCHEMA', 'DROP OWNED')
	EXECUTE FUNCTION mixdnn._guard_drop();
COMMENT ON EVENT TRIGGER mixdnn_guard_drop IS 'refuses to drop mixdnn while jobs are launching or running';
