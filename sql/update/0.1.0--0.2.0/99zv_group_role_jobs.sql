-- 99zv_group_role_jobs.sql — 0.1.0 let a user SET ROLE mixdnn_user and
-- submit: such a job is that group role's, so every member can read and
-- cancel it and no quota of its submitter binds it. 0.2.0 refuses new ones
-- (mixdnn._check_job_owner); the update names those already there, which
-- an admin can hand to the role that submitted them.
DO $$
DECLARE
	ids		text;
BEGIN
	SELECT pg_catalog.string_agg(j.job_id::pg_catalog.text, ', ' ORDER BY j.job_id) INTO ids
		FROM mixdnn.jobs j WHERE mixdnn._is_group_role(j.owner);
	IF ids IS NOT NULL THEN
		RAISE WARNING 'jobs owned by one of mixdnn''s group roles, which every member can read and cancel: %', ids
			USING HINT = 'An admin can hand each to the role that submitted it: UPDATE mixdnn.jobs SET owner = ''...'' WHERE job_id = ...';
	END IF;
END
$$;
