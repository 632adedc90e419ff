-- 46_submission_budget.sql — each role's submission budget over a sliding
-- hour (docs/design.md, "Submission budget"): finished and cancelled jobs
-- stay in mixdnn.jobs (purge_history keeps them, no admin may delete one),
-- so what one role may add to it is bounded, in rows
-- (mixdnn.max_submissions_per_hour) and in bytes of what it stores
-- (mixdnn.max_submission_bytes_per_hour). Also the upgrade piece
-- 0.1.0--0.2.0/99zq (a link to this file): every statement here can run
-- again over what it made.

-- A role's jobs of the last hour, read by the index alone up to the rows
-- themselves: the check costs O(that role's jobs of the last hour).
CREATE INDEX IF NOT EXISTS jobs_owner_submitted_idx ON mixdnn.jobs (owner, submitted_at);

CREATE OR REPLACE FUNCTION mixdnn._jobs_submission_budget() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	-- the session's values; a role's own (ALTER ROLE ... SET) binds its
	-- jobs whoever submits them, as the waiting-jobs limit's does
	session_rows	bigint := pg_catalog.current_setting('mixdnn.max_submissions_per_hour')::bigint;
	session_bytes	bigint := pg_catalog.pg_size_bytes(pg_catalog.current_setting('mixdnn.max_submission_bytes_per_hour'));
	max_rows	bigint;
	max_bytes	bigint;
	since		timestamptz := mixdnn.now() OPERATOR(pg_catalog.-) interval '1 hour';
	r			record;
	n_rows		bigint;
	n_bytes		bigint;
	oldest		timestamptz;
	-- The role in effect outside this SECURITY DEFINER function: SET
	-- ROLE's, else the session's.
	submitter	name := CASE pg_catalog.current_setting('role')
		WHEN 'none' THEN session_user ELSE pg_catalog.current_setting('role')::pg_catalog.name END;
BEGIN
	-- Superusers (the extension's owner, replays, benchmarks) are not
	-- limited, as by mixdnn.max_waiting_jobs (45_queue.sql).
	FOR r IN SELECT n.owner FROM new_jobs n
			 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles o
							   WHERE o.rolname OPERATOR(pg_catalog.=) n.owner AND o.rolsuper)
			 GROUP BY n.owner ORDER BY n.owner LOOP
		max_rows := NULLIF(coalesce(mixdnn._role_setting(r.owner, 'mixdnn.max_submissions_per_hour'), session_rows), 0);
		-- the setting's unit is kB
		max_bytes := NULLIF(coalesce(mixdnn._role_setting(r.owner, 'mixdnn.max_submission_bytes_per_hour')::bigint
									 OPERATOR(pg_catalog.*) 1024, session_bytes), 0);
		CONTINUE WHEN max_rows IS NULL AND max_bytes IS NULL;
		-- Serialized with the role's other submissions on its row of
		-- mixdnn.submitters, as the waiting-jobs limit is: two concurrent
		-- submissions of one role cannot both pass. Another role's
		-- submission for it waits at most mixdnn.lock_timeout (55P03).
		IF r.owner OPERATOR(pg_catalog.<>) submitter THEN
			PERFORM mixdnn._bound_lock_waits();
		END IF;
		INSERT INTO mixdnn.submitters AS s (owner) VALUES (r.owner)
			ON CONFLICT (owner) DO UPDATE SET owner = EXCLUDED.owner;
		-- Every job of the role submitted in the last hour, whatever its
		-- status now (a cancelled one stays stored), and this statement's
		-- jobs whatever submitted_at an admin gave them. What a job stores
		-- of what its submitter gave is the columns a user writes that have
		-- no fixed size, as stored: pg_column_size gives the compressed
		-- size, or that of the value out of line, without reading it.
		-- oldest: of the jobs in the window only (an admin's backdated ones
		-- never count again), for when the budget comes back.
		SELECT pg_catalog.count(*),
			   pg_catalog.sum(COALESCE(pg_catalog.pg_column_size(b.name), 0)::bigint
							  OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(b.model), 0)
							  OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(b.command), 0)
							  OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(b.env), 0)
							  OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(b.workdir), 0)
							  OPERATOR(pg_catalog.+) COALESCE(pg_catalog.pg_column_size(b.allowed_types), 0)),
			   pg_catalog.min(b.submitted_at) FILTER (WHERE b.submitted_at OPERATOR(pg_catalog.>) since)
			INTO n_rows, n_bytes, oldest
			FROM (SELECT j.submitted_at, j.name, j.model, j.command, j.env, j.workdir, j.allowed_types
					FROM mixdnn.jobs j
				   WHERE j.owner OPERATOR(pg_catalog.=) r.owner AND j.submitted_at OPERATOR(pg_catalog.>) since
				  UNION ALL
				  SELECT n.submitted_at, n.name, n.model, n.command, n.env, n.workdir, n.allowed_types
					FROM new_jobs n
				   WHERE n.owner OPERATOR(pg_catalog.=) r.owner
					 AND NOT n.submitted_at OPERATOR(pg_catalog.>) since) b;
		IF n_rows OPERATOR(pg_catalog.>) max_rows THEN
			RAISE EXCEPTION 'role % would submit more than % jobs in an hour', r.owner, max_rows
				USING ERRCODE = 'program_limit_exceeded',
					  DETAIL = pg_catalog.format('It would have submitted %s jobs since %s (cancelled and finished ones count too); mixdnn.max_submissions_per_hour is %s.',
												 n_rows, since, max_rows),
					  HINT = CASE WHEN oldest IS NULL THEN 'Submit fewer jobs at once.'
							 ELSE pg_catalog.format('Submit fewer jobs at once, or again after %s, when its oldest jobs of the last hour stop counting.',
													oldest OPERATOR(pg_catalog.+) interval '1 hour') END;
		END IF;
		IF n_bytes OPERATOR(pg_catalog.>) max_bytes THEN
			RAISE EXCEPTION 'role % would submit more than % of job text in an hour', r.owner, pg_catalog.pg_size_pretty(max_bytes)
				USING ERRCODE = 'program_limit_exceeded',
					  DETAIL = pg_catalog.format('Its jobs submitted since %s would store %s bytes of name, model, command, env, workdir and allowed_types (cancelled and finished ones count too); mixdnn.max_submission_bytes_per_hour is %s bytes.',
												 since, n_bytes, max_bytes),
					  HINT = 'Put a long command or environment in a script the job runs, or submit again later.';
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._jobs_submission_budget() IS 'internal trigger: at most mixdnn.max_submissions_per_hour jobs and mixdnn.max_submission_bytes_per_hour bytes submitted per role in any hour';
REVOKE ALL ON FUNCTION mixdnn._jobs_submission_budget() FROM PUBLIC;

-- A restore loads the jobs as they were (25_restore.sql): a data load is
-- not a submission.
CREATE OR REPLACE TRIGGER jobs_submission_budget AFTER INSERT ON mixdnn.jobs
	REFERENCING NEW TABLE AS new_jobs
	FOR EACH STATEMENT WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._jobs_submission_budget();
