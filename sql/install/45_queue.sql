-- The waiting queue: the order in which waiting jobs enter the planning
-- horizon, and the per-role limit on waiting jobs (docs/design.md, "The
-- waiting queue").

-- The first mixdnn.planning_horizon waiting jobs in this order are planned
-- by a round; a job's queue position is its rank in it.
CREATE INDEX jobs_queue_idx ON mixdnn.jobs (priority DESC, submitted_at, job_id)
	WHERE status IN ('pending', 'planned');
-- Planned jobs a full horizon pushed out, and queued jobs still without a reason.
CREATE INDEX jobs_planned_idx ON mixdnn.jobs (job_id) WHERE status = 'planned';
CREATE INDEX jobs_unexplained_idx ON mixdnn.jobs (job_id) WHERE status = 'pending' AND reason IS NULL;
-- Counting a role's waiting jobs at submission.
CREATE INDEX jobs_owner_waiting_idx ON mixdnn.jobs (owner) WHERE status IN ('pending', 'planned');

-- One row per submitting role. A submission locks its owner's row while it
-- counts the owner's waiting jobs, so two concurrent submissions of one
-- role cannot both pass the limit. Only the extension's owner can read or
-- lock these rows; no other role can hold up a submission through them.
CREATE TABLE mixdnn.submitters (
	owner		name PRIMARY KEY
);
COMMENT ON TABLE mixdnn.submitters IS 'internal: one row per submitting role, locked while its waiting jobs are counted';

CREATE FUNCTION mixdnn._jobs_waiting_limit() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	lim		int;
	r		record;
	waiting	bigint;
	-- The role in effect outside this SECURITY DEFINER function: SET
	-- ROLE's, else the session's.
	submitter name := CASE pg_catalog.current_setting('role')
		WHEN 'none' THEN session_user ELSE pg_catalog.current_setting('role')::pg_catalog.name END;
BEGIN
	-- Superusers (the extension's owner, replays, benchmarks) are not limited.
	FOR r IN SELECT n.owner FROM new_jobs n
			 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles o
							   WHERE o.rolname OPERATOR(pg_catalog.=) n.owner AND o.rolsuper)
			 GROUP BY n.owner ORDER BY n.owner LOOP
		-- mixdnn.quotas (65_tenancy.sql) or mixdnn.max_waiting_jobs; NULL: none.
		lim := mixdnn._waiting_limit(r.owner);
		CONTINUE WHEN lim IS NULL;
		-- Another role's submission for r.owner (an admin's) waits for
		-- r.owner's open submission at most mixdnn.lock_timeout (55P03):
		-- no user's transaction holds up someone else's statement. A
		-- role's own submissions wait for each other, as they must.
		IF r.owner OPERATOR(pg_catalog.<>) submitter THEN
			PERFORM mixdnn._bound_lock_waits();
		END IF;
		INSERT INTO mixdnn.submitters AS s (owner) VALUES (r.owner)
			ON CONFLICT (owner) DO UPDATE SET owner = EXCLUDED.owner;
		SELECT pg_catalog.count(*) INTO waiting FROM (
			SELECT FROM mixdnn.jobs j
			WHERE j.owner OPERATOR(pg_catalog.=) r.owner AND j.status IN ('pending', 'planned')
			LIMIT lim + 1) w;
		IF waiting > lim THEN
			RAISE EXCEPTION 'role % would have more than % waiting jobs', r.owner, lim
				USING ERRCODE = 'program_limit_exceeded',
					  DETAIL = 'The strictest max_waiting_jobs of mixdnn.quotas rows naming the role or a group it belongs to binds, else mixdnn.max_waiting_jobs.',
					  HINT = 'Submit again once some of its jobs have started, or cancel some.';
		END IF;
	END LOOP;
	RETURN NULL;
END
$$;
COMMENT ON FUNCTION mixdnn._jobs_waiting_limit() IS 'internal trigger: at most the role''s waiting-jobs limit (mixdnn.quotas, else mixdnn.max_waiting_jobs)';

-- A restore loads the jobs as they were, before the quotas that allowed them
-- and under the restoring session's own mixdnn.max_waiting_jobs.
CREATE TRIGGER jobs_waiting_limit AFTER INSERT ON mixdnn.jobs
	REFERENCING NEW TABLE AS new_jobs
	FOR EACH STATEMENT WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._jobs_waiting_limit();
