-- 99zp_waiting_limit_role_setting.sql — the waiting-jobs limit of a role
-- that no mixdnn.quotas row sets is its own mixdnn.max_waiting_jobs
-- (ALTER ROLE ... SET) also when another session submits for it (an
-- admin's owner = 'bob', SET ROLE bob): the submitting session's setting
-- let an admin's submission take bob beyond his limit. The function as
-- sql/install/65_tenancy.sql defines it.

CREATE OR REPLACE FUNCTION mixdnn._waiting_limit(who name) RETURNS int
	LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT coalesce(
		(SELECT pg_catalog.min(q.max_waiting_jobs)
		 FROM mixdnn.quotas q
			  JOIN pg_catalog.pg_roles g ON g.rolname OPERATOR(pg_catalog.=) q.role
			  JOIN pg_catalog.pg_roles u ON u.rolname OPERATOR(pg_catalog.=) who
		 WHERE q.max_waiting_jobs IS NOT NULL
		   AND (u.oid OPERATOR(pg_catalog.=) g.oid
				OR (NOT u.rolsuper AND pg_catalog.pg_has_role(u.oid, g.oid, 'MEMBER')))),
		NULLIF(coalesce(mixdnn._role_setting(who, 'mixdnn.max_waiting_jobs'),
						pg_catalog.current_setting('mixdnn.max_waiting_jobs')::int), 0))
	$$;
