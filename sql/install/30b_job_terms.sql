-- 30b_job_terms.sql — the terms of a request (priority, duration, model)
-- that a submission and mixdnn.what_if both check. Also the upgrade piece
-- 0.1.0--0.2.0/99zw (a link to this file): every statement here can run
-- again over what it made.

-- The terms of a request that a submission and mixdnn.what_if both check,
-- in the same words and SQLSTATEs. A NULL argument is not checked: the
-- trigger passes only what is written (a job stored before 0.2.0 keeps a
-- model over 63 characters, and the scheduler must still plan it).
CREATE OR REPLACE FUNCTION mixdnn._check_job_terms(priority int, duration interval, model text) RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	ceiling	int;
BEGIN
	IF priority NOT BETWEEN -100 AND 100 THEN
		RAISE EXCEPTION 'priority must be between -100 and 100, not %', priority
			USING ERRCODE = 'check_violation';
	END IF;
	-- A plain user's ceiling (superuser-set; 0 is Slurm's rule: users may
	-- only lower their jobs' priority, an admin raises one). NULL in a
	-- session that has not loaded the library and where no one set it: the
	-- default, 100, no ceiling.
	ceiling := NULLIF(pg_catalog.current_setting('mixdnn.max_user_priority', true), '')::int;
	IF priority > ceiling AND mixdnn._caller_level() = 'user' THEN
		RAISE EXCEPTION 'priority must be at most %, mixdnn.max_user_priority, not %', ceiling, priority
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'An admin can give the job a higher priority (UPDATE mixdnn.jobs SET priority).';
	END IF;
	-- In seconds, as the planner reads it: interval comparison counts a year
	-- as 360 days, so '-1 year 361 days' passes the table's CHECK while it
	-- lasts -4.25 days.
	IF duration <= interval '0' OR duration > interval '366 days'
	   OR pg_catalog.date_part('epoch', duration) NOT BETWEEN 1e-6 AND 366 * 86400 THEN
		RAISE EXCEPTION 'duration must be positive and at most 366 days, not %', duration
			USING ERRCODE = 'check_violation';
	END IF;
	-- Every round reads the model of every waiting job; a longer one could
	-- name no profile (mixdnn.profiles.model has at most 63 characters).
	IF pg_catalog.length(model) > 63 THEN
		RAISE EXCEPTION 'model must have at most 63 characters, as mixdnn.profiles.model, not %', pg_catalog.length(model)
			USING ERRCODE = 'string_data_right_truncation';
	END IF;
END
$$;
COMMENT ON FUNCTION mixdnn._check_job_terms(int, interval, text) IS 'internal: a request''s priority, duration and model, checked as a submission and mixdnn.what_if check them';
