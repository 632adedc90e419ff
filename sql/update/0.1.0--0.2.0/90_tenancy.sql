-- 0.2.0: quotas, fair-share weights and the waiting-jobs limit per role
-- (sql/install/65_tenancy.sql, the trigger function of 45_queue.sql and the
-- queue view of 70_surface.sql).

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

-- Plain-words versions of the constraints (the same SQLSTATEs), and the
-- role must exist: a quota for a misspelt role would bind no one.
CREATE FUNCTION mixdnn._tenancy_before_write() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	-- A NULL where a value is required: 23502, as the borrow column's.
	IF NEW.role IS NULL THEN
		RAISE EXCEPTION 'role must name an existing role, not NULL'
			USING ERRCODE = 'not_null_violation';
	END IF;
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) NEW.role) THEN
		RAISE EXCEPTION 'role must name an existing role, not "%"', NEW.role
			USING ERRCODE = 'undefined_object';
	END IF;
	IF TG_TABLE_NAME = 'shares' THEN
		IF NEW.shares IS NULL THEN
			RAISE EXCEPTION 'shares must be between 1 and 1000000, not NULL'
				USING ERRCODE = 'not_null_violation';
		END IF;
		IF NEW.shares NOT BETWEEN 1 AND 1000000 THEN
			RAISE EXCEPTION 'shares must be between 1 and 1000000, not %', coalesce(NEW.shares::text, 'NULL')
				USING ERRCODE = 'check_violation';
		END IF;
		RETURN NEW;
	END IF;
	IF NEW.gpu_type IS NOT NULL AND NOT EXISTS (SELECT FROM mixdnn.gpu_types t
												WHERE t.gpu_type OPERATOR(pg_catalog.=) NEW.gpu_type) THEN
		RAISE EXCEPTION 'gpu_type must be a registered GPU type or NULL (all types), not "%"', NEW.gpu_type
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Registered types are listed in mixdnn.gpu_types.';
	END IF;
	IF NEW.max_gpus NOT BETWEEN 0 AND 1000000 THEN
		RAISE EXCEPTION 'max_gpus must be between 0 and 1000000 or NULL (no limit), not %', NEW.max_gpus
			USING ERRCODE = 'check_violation';
	END IF;
	IF NEW.max_waiting_jobs NOT BETWEEN 0 AND 10000000 THEN
		RAISE EXCEPTION 'max_waiting_jobs must be between 0 and 10000000 or NULL (no limit), not %', NEW.max_waiting_jobs
			USING ERRCODE = 'check_violation';
	END IF;
	IF NEW.borrow IS NULL THEN
		RAISE EXCEPTION 'borrow must be true or false, not NULL'
			USING ERRCODE = 'not_null_violation';
	END IF;
	IF EXISTS (SELECT FROM mixdnn.quotas q
			   WHERE q.role OPERATOR(pg_catalog.=) NEW.role
				 AND q.gpu_type IS NOT DISTINCT FROM NEW.gpu_type
				 AND (TG_OP = 'INSERT' OR q.ctid OPERATOR(pg_catalog.<>) OLD.ctid)) THEN
		RAISE EXCEPTION 'role % already has a quota for %', NEW.role,
			coalesce('gpu_type ' || NEW.gpu_type, 'all GPU types (gpu_type NULL)')
			USING ERRCODE = 'unique_violation',
				  HINT = 'Update that row instead.';
	END IF;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._tenancy_before_write() IS 'internal trigger: plain-words checks of mixdnn.quotas and mixdnn.shares';

CREATE TRIGGER quotas_before_write BEFORE INSERT OR UPDATE ON mixdnn.quotas
	FOR EACH ROW EXECUTE FUNCTION mixdnn._tenancy_before_write();
CREATE TRIGGER shares_before_write BEFORE INSERT OR UPDATE ON mixdnn.shares
	FOR EACH ROW EXECUTE FUNCTION mixdnn._tenancy_before_write();

-- The waiting-jobs limit of a role: the strictest max_waiting_jobs of the
-- rows naming it or a role it is a member of (a superuser: naming it;
-- pg_has_role() is true of a superuser for every role);
-- mixdnn.max_waiting_jobs when none sets one (0 = none). NULL: no limit.
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
		NULLIF(pg_catalog.current_setting('mixdnn.max_waiting_jobs')::int, 0))
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

CREATE OR REPLACE FUNCTION mixdnn._jobs_waiting_limit() RETURNS trigger
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

-- mixdnn.queue gains its last column, fair_share (sql/install/70_surface.sql).
CREATE OR REPLACE VIEW mixdnn.queue WITH (security_barrier = true) AS
	SELECT CASE WHEN q.waiting THEN q.served END::int AS position,
		   q.job_id, q.owner,
		   CASE WHEN q.visible THEN q.name END AS name,
		   q.status, q.model_class,
		   q.gpu_type AS requested_gpu_type, q.gpus AS requested_gpus,
		   q.min_gpus, q.max_gpus,
		   q.planned_gpu_type, q.planned_gpus, q.planned_start, q.planned_end,
		   (SELECT pg_catalog.array_agg(p.node ORDER BY p.node_rank) FROM mixdnn.job_parts p
			 WHERE p.job_id = q.job_id AND p.attempt = q.attempt
			   AND p.state OPERATOR(pg_catalog.=) ANY ('{launching,running}'::text[])) AS nodes,
		   CASE WHEN q.waiting THEN mixdnn.now() OPERATOR(pg_catalog.-) q.submitted_at
				WHEN pg_catalog.isfinite(q.started_at) THEN q.started_at OPERATOR(pg_catalog.-) q.submitted_at END AS waited,
		   CASE WHEN q.visible THEN q.model END AS model,
		   CASE WHEN q.visible THEN q.reason END AS reason,
		   q.owner OPERATOR(pg_catalog.=) CURRENT_USER AS mine,
		   f.factor AS fair_share
	FROM (SELECT j.*,
				 j.status OPERATOR(pg_catalog.=) ANY ('{pending,planned}'::text[]) AS waiting,
				 j.owner OPERATOR(pg_catalog.=) CURRENT_USER
				   OR pg_catalog.pg_has_role(CURRENT_USER, 'mixdnn_admin', 'MEMBER') AS visible,
				 -- launch_due starts planned jobs by (planned_start, job_id); unplanned ones come after
				 pg_catalog.row_number() OVER (
					 PARTITION BY j.status OPERATOR(pg_catalog.=) ANY ('{pending,planned}'::text[])
					 ORDER BY j.planned_start NULLS LAST,
							  CASE WHEN j.planned_start IS NULL THEN OPERATOR(pg_catalog.-) j.priority END,
							  CASE WHEN j.planned_start IS NULL THEN j.submitted_at END,
							  j.job_id) AS served
		  FROM mixdnn.jobs j
		  WHERE j.status OPERATOR(pg_catalog.=) ANY ('{pending,planned,launching,running}'::text[])) q
		 -- only with fair share on (a one-time filter: otherwise never called)
		 LEFT JOIN (SELECT u.role, u.factor FROM mixdnn.fair_share_usage() u
					WHERE pg_catalog.current_setting('mixdnn.fair_share')::boolean) f
			ON f.role OPERATOR(pg_catalog.=) q.owner;
