--
-- 01_install: CREATE EXTENSION, its objects, and that every object is
-- documented with a COMMENT. Later files reuse the extension created here.
--
-- The tests drive the virtual clock; the launch worker (real clock) stays
-- out of this database.
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET mixdnn.launch_worker = off', current_database()); END $$;
-- Role grants may NOTICE on a reused cluster; a server without preload WARNs.
SET client_min_messages = error;
DROP EXTENSION IF EXISTS mixdnn;
CREATE EXTENSION mixdnn;
RESET client_min_messages;

SELECT e.extname, e.extversion, e.extrelocatable, n.nspname AS schema
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'mixdnn';

-- The extension is not relocatable.
ALTER EXTENSION mixdnn SET SCHEMA public;

-- Its roles exist and cannot log in.
SELECT rolname, rolcanlogin, rolsuper FROM pg_roles
WHERE rolname IN ('mixdnn_user', 'mixdnn_admin', 'mixdnn_launcher') ORDER BY rolname;
SELECT pg_has_role('mixdnn_admin', 'mixdnn_user', 'MEMBER') AS admin_is_user;

-- Every member object except internal functions (mixdnn._*), in a stable order.
SELECT pg_describe_object(d.classid, d.objid, 0) AS object
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mixdnn')
  AND d.deptype = 'e'
  AND pg_describe_object(d.classid, d.objid, 0) NOT LIKE 'function mixdnn.\_%'
ORDER BY 1;
SELECT count(*) > 0 AS has_internal_functions FROM pg_proc
WHERE pronamespace = 'mixdnn'::regnamespace AND proname LIKE '\_%';

-- Every table, view and function of the schema has a comment (expect no rows).
SELECT c.relname AS undocumented_relation
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'mixdnn' AND c.relkind IN ('r', 'v', 'm', 'p')
  AND obj_description(c.oid, 'pg_class') IS NULL
ORDER BY 1;
SELECT p.oid::regprocedure AS undocumented_function
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'mixdnn' AND obj_description(p.oid, 'pg_proc') IS NULL
ORDER BY 1;
SELECT obj_description('mixdnn'::regnamespace, 'pg_namespace') IS NOT NULL AS schema_documented;
-- mixdnn.jobs, the table users write, documents every column (expect no rows).
SELECT c.relname, a.attname AS undocumented_column
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = 'mixdnn' AND c.relname = 'jobs'
  AND col_description(c.oid, a.attnum) IS NULL
ORDER BY 1, 2;

-- The columns SPEC §3 names, with their types.
SELECT table_name, column_name, data_type, is_nullable
FROM information_schema.columns
WHERE table_schema = 'mixdnn'
  AND (table_name, column_name) IN (VALUES
	('gpu_types', 'gpu_type'), ('gpu_types', 'speed'), ('gpu_types', 'memory_gb'),
	('gpu_nodes', 'node'), ('gpu_nodes', 'gpu_type'), ('gpu_nodes', 'gpus'), ('gpu_nodes', 'status'),
	('profiles', 'model'), ('profiles', 'gpu_type'), ('profiles', 'gpus'), ('profiles', 'throughput'),
	('jobs', 'job_id'), ('jobs', 'name'), ('jobs', 'owner'), ('jobs', 'model'), ('jobs', 'model_class'),
	('jobs', 'gpu_type'), ('jobs', 'gpus'), ('jobs', 'min_gpus'), ('jobs', 'max_gpus'),
	('jobs', 'allowed_types'), ('jobs', 'duration'), ('jobs', 'priority'), ('jobs', 'command'),
	('jobs', 'status'), ('jobs', 'submitted_at'), ('jobs', 'planned_gpu_type'), ('jobs', 'planned_gpus'),
	('jobs', 'planned_start'), ('jobs', 'planned_end'), ('jobs', 'started_at'), ('jobs', 'finished_at'),
	('jobs', 'exit_code'), ('jobs', 'reason'),
	('allocations', 'job_id'), ('allocations', 'node'), ('allocations', 'gpu_indices'),
	('rounds', 'round_id'), ('rounds', 'at'), ('rounds', 'event'), ('rounds', 'policy'), ('rounds', 'solver'),
	('rounds', 'solve_ms'), ('rounds', 'waiting'), ('rounds', 'running'), ('rounds', 'launched'),
	('rounds', 'objective'))
ORDER BY table_name, column_name;

-- Primary keys SPEC §3 requires.
SELECT conrelid::regclass AS table_name, pg_get_constraintdef(oid) AS primary_key
FROM pg_constraint
WHERE contype = 'p' AND conrelid IN ('mixdnn.gpu_types'::regclass, 'mixdnn.gpu_nodes'::regclass,
	'mixdnn.profiles'::regclass, 'mixdnn.jobs'::regclass, 'mixdnn.gpu_holds'::regclass)
ORDER BY conrelid::regclass::text;

-- Drop and create again: the roles survive and are reused.
DROP EXTENSION mixdnn;
SELECT count(*) AS leftover_tables FROM pg_tables WHERE schemaname = 'mixdnn';
SELECT count(*) AS roles_kept FROM pg_roles WHERE rolname LIKE 'mixdnn\_%' AND rolname IN ('mixdnn_user', 'mixdnn_admin', 'mixdnn_launcher');
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
RESET client_min_messages;
SELECT count(*) AS tables FROM pg_tables WHERE schemaname = 'mixdnn';
