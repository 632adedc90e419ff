--
-- 02_privileges: nothing is granted to PUBLIC; what mixdnn_user,
-- mixdnn_admin and mixdnn_launcher may do; RLS is on where it must be.
--
-- Relations, sequences and the schema with any privilege for PUBLIC (expect no rows).
SELECT c.relname, a.privilege_type
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL aclexplode(c.relacl) a
WHERE n.nspname = 'mixdnn' AND a.grantee = 0
ORDER BY 1, 2;
SELECT a.privilege_type AS public_schema_privilege
FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) a
WHERE n.nspname = 'mixdnn' AND a.grantee = 0;
-- Functions PUBLIC may execute: explicitly granted, or by default when
-- proacl is NULL (expect no rows).
SELECT p.oid::regprocedure AS public_function
FROM pg_proc p
WHERE p.pronamespace = 'mixdnn'::regnamespace
  AND (p.proacl IS NULL OR EXISTS (SELECT FROM aclexplode(p.proacl) a WHERE a.grantee = 0))
ORDER BY p.oid::regprocedure::text;
-- Column privileges for PUBLIC (expect no rows).
SELECT table_name, column_name, privilege_type FROM information_schema.column_privileges
WHERE table_schema = 'mixdnn' AND grantee = 'PUBLIC';
-- A role outside the mixdnn roles can do nothing.
CREATE ROLE regress_mixdnn_stranger NOLOGIN;
SELECT c.relname,
	   has_table_privilege('regress_mixdnn_stranger', c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE') AS any_priv
FROM pg_class c WHERE c.relnamespace = 'mixdnn'::regnamespace AND c.relkind IN ('r', 'v')
  AND has_table_privilege('regress_mixdnn_stranger', c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE')
ORDER BY 1;
SELECT has_schema_privilege('regress_mixdnn_stranger', 'mixdnn', 'USAGE') AS stranger_schema_usage;
SELECT p.oid::regprocedure AS stranger_can_execute FROM pg_proc p
WHERE p.pronamespace = 'mixdnn'::regnamespace AND has_function_privilege('regress_mixdnn_stranger', p.oid, 'EXECUTE')
ORDER BY p.oid::regprocedure::text;
DROP ROLE regress_mixdnn_stranger;

-- The privilege matrix of the three roles on every table and view.
SELECT c.relname, r.role,
	   concat_ws(',',
		 CASE WHEN has_table_privilege(r.role, c.oid, 'SELECT') THEN 'select' END,
		 CASE WHEN has_table_privilege(r.role, c.oid, 'INSERT') THEN 'insert'
			  WHEN has_any_column_privilege(r.role, c.oid, 'INSERT') THEN 'insert(cols)' END,
		 CASE WHEN has_table_privilege(r.role, c.oid, 'UPDATE') THEN 'update'
			  WHEN has_any_column_privilege(r.role, c.oid, 'UPDATE') THEN 'update(cols)' END,
		 CASE WHEN has_table_privilege(r.role, c.oid, 'DELETE') THEN 'delete' END,
		 CASE WHEN has_table_privilege(r.role, c.oid, 'TRUNCATE') THEN 'truncate' END) AS privileges
FROM pg_class c
CROSS JOIN (VALUES ('mixdnn_user'), ('mixdnn_admin'), ('mixdnn_launcher')) r(role)
WHERE c.relnamespace = 'mixdnn'::regnamespace AND c.relkind IN ('r', 'v')
ORDER BY 1, 2;

-- Which columns of mixdnn.jobs each role may write.
SELECT r.role, string_agg(a.attname, ', ' ORDER BY a.attnum) AS insertable
FROM (VALUES ('mixdnn_user'), ('mixdnn_admin')) r(role)
JOIN pg_attribute a ON a.attrelid = 'mixdnn.jobs'::regclass AND a.attnum > 0 AND NOT a.attisdropped
WHERE has_column_privilege(r.role, 'mixdnn.jobs', a.attname, 'INSERT')
GROUP BY r.role ORDER BY 1;
SELECT r.role, string_agg(a.attname, ', ' ORDER BY a.attnum) AS updatable
FROM (VALUES ('mixdnn_user'), ('mixdnn_admin')) r(role)
JOIN pg_attribute a ON a.attrelid = 'mixdnn.jobs'::regclass AND a.attnum > 0 AND NOT a.attisdropped
WHERE has_column_privilege(r.role, 'mixdnn.jobs', a.attname, 'UPDATE')
GROUP BY r.role ORDER BY 1;

-- The non-internal functions each role may call.
SELECT p.oid::regprocedure AS function,
	   has_function_privilege('mixdnn_user', p.oid, 'EXECUTE') AS "user",
	   has_function_privilege('mixdnn_admin', p.oid, 'EXECUTE') AS admin,
	   has_function_privilege('mixdnn_launcher', p.oid, 'EXECUTE') AS launcher
FROM pg_proc p
WHERE p.pronamespace = 'mixdnn'::regnamespace AND p.proname NOT LIKE '\_%'
ORDER BY p.oid::regprocedure::text;

-- SECURITY DEFINER functions pin their search_path (expect no rows).
SELECT p.oid::regprocedure AS definer_without_search_path
FROM pg_proc p
WHERE p.pronamespace = 'mixdnn'::regnamespace AND p.prosecdef
  AND NOT EXISTS (SELECT FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%');

-- Row-level security.
SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class
WHERE relnamespace = 'mixdnn'::regnamespace AND relkind = 'r' AND relrowsecurity
ORDER BY 1;
SELECT tablename, policyname, cmd, roles::text FROM pg_policies WHERE schemaname = 'mixdnn' ORDER BY 1, 2;
