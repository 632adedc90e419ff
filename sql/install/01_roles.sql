-- 01_roles.sql — the extension's three group roles, made or adopted. The
-- update to 0.2.0 runs this file too (sql/update/0.1.0--0.2.0/99s_roles.sql
-- links to it): 0.1.0 adopted any role of these names.
-- Roles are cluster-wide, so they may outlive an earlier install, or have
-- been made by someone else beforehand. A role made beforehand is adopted
-- only as the plain group it would have been made as: what it can do
-- itself (log in, superuser, BYPASSRLS, ...) or inherits from roles it is
-- a member of, every member of it would get through mixdnn's grants
-- (docs/design.md, "Threat model"). Its members keep their membership;
-- the installer is told who they are.
DO $roles$
DECLARE
	want	text;
	r		pg_catalog.pg_roles;
	parents	text;
	members	text;
BEGIN
	FOREACH want IN ARRAY ARRAY['mixdnn_user', 'mixdnn_admin', 'mixdnn_launcher'] LOOP
		SELECT * INTO r FROM pg_catalog.pg_roles WHERE rolname OPERATOR(pg_catalog.=) want;
		IF NOT FOUND THEN
			EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', want);
			CONTINUE;
		END IF;
		SELECT pg_catalog.string_agg(g.rolname, ', ' ORDER BY g.rolname) INTO parents
			FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) m.roleid
			WHERE m.member OPERATOR(pg_catalog.=) r.oid
			  AND NOT (want OPERATOR(pg_catalog.=) 'mixdnn_admin' AND g.rolname OPERATOR(pg_catalog.=) 'mixdnn_user');
		IF r.rolsuper OR r.rolcanlogin OR r.rolbypassrls OR r.rolcreaterole OR r.rolcreatedb OR r.rolreplication
		   OR parents IS NOT NULL THEN
			RAISE EXCEPTION 'role % already exists and is not a plain group role', want
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.concat_ws('; ',
						CASE WHEN r.rolsuper OR r.rolcanlogin OR r.rolbypassrls OR r.rolcreaterole
								  OR r.rolcreatedb OR r.rolreplication
							 THEN 'it has LOGIN, SUPERUSER, BYPASSRLS, CREATEROLE, CREATEDB or REPLICATION' END,
						CASE WHEN parents IS NOT NULL THEN pg_catalog.format('it is a member of %s', parents) END),
					  HINT = pg_catalog.format('Every member of %s would get that; DROP ROLE it, or make it NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB NOREPLICATION and a member of no role, then create or update the extension.', want);
		END IF;
		SELECT pg_catalog.string_agg(u.rolname, ', ' ORDER BY u.rolname) INTO members
			FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles u ON u.oid OPERATOR(pg_catalog.=) m.member
			WHERE m.roleid OPERATOR(pg_catalog.=) r.oid;
		IF members IS NOT NULL THEN
			RAISE NOTICE 'role % already exists; its members keep it: %', want, members;
		END IF;
	END LOOP;
END
$roles$;
