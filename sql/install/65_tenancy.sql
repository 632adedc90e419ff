-- A shared cluster: GPU quotas and waiting-job limits per role and group
-- role, and fair-share weights (docs/model.md, "Quotas and fair share";
-- docs/reference.md). Both tables are the admins' alone.

CREATE TABLE mixdnn.quotas (
	role		name NOT NULL,
	gpu_type	text,
	max_gpus	int CONSTRAINT quotas_max_gpus_check CHECK (max_gpus BETWEEN 0 AND 1000000),
	max_waiting_jobs int CONSTRAINT quotas_max_waiting_jobs_check CHECK (max_waiting_jobs BETWEEN 0 AND 10000000),
	borrow		boolean NOT NULL DEFAULT false,
	CONSTRAINT quotas_role_gpu_type_key UNIQUE NULLS NOT DISTINCT (role, gpu_type)
);
COMMENT ON TABLE mixdnn.quotas IS 'limits per role or group role; a role is bound by every row naming it or a role it is a member of, the strictest binding';
COMMENT ON COLUMN mixdnn.quotas.role IS 'a user or group role';
COMMENT ON COLUMN mixdnn.quotas.gpu_type IS 'the GPU type max_gpus counts; NULL = GPUs of all types together; checked on write, a row naming a type deleted since binds nothing';
COMMENT ON COLUMN mixdnn.quotas.max_gpus IS 'most GPUs the role''s launching and running jobs may hold; NULL = no limit';
COMMENT ON COLUMN mixdnn.quotas.max_waiting_jobs IS 'most pending and planned jobs of the role; NULL = no limit from this row (mixdnn.max_waiting_jobs applies when no row sets one)';
COMMENT ON COLUMN mixdnn.quotas.borrow IS 'true: beyond max_gpus a job may use GPUs no job within its quota can use now (no preemption)';

CREATE TABLE mixdnn.shares (
	role		name PRIMARY KEY,
	shares		int NOT NULL CONSTRAINT shares_shares_check CHECK (shares BETWEEN 1 AND 1000000)
);
COMMENT ON TABLE mixdnn.shares IS 'fair-share weights per role (with mixdnn.fair_share on); a role without a row has 1 share';
COMMENT ON COLUMN mixdnn.shares.shares IS 'the role''s entitlement is its shares over the shares of every role with unfinished jobs';

-- mixdnn._tenancy_before_write(): 64_tenancy_check.sql.

-- Not for a restore's data load (mixdnn._loading(), operations.md): a row
-- naming a GPU type deleted since, or a role the target cluster lacks, is
-- restored as it was dumped.
CREATE TRIGGER quotas_before_write BEFORE INSERT OR UPDATE ON mixdnn.quotas
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._tenancy_before_write();
CREATE TRIGGER shares_before_write BEFORE INSERT OR UPDATE ON mixdnn.shares
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._tenancy_before_write();

-- A change of quotas or shares re-plans at commit (event quota): a quota
-- raised starts the jobs that waited for it, one lowered un-plans the
-- starts beyond it, at once rather than at the next job or node event.
CREATE TRIGGER quotas_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.quotas
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER shares_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.shares
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE CONSTRAINT TRIGGER quotas_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.quotas
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();
CREATE CONSTRAINT TRIGGER shares_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.shares
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();

-- The waiting-jobs limit of a role: the strictest max_waiting_jobs of the
-- rows naming it or a role it is a member of (a superuser: naming it;
-- pg_has_role() is true of a superuser for every role);
-- mixdnn.max_waiting_jobs when none sets one (0 = none). NULL: no limit.
-- That setting is the role's own (ALTER ROLE who [IN DATABASE] SET,
-- mixdnn._role_setting) also when another session submits for it (an
-- admin's owner = who, SET ROLE who): the session's setting is the
-- submitter's, and let an admin's submission take the role beyond the
-- limit of its own submissions.
CREATE FUNCTION mixdnn._waiting_limit(who name) RETURNS int
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
COMMENT ON FUNCTION mixdnn._waiting_limit(name) IS 'internal: the most waiting jobs a role may have (NULL: no limit)';

-- Each role with waiting or running jobs as the next round weighs it
-- (src/pg/fair_share_usage.c over src/core/tenancy.c), like Slurm's sshare.
CREATE FUNCTION mixdnn.fair_share_usage()
	RETURNS TABLE (role name, shares int, entitlement float8, usage_share float8,
				   gpus_held int, factor float8)
	AS 'MODULE_PATHNAME', 'mixdnn_fair_share_usage'
	LANGUAGE C VOLATILE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION mixdnn.fair_share_usage() IS 'each role with waiting or running jobs: shares, entitlement, usage share, GPUs held and fair-share factor';

SELECT pg_catalog.pg_extension_config_dump('mixdnn.quotas', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.shares', '');

REVOKE ALL ON mixdnn.quotas, mixdnn.shares FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON mixdnn.quotas, mixdnn.shares TO mixdnn_admin;
REVOKE ALL ON FUNCTION mixdnn._tenancy_before_write(), mixdnn._waiting_limit(name),
	mixdnn.fair_share_usage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.fair_share_usage() TO mixdnn_user, mixdnn_admin;
