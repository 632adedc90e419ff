-- 46_submission_limits.sql — what one role may submit, checked once per
-- owner of a statement's new jobs: its waiting-jobs limit (docs/design.md,
-- "The waiting queue") and its submission budget over a sliding hour
-- (design.md, "Submission budget"). Finished and cancelled jobs stay in
-- mixdnn.jobs (purge_history keeps them, no admin may delete one), so what
-- one role may add to it is bounded, in rows
-- (mixdnn.max_submissions_per_hour) and in bytes of what it stores
-- (mixdnn.max_submission_bytes_per_hour). Also the upgrade piece
-- 0.1.0--0.2.0/99zq (a link to this file): every statement here can run
-- again over what it made.

-- A role's jobs of the last hour, read by the index alone up to the rows
-- themselves: the budget costs O(that role's jobs of the last hour).
CREATE INDEX IF NOT EXISTS jobs_owner_submitted_idx ON mixdnn.jobs (owner, submitted_at);

-- What a job stores of what its submitter gave: the columns a user writes
-- that have no fixed size, as stored. pg_column_size gives the compressed
-- size, or that of the value out of line, without reading it; the body is
-- a single expression so that the planner inlines it and pg_column_size
-- sees the stored column, not a copy.
CREATE OR REPLACE FUNCTION mixdnn._submitted_bytes(job_name text, job_model text, job_command text,
												   job_env jsonb, job_workdir text, job_types text[])
	RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE
	RETURN COALESCE(pg_catalog.pg_column_size(job_name), 0)::bigint
		OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(job_model), 0)
		OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(job_command), 0)
		OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(job_env), 0)
		OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(job_workdir), 0)
		OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(job_types), 0);
COMMENT ON FUNCTION mixdnn._submitted_bytes(text, text, text, jsonb, text, text[]) IS 'internal: bytes a job stores of the text its submitter gave';
REVOKE ALL ON FUNCTION mixdnn._submitted_bytes(text, text, text, jsonb, text, text[]) FROM PUBLIC;

-- The budget of role who, with its row of mixdnn.submitters locked: every
-- job of the role submitted after since, whatever its status now (a
-- cancelled one stays stored), plus extra_rows and extra_bytes, the
-- statement's jobs an admin gave an earlier submitted_at.
CREATE OR REPLACE FUNCTION mixdnn._check_submission_budget(who name, since timestamptz, max_rows bigint,
														   max_bytes bigint, extra_rows bigint, extra_bytes bigint)
	RETURNS void LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	n_rows		bigint;
	n_bytes		bigint;
	-- of the jobs in the window only (an admin's backdated ones never count
	-- again), for when the budget comes back
	oldest		timestamptz;
BEGIN
	SELECT pg_catalog.count(*) OPERATOR(pg_catalog.+) extra_rows,
		   COALESCE(pg_catalog.sum(mixdnn._submitted_bytes(j.name, j.model, j.command, j.env, j.workdir, j.allowed_types)), 0)
		   OPERATOR(pg_catalog.+) COALESCE(extra_bytes, 0),
		   pg_catalog.min(j.submitted_at)
		INTO n_rows, n_bytes, oldest
		FROM mixdnn.jobs j
	   WHERE j.owner OPERATOR(pg_catalog.=) who AND j.submitted_at OPERATOR(pg_catalog.>) since;
	IF n_rows OPERATOR(pg_catalog.>) max_rows THEN
		RAISE EXCEPTION 'role % would submit more than % jobs in an hour', who, max_rows
			USING ERRCODE = 'program_limit_exceeded',
				  DETAIL = pg_catalog.format('It would have submitted %s jobs since %s (cancelled and finished ones count too); mixdnn.max_submissions_per_hour is %s.',
											 n_rows, since, max_rows),
				  HINT = CASE WHEN oldest IS NULL THEN 'Submit fewer jobs at once.'
						 ELSE pg_catalog.format('Submit fewer jobs at once, or again after %s, when its oldest jobs of the last hour stop counting.',
												oldest OPERATOR(pg_catalog.+) interval '1 hour') END;
	END IF;
	IF n_bytes OPERATOR(pg_catalog.>) max_bytes THEN
		RAISE EXCEPTION 'role % would submit more than % of job text in an hour', who, pg_catalog.pg_size_pretty(max_bytes)
			USING ERRCODE = 'program_limit_exceeded',
				  DETAIL = pg_catalog.format('Its jobs submitted since %s would store %s bytes of name, model, command, env, workdir and allowed_types (cancelled and finished ones count too); mixdnn.max_submission_bytes_per_hour is %s bytes.',
											 since, n_bytes, max_bytes),
				  HINT = 'Put a long command or environment in a script the job runs, or submit again later.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_submission_budget(name, timestamptz, bigint, bigint, bigint, bigint) IS 'internal: raises 54000 when a role has submitted more than its hourly budget';
REVOKE ALL ON FUNCTION mixdnn._check_submission_budget(name, timestamptz, bigint, bigint, bigint, bigint) FROM PUBLIC;

-- The waiting-jobs limit lim of role who, with its row of
-- mixdnn.submitters locked.
CREATE OR REPLACE FUNCTION mixdnn._check_waiting_limit(who name, lim integer) RETURNS void
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	waiting	bigint;
BEGIN
	SELECT pg_catalog.count(*) INTO waiting FROM (
		SELECT FROM mixdnn.jobs j
		WHERE j.owner OPERATOR(pg_catalog.=) who AND j.status IN ('pending', 'planned')
		LIMIT lim OPERATOR(pg_catalog.+) 1) w;
	IF waiting OPERATOR(pg_catalog.>) lim THEN
		RAISE EXCEPTION 'role % would have more than % waiting jobs', who, lim
			USING ERRCODE = 'program_limit_exceeded',
				  DETAIL = 'The strictest max_waiting_jobs of mixdnn.quotas rows naming the role or a group it belongs to binds, else mixdnn.max_waiting_jobs.',
				  HINT = 'Submit again once some of its jobs have started, or cancel some.';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_waiting_limit(name, integer) IS 'internal: raises 54000 when a role has more waiting jobs than its limit';
REVOKE ALL ON FUNCTION mixdnn._check_waiting_limit(name, integer) FROM PUBLIC;

CREATE OR REPLACE FUNCTION mixdnn._jobs_submission_limits() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	-- the session's values; a role's own (ALTER ROLE ... SET) binds its
	-- jobs whoever submits them
	session_rows	bigint := pg_catalog.current_setting('mixdnn.max_submissions_per_hour')::bigint;
	session_bytes	bigint := pg_catalog.pg_size_bytes(pg_catalog.current_setting('mixdnn.max_submission_bytes_per_hour'));
	since		timestamptz := mixdnn.now() OPERATOR(pg_catalog.-) interval '1 hour';
	max_rows	bigint;
	max_bytes	bigint;
	lim			integer;
	r			record;
	-- The role in effect outside this SECURITY DEFINER function: SET
	-- ROLE's, else the session's.
	submitter	name := CASE pg_catalog.current_setting('role')
		WHEN 'none' THEN session_user ELSE pg_catalog.current_setting('role')::pg_catalog.name END;
BEGIN
	-- Superusers (the extension's owner, replays, benchmarks) are not
	-- limited. old_*: the owner's new jobs an admin gave a submitted_at
	-- before the window, which the budget counts in this statement only.
	FOR r IN SELECT n.owner,
					pg_catalog.count(*) FILTER (WHERE NOT n.submitted_at OPERATOR(pg_catalog.>) since) AS old_rows,
					pg_catalog.sum(mixdnn._submitted_bytes(n.name, n.model, n.command, n.env, n.workdir, n.allowed_types))
						FILTER (WHERE NOT n.submitted_at OPERATOR(pg_catalog.>) since)::bigint AS old_bytes
			   FROM new_jobs n
			  WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles o
								WHERE o.rolname OPERATOR(pg_catalog.=) n.owner AND o.rolsuper)
			  GROUP BY n.owner ORDER BY n.owner LOOP
		-- mixdnn.quotas (65_tenancy.sql) or mixdnn.max_waiting_jobs; NULL: none.
		lim := mixdnn._waiting_limit(r.owner);
		max_rows := NULLIF(COALESCE(mixdnn._role_setting(r.owner, 'mixdnn.max_submissions_per_hour'), session_rows), 0);
		-- the setting's unit is kB
		max_bytes := NULLIF(COALESCE(mixdnn._role_setting(r.owner, 'mixdnn.max_submission_bytes_per_hour')::bigint
									 OPERATOR(pg_catalog.*) 1024, session_bytes), 0);
		CONTINUE WHEN lim IS NULL AND max_rows IS NULL AND max_bytes IS NULL;
		-- Both limits count with the owner's row of mixdnn.submitters
		-- locked, so two concurrent submissions of one role cannot both
		-- pass. Another role's submission for it (an admin's) waits at most
		-- mixdnn.lock_timeout (55P03): no user's transaction holds up
		-- someone else's statement. A role's own submissions wait for each
		-- other, as they must.
		IF r.owner OPERATOR(pg_catalog.<>) submitter THEN
			PERFORM mixdnn._bound_lock_waits();
		END IF;
		INSERT INTO mixdnn.submitters AS s (owner) VALUES (r.owner)
			ON CONFLICT (owner) DO UPDATE SET owner = EXCLUDED.owner;
		IF max_rows IS NOT NULL OR max_bytes IS NOT NULL THEN
			PERFORM mixdnn._check_submission_budget(r.owner, since, max_rows, max_bytes, r.old_rows, r.old_bytes);
		END IF;
		IF lim IS NOT NULL THEN
			PERFORM mixdnn._check_waiting_limit(r.owner, lim);
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._jobs_submission_limits() IS 'internal trigger: per role, at most its waiting-jobs limit (mixdnn.quotas, else mixdnn.max_waiting_jobs) and mixdnn.max_submissions_per_hour jobs and mixdnn.max_submission_bytes_per_hour bytes submitted in any hour';
REVOKE ALL ON FUNCTION mixdnn._jobs_submission_limits() FROM PUBLIC;

-- A restore loads the jobs as they were (25_restore.sql), before the quotas
-- that allowed them: a data load is not a submission.
CREATE OR REPLACE TRIGGER jobs_submission_limits AFTER INSERT ON mixdnn.jobs
	REFERENCING NEW TABLE AS new_jobs
	FOR EACH STATEMENT WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._jobs_submission_limits();
