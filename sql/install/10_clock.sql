-- The scheduler's clock (src/pg/clock.c). Every timestamp the scheduler
-- writes comes from here, so tests and replays can pin it with the
-- superuser-only setting mixdnn.virtual_now.
CREATE FUNCTION mixdnn.now() RETURNS timestamptz
	AS 'MODULE_PATHNAME', 'mixdnn_now'
	LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION mixdnn.now() IS 'scheduler clock: mixdnn.virtual_now when set, else the real clock';

REVOKE ALL ON FUNCTION mixdnn.now() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.now() TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
