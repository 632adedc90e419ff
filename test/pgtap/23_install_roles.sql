-- 23_install_roles.sql — CREATE EXTENSION adopts a role it would have made
-- (mixdnn_user, mixdnn_admin, mixdnn_launcher) only when it is the plain
-- NOLOGIN group role it would have been: whoever made it beforehand must
-- not get rights through the extension's grants (docs/design.md, "Threat
-- model"). Each case drops the extension and creates it again inside this
-- transaction, which is rolled back, roles and all.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(10);
SET LOCAL mixdnn.force_drop = on;
CREATE ROLE tap23_member NOLOGIN;

-- The SQLSTATE of CREATE EXTENSION after SETUP ('created' if none); SETUP,
-- the drop and the install are then undone (a subtransaction rolled back
-- by the exception 'MXT23'), so pgTAP records its result outside them.
CREATE FUNCTION pg_temp.reinstall_state(setup text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st	text;
BEGIN
	BEGIN
		EXECUTE setup;
		DROP EXTENSION mixdnn CASCADE;
		BEGIN
			CREATE EXTENSION mixdnn;
			st := 'created';
		EXCEPTION WHEN OTHERS THEN
			st := SQLSTATE;
		END;
		RAISE EXCEPTION 'undo' USING ERRCODE = 'MXT23';
	EXCEPTION WHEN SQLSTATE 'MXT23' THEN
		NULL;
	END;
	RETURN st;
END
$$;

SELECT is(pg_temp.reinstall_state('ALTER ROLE mixdnn_launcher LOGIN'), '55000', 'a mixdnn_launcher that can log in is refused');
SELECT is(pg_temp.reinstall_state('ALTER ROLE mixdnn_user SUPERUSER'), '55000', 'a superuser mixdnn_user is refused');
SELECT is(pg_temp.reinstall_state('ALTER ROLE mixdnn_admin BYPASSRLS'), '55000', 'a mixdnn_admin with BYPASSRLS is refused');
SELECT is(pg_temp.reinstall_state('ALTER ROLE mixdnn_user CREATEROLE'), '55000', 'a mixdnn_user with CREATEROLE is refused');
SELECT is(pg_temp.reinstall_state('GRANT pg_execute_server_program TO mixdnn_user'), '55000',
	'a mixdnn_user that is a member of pg_execute_server_program is refused');
SELECT is(pg_temp.reinstall_state('GRANT tap23_member TO mixdnn_launcher'), '55000',
	'a mixdnn_launcher that is a member of another role is refused');
SELECT is(pg_temp.reinstall_state('SELECT 1'), 'created', 'the unchanged roles are adopted');

-- The plain group roles of an earlier install are adopted, members and all.
GRANT mixdnn_user TO tap23_member;
DROP EXTENSION mixdnn CASCADE;
SELECT lives_ok('CREATE EXTENSION mixdnn', 'the plain roles of an earlier install are adopted');
SELECT ok(pg_has_role('tap23_member', 'mixdnn_user', 'MEMBER'), 'their members keep them');
SELECT ok(pg_has_role('mixdnn_admin', 'mixdnn_user', 'MEMBER'), 'mixdnn_admin is a member of mixdnn_user again');

SELECT * FROM finish();
ROLLBACK;
