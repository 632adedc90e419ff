-- 31_job_owner.sql — whose OS account a job may run under. Also the
-- upgrade piece 0.1.0--0.2.0/99n (a link to this file), so that both
-- create the same function (0.1.0 has none).

-- mixdnn's group roles (01_roles.sql), which own no job: every user can
-- SET ROLE to one, so every member could read and cancel such a job, and
-- only a quota binding every user could bind it.
CREATE FUNCTION mixdnn._is_group_role(who name) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN who OPERATOR(pg_catalog.=) ANY (ARRAY['mixdnn_user', 'mixdnn_admin', 'mixdnn_launcher']::pg_catalog.name[]);
COMMENT ON FUNCTION mixdnn._is_group_role(name) IS 'internal: whether a role is one of mixdnn''s group roles';
REVOKE ALL ON FUNCTION mixdnn._is_group_role(name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn._is_group_role(name) TO mixdnn_user, mixdnn_admin;

-- Whose OS account a job may run under when someone names its owner (an
-- admin or a superuser submitting for a user, or handing a job over): an
-- existing role, whoever names it; for anyone but a superuser, one that is
-- a mixdnn user and no superuser.
CREATE FUNCTION mixdnn._check_job_owner(who name) RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	-- The column is NOT NULL, but this check comes first (a BEFORE trigger).
	IF who IS NULL THEN
		RAISE EXCEPTION 'a job needs an owner, not NULL'
			USING ERRCODE = 'not_null_violation';
	END IF;
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles r WHERE r.rolname = who) THEN
		RAISE EXCEPTION 'a job''s owner must be an existing role: role "%" does not exist', who
			USING ERRCODE = 'undefined_object',
				  DETAIL = 'A job runs as its owner''s OS account; the launcher could not start it.',
				  HINT = 'Create the role first, or name an existing one.';
	END IF;
	IF mixdnn._caller_level() = 'system' THEN
		RETURN;
	END IF;
	IF mixdnn._is_group_role(who) THEN
		RAISE EXCEPTION 'a job cannot be owned by mixdnn''s group role "%"', who
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Every member of the group could read and cancel it, and no quota or limit of its submitter would bind it.',
				  HINT = 'RESET ROLE and submit as yourself.';
	END IF;
	IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = who)
	   OR NOT pg_catalog.pg_has_role(who, 'mixdnn_user', 'MEMBER') THEN
		RAISE EXCEPTION 'a job''s owner must be a member of mixdnn_user and not a superuser, not "%"', who
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'A job runs as its owner''s OS account; only a superuser may make a job another role''s.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_job_owner(name) IS 'internal: refuses a job owner that is no role, or, named by a non-superuser, no mixdnn user or a superuser';

REVOKE ALL ON FUNCTION mixdnn._check_job_owner(name) FROM PUBLIC;
-- Called by the jobs' trigger, as whoever submits or hands a job over.
GRANT EXECUTE ON FUNCTION mixdnn._check_job_owner(name) TO mixdnn_user, mixdnn_admin;
