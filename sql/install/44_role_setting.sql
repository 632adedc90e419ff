-- 44_role_setting.sql — a role's own value of a mixdnn limit
-- (ALTER ROLE ... [IN DATABASE ...] SET), for the limits that bind a role
-- whoever submits its jobs: the waiting-jobs limit (65_tenancy.sql) and the
-- submission budget (46_submission_limits.sql). Also the upgrade piece
-- 0.1.0--0.2.0/99zo (a link to this file): 0.1.0 has neither function.

CREATE OR REPLACE FUNCTION mixdnn._guc_int(setting text, value text) RETURNS int
	AS 'MODULE_PATHNAME', 'mixdnn_guc_int'
	LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION mixdnn._guc_int(text, text) IS 'internal: a value of a mixdnn integer setting read as the server reads it (units, hexadecimal); NULL if it does not parse';
REVOKE ALL ON FUNCTION mixdnn._guc_int(text, text) FROM PUBLIC;

-- The value of setting that role who's ALTER ROLE gives it, for this
-- database first, then for all; NULL when it gives none, and when who is
-- the session's own user, whose session already took it (and a superuser
-- may have SET another since). A session that submits for another role (an
-- admin's owner = who, SET ROLE who) has its own user's settings, not who's.
CREATE OR REPLACE FUNCTION mixdnn._role_setting(who name, setting text) RETURNS int
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT mixdnn._guc_int(setting, pg_catalog.substr(c.c, pg_catalog.length(setting) OPERATOR(pg_catalog.+) 2))
	FROM pg_catalog.pg_db_role_setting s
		 JOIN pg_catalog.pg_roles u ON u.oid OPERATOR(pg_catalog.=) s.setrole,
		 pg_catalog.unnest(s.setconfig) AS c(c)
	WHERE who OPERATOR(pg_catalog.<>) SESSION_USER AND u.rolname OPERATOR(pg_catalog.=) who
	  AND s.setdatabase IN (0, (SELECT d.oid FROM pg_catalog.pg_database d
								WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()))
	  AND pg_catalog.starts_with(c.c, setting OPERATOR(pg_catalog.||) '=')
	ORDER BY s.setdatabase DESC LIMIT 1
	$$;
COMMENT ON FUNCTION mixdnn._role_setting(name, text) IS 'internal: the value of a mixdnn integer setting that a role''s ALTER ROLE SET gives it (NULL: none, or the session''s own user)';
REVOKE ALL ON FUNCTION mixdnn._role_setting(name, text) FROM PUBLIC;
