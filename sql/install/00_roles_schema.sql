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
