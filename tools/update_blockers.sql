-- tools/update_blockers.sql — the objects outside the extension that
-- depend on one of its objects, which an ALTER EXTENSION mixdnn UPDATE
-- that drops or changes that object refuses to touch (docs/operations.md,
-- "Objects of users that depend on the extension stop an update"). Run it
-- in each database before an update, as a superuser:
--     psql -d DB -f tools/update_blockers.sql
-- One row per dependent object (a view, a table with a column of one of
-- the extension's row types, a function taking one, ...) and what it
-- needs. Temporary objects show as pg_temp_N.name: they go when their
-- session ends.
WITH member AS (
	SELECT d.classid, d.objid FROM pg_catalog.pg_depend d
	WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'
	  AND d.refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'mixdnn')
), target AS (
	-- and the row types of its tables and views, and their array types
	SELECT classid, objid FROM member
	UNION
	SELECT 'pg_catalog.pg_type'::pg_catalog.regclass, ty.oid FROM pg_catalog.pg_type ty
	WHERE ty.typrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::pg_catalog.regclass)
	   OR ty.typelem IN (SELECT r.oid FROM pg_catalog.pg_type r
						 WHERE r.typrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::pg_catalog.regclass))
), dep AS (
	-- each dependent object with the relation it belongs to, if any
	SELECT d.classid, d.objid, d.objsubid, d.refclassid, d.refobjid,
		   coalesce(r.ev_class, t.tgrelid, p.polrelid, a.adrelid, NULLIF(c.conrelid, 0),
					CASE WHEN d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass THEN d.objid END) AS rel
	FROM pg_catalog.pg_depend d
	LEFT JOIN pg_catalog.pg_rewrite r ON d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND r.oid = d.objid
	LEFT JOIN pg_catalog.pg_trigger t ON d.classid = 'pg_catalog.pg_trigger'::pg_catalog.regclass AND t.oid = d.objid
	LEFT JOIN pg_catalog.pg_policy p ON d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass AND p.oid = d.objid
	LEFT JOIN pg_catalog.pg_attrdef a ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND a.oid = d.objid
	LEFT JOIN pg_catalog.pg_constraint c ON d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass AND c.oid = d.objid
	WHERE d.deptype = 'n' AND (d.refclassid, d.refobjid) IN (SELECT classid, objid FROM target)
)
SELECT DISTINCT CASE WHEN rel IS NOT NULL THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, rel, 0)
					 ELSE pg_catalog.pg_describe_object(classid, objid, objsubid) END AS dependent,
	   pg_catalog.pg_describe_object(refclassid, refobjid, 0) AS needs
FROM dep
WHERE NOT EXISTS (SELECT FROM member m WHERE (m.classid, m.objid) = (dep.classid, dep.objid))
  AND (rel IS NULL OR NOT EXISTS (SELECT FROM member m
								 WHERE (m.classid, m.objid) = ('pg_catalog.pg_class'::pg_catalog.regclass, dep.rel)))
ORDER BY 1, 2;
