-- Restores (src/pg/restore.c, docs/operations.md "Backup and restore"): a
-- data load as pg_dump writes it (COPY ... FROM by a superuser with
-- row_security off) brings rows as they were, so the triggers that
-- validate, record history and plan let it through (their WHEN clauses).
CREATE FUNCTION mixdnn._loading() RETURNS boolean
	AS 'MODULE_PATHNAME', 'mixdnn_loading'
	LANGUAGE C VOLATILE;
COMMENT ON FUNCTION mixdnn._loading() IS 'internal: whether the current statement is a data load of a restore';
REVOKE ALL ON FUNCTION mixdnn._loading() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn._loading() TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
