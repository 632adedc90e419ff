-- 64_tenancy_check.sql — the checks of a row of mixdnn.quotas or
-- mixdnn.shares (65_tenancy.sql makes the tables and their triggers). Also
-- the upgrade piece 0.1.0--0.2.0/99zu (a link to this file): every
-- statement here can run again over what it made.

-- Plain-words versions of the constraints (the same SQLSTATEs), and the
-- role must exist: a quota for a misspelt role would bind no one.
CREATE OR REPLACE FUNCTION mixdnn._tenancy_before_write() RETURNS trigger
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
	-- An update only: on an insert the table's unique constraint reports a
	-- duplicate (23505 too), after INSERT ... ON CONFLICT has had its say,
	-- which a trigger raising here would take from it.
	IF TG_OP = 'UPDATE' AND EXISTS (SELECT FROM mixdnn.quotas q
			   WHERE q.role OPERATOR(pg_catalog.=) NEW.role
				 AND q.gpu_type IS NOT DISTINCT FROM NEW.gpu_type
				 AND q.ctid OPERATOR(pg_catalog.<>) OLD.ctid) THEN
		RAISE EXCEPTION 'role % already has a quota for %', NEW.role,
			coalesce('gpu_type ' || NEW.gpu_type, 'all GPU types (gpu_type NULL)')
			USING ERRCODE = 'unique_violation',
				  HINT = 'Update that row instead.';
	END IF;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._tenancy_before_write() IS 'internal trigger: plain-words checks of mixdnn.quotas and mixdnn.shares';
