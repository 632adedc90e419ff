-- 95_lease.sql — mixdnn._lease() in C: the default of mixdnn.lease_timeout
-- is written once, in src/pg/guc.c (sql/install/60_launcher.sql).
CREATE OR REPLACE FUNCTION mixdnn._lease() RETURNS interval
	AS 'MODULE_PATHNAME', 'mixdnn_lease'
	LANGUAGE C STABLE;
