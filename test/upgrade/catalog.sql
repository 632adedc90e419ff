-- test/upgrade/catalog.sql — a text description of everything the mixdnn
-- extension puts in a database, for comparing an upgraded install with a
-- fresh one (test/upgrade/run.sh). Object identities are by name, never by
-- OID; columns are listed in their physical order, so an upgrade that
-- appends a column the install script puts elsewhere is a difference.
\pset format unaligned
\pset tuples_only on
\pset null '<null>'

-- Extension members, config-dump registrations and the version.
SELECT 'member', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON d.refobjid = e.oid
WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND e.extname = 'mixdnn' AND d.deptype = 'e'
ORDER BY 2;
SELECT 'requires', r.extname
FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON d.objid = e.oid
JOIN pg_catalog.pg_extension r ON d.refobjid = r.oid
WHERE d.classid = 'pg_catalog.pg_extension'::regclass AND d.refclassid = 'pg_catalog.pg_extension'::regclass
  AND e.extname = 'mixdnn' ORDER BY 2;
SELECT 'config_dump', c::regclass::text, coalesce(e.extcondition[i], '')
FROM pg_catalog.pg_extension e, LATERAL unnest(e.extconfig) WITH ORDINALITY AS u(c, i)
WHERE e.extname = 'mixdnn' ORDER BY 2;

-- Schemas, relations and their columns.
SELECT 'schema', n.nspname, n.nspacl::text, pg_catalog.obj_description(n.oid, 'pg_namespace')
FROM pg_catalog.pg_namespace n WHERE n.nspname = 'mixdnn';
SELECT 'relation', c.relname, c.relkind, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity,
       c.relacl::text, c.reloptions::text, pg_catalog.obj_description(c.oid, 'pg_class')
FROM pg_catalog.pg_class c WHERE c.relnamespace = 'mixdnn'::regnamespace ORDER BY c.relname;
SELECT 'column', c.relname, row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum), a.attname,
       pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity, a.attgenerated,
       pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), a.attacl::text, a.attcollation::regcollation::text,
       pg_catalog.col_description(c.oid, a.attnum)
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
WHERE c.relnamespace = 'mixdnn'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
ORDER BY c.relname, 3;
SELECT 'constraint', c.conrelid::regclass::text, c.conname, c.contype, c.condeferrable, c.condeferred,
       pg_catalog.pg_get_constraintdef(c.oid), pg_catalog.obj_description(c.oid, 'pg_constraint')
FROM pg_catalog.pg_constraint c WHERE c.connamespace = 'mixdnn'::regnamespace ORDER BY 2, 3;
SELECT 'index', i.indexrelid::regclass::text, pg_catalog.pg_get_indexdef(i.indexrelid)
FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
WHERE c.relnamespace = 'mixdnn'::regnamespace ORDER BY 2;
SELECT 'sequence', s.seqrelid::regclass::text, s.seqtypid::regtype::text, s.seqstart, s.seqincrement,
       s.seqmax, s.seqmin, s.seqcache, s.seqcycle
FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid
WHERE c.relnamespace = 'mixdnn'::regnamespace ORDER BY 2;
SELECT 'view', c.relname, pg_catalog.pg_get_viewdef(c.oid)
FROM pg_catalog.pg_class c WHERE c.relnamespace = 'mixdnn'::regnamespace AND c.relkind IN ('v', 'm')
ORDER BY 2;
SELECT 'trigger', t.tgrelid::regclass::text, t.tgname, t.tgenabled, pg_catalog.pg_get_triggerdef(t.oid)
FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
WHERE c.relnamespace = 'mixdnn'::regnamespace AND NOT t.tgisinternal ORDER BY 2, 3;
SELECT 'policy', p.schemaname, p.tablename, p.policyname, p.permissive, p.roles::text, p.cmd, p.qual, p.with_check
FROM pg_catalog.pg_policies p WHERE p.schemaname = 'mixdnn' ORDER BY 3, 4;
SELECT 'rule', r.tablename, r.rulename, r.definition
FROM pg_catalog.pg_rules r WHERE r.schemaname = 'mixdnn' ORDER BY 2, 3;

-- Types and functions (full definitions: body, volatility, SECURITY
-- DEFINER, SET search_path), their grants and comments.
SELECT 'type', t.typname, t.typtype, t.typacl::text, pg_catalog.obj_description(t.oid, 'pg_type')
FROM pg_catalog.pg_type t
WHERE t.typnamespace = 'mixdnn'::regnamespace AND t.typtype <> 'b'
  AND NOT EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid AND c.relkind <> 'c')
  AND t.typelem = 0
ORDER BY 2;
SELECT 'enum', t.typname, e.enumsortorder, e.enumlabel
FROM pg_catalog.pg_enum e JOIN pg_catalog.pg_type t ON t.oid = e.enumtypid
WHERE t.typnamespace = 'mixdnn'::regnamespace ORDER BY 2, 3;
SELECT 'function', p.oid::regprocedure::text, p.prokind, p.proacl::text,
       pg_catalog.obj_description(p.oid, 'pg_proc'),
       CASE WHEN p.prokind IN ('f', 'p', 'w') THEN pg_catalog.pg_get_functiondef(p.oid) END
FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'mixdnn'::regnamespace ORDER BY 2;
SELECT 'event_trigger', e.evtname, e.evtevent, e.evtfoid::regprocedure::text, e.evtenabled, e.evttags::text
FROM pg_catalog.pg_event_trigger e
WHERE EXISTS (SELECT FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension x ON x.oid = d.refobjid
              WHERE d.classid = 'pg_catalog.pg_event_trigger'::regclass AND d.objid = e.oid
                AND d.deptype = 'e' AND x.extname = 'mixdnn')
ORDER BY 2;

-- The extension's roles and what they are members of.
SELECT 'role', r.rolname, r.rolcanlogin, r.rolsuper, r.rolinherit,
       array(SELECT g.rolname FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
             WHERE m.member = r.oid ORDER BY 1)::text
FROM pg_catalog.pg_roles r WHERE r.rolname LIKE 'mixdnn\_%' ORDER BY 2;

-- Rows the install script itself writes (seed data) must be the same too.
-- Every table's content is listed, so run this on databases that hold no
-- user data.
DO $rows$
DECLARE
	r record;
	n bigint;
	h text;
BEGIN
	FOR r IN SELECT c.oid::regclass AS rel FROM pg_catalog.pg_class c
			 WHERE c.relnamespace = 'mixdnn'::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname
	LOOP
		EXECUTE format('SELECT pg_catalog.count(*), pg_catalog.md5(pg_catalog.string_agg(t::text, %L ORDER BY t::text)) FROM %s t',
					   E'\n', r.rel) INTO n, h;
		RAISE NOTICE 'rows % % %', r.rel, n, coalesce(h, '-');
	END LOOP;
END
$rows$;
