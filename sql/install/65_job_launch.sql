-- A job's working directory and extra environment (jobs.workdir, jobs.env;
-- docs/launcher.md): checked when written, so that a launcher never meets a
-- value it cannot use. The launcher's own variables are refused rather than
-- overridden: a job that sets RANK or CUDA_VISIBLE_DEVICES would otherwise
-- join the wrong rendezvous or take GPUs it does not hold. Also the upgrade
-- piece 0.1.0--0.2.0/99zi (a link to this file): every statement here can
-- run again over what it made.

-- Run as the caller, by the trigger below and by `mixdnn when` (bin/mixdnn),
-- which asks where and when a job would run and should refuse what a
-- submission of the same job file would.
CREATE OR REPLACE FUNCTION mixdnn._check_job_text(workdir text, command text, env jsonb) RETURNS void
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k		text;
	v		jsonb;
BEGIN
	IF workdir IS NOT NULL
	   AND (workdir OPERATOR(pg_catalog.!~) '^/' OR pg_catalog.length(workdir) OPERATOR(pg_catalog.>) 4096) THEN
		RAISE EXCEPTION 'workdir must be an absolute path (starting with /) of at most 4096 characters, not "%"',
				pg_catalog.left(workdir, 200)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF workdir OPERATOR(pg_catalog.~) '[[:cntrl:]]' THEN
		RAISE EXCEPTION 'workdir must not contain control characters (such as a newline)'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- exec takes at most 128 kB in one argument (sh -c COMMAND); launchers
	-- fetch and hold the command of every part they claim.
	IF pg_catalog.octet_length(command) OPERATOR(pg_catalog.>) 65536 THEN
		RAISE EXCEPTION 'command must be at most 64 kB, not % bytes', pg_catalog.octet_length(command)
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'Put a long command in a script and run the script.';
	END IF;
	IF env IS NULL THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(env) OPERATOR(pg_catalog.<>) 'object' THEN
		RAISE EXCEPTION 'env must be a JSON object of strings, such as {"NCCL_DEBUG": "INFO"}, not a JSON %',
				pg_catalog.jsonb_typeof(env)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.octet_length(env::text) OPERATOR(pg_catalog.>) 65536 THEN
		RAISE EXCEPTION 'env must be at most 64 kB of JSON'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(env) e LOOP
		IF k OPERATOR(pg_catalog.!~) '^[A-Za-z_][A-Za-z0-9_]{0,127}$' THEN
			RAISE EXCEPTION 'env key "%" is not an environment variable name', pg_catalog.left(k, 200)
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Names are letters, digits and _, not starting with a digit, at most 128 characters.';
		END IF;
		IF k OPERATOR(pg_catalog.=) ANY (ARRAY['CUDA_VISIBLE_DEVICES', 'CUDA_DEVICE_ORDER', 'MASTER_ADDR', 'MASTER_PORT', 'RANK',
					'LOCAL_RANK', 'NODE_RANK', 'WORLD_SIZE']) OR k OPERATOR(pg_catalog.~) '^MIXDNN_' THEN
			RAISE EXCEPTION 'env key "%" is set by the launcher and cannot be given', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'The launcher sets CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, MASTER_ADDR, MASTER_PORT, RANK, LOCAL_RANK, NODE_RANK, WORLD_SIZE and every MIXDNN_* variable.';
		END IF;
		IF pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.<>) 'string' THEN
			RAISE EXCEPTION 'env value of "%" must be a JSON string, not a JSON %', k, pg_catalog.jsonb_typeof(v)
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
	END LOOP;
END
$$;
COMMENT ON FUNCTION mixdnn._check_job_text(text, text, jsonb) IS 'internal: refuses a workdir that is not an absolute path without control characters, a command over 64 kB or an env that is not a JSON object of strings with free variable names';
REVOKE ALL ON FUNCTION mixdnn._check_job_text(text, text, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn._check_job_text(text, text, jsonb) TO mixdnn_user, mixdnn_admin, mixdnn_launcher;

CREATE OR REPLACE FUNCTION mixdnn._job_check_env() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	PERFORM mixdnn._check_job_text(NEW.workdir, NEW.command, NEW.env);
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._job_check_env() IS 'internal: refuses a job (mixdnn._check_job_text) whose workdir is not an absolute path without control characters, whose command is over 64 kB or whose env is not a JSON object of strings with free variable names';

-- A restore's load lets rows in as they were (25_restore.sql): a 0.1.0
-- database may hold values this check refuses, and its dump must restore.
CREATE OR REPLACE TRIGGER jobs_check_env
	BEFORE INSERT OR UPDATE OF workdir, env, command ON mixdnn.jobs
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._job_check_env();
REVOKE ALL ON FUNCTION mixdnn._job_check_env() FROM PUBLIC;
-- Users give both when they submit.
GRANT INSERT (workdir, env) ON mixdnn.jobs TO mixdnn_user;
