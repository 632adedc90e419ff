-- 0.2.0: the launcher runs a job in its own directory with its own
-- environment, as its owner's OS account (docs/launcher.md). jobs.workdir
-- and jobs.env (checked at INSERT); claim returns them with the owner and
-- the attempt, and a torch.distributed environment
-- (RANK = NODE_RANK, WORLD_SIZE = nodes, a MASTER_PORT per master GPU);
-- finish takes the reason a launcher could not run a part.

ALTER TABLE mixdnn.jobs ADD COLUMN workdir text, ADD COLUMN env jsonb;
COMMENT ON COLUMN mixdnn.jobs.workdir IS 'absolute directory the command starts in; NULL = the owner''s home directory';
COMMENT ON COLUMN mixdnn.jobs.env IS 'extra environment of the command: a JSON object of strings; the launcher''s own names are refused';

CREATE FUNCTION mixdnn._job_check_env() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k		text;
	v		jsonb;
BEGIN
	IF NEW.workdir IS NOT NULL
	   AND (NEW.workdir OPERATOR(pg_catalog.!~) '^/' OR pg_catalog.length(NEW.workdir) OPERATOR(pg_catalog.>) 4096) THEN
		RAISE EXCEPTION 'workdir must be an absolute path (starting with /) of at most 4096 characters, not "%"',
				pg_catalog.left(NEW.workdir, 200)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF NEW.workdir OPERATOR(pg_catalog.~) '[[:cntrl:]]' THEN
		RAISE EXCEPTION 'workdir must not contain control characters (such as a newline)'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- exec takes at most 128 kB in one argument (sh -c COMMAND); launchers
	-- fetch and hold the command of every part they claim.
	IF pg_catalog.octet_length(NEW.command) OPERATOR(pg_catalog.>) 65536 THEN
		RAISE EXCEPTION 'command must be at most 64 kB, not % bytes', pg_catalog.octet_length(NEW.command)
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'Put a long command in a script and run the script.';
	END IF;
	IF NEW.env IS NULL THEN
		RETURN NEW;
	END IF;
	IF pg_catalog.jsonb_typeof(NEW.env) OPERATOR(pg_catalog.<>) 'object' THEN
		RAISE EXCEPTION 'env must be a JSON object of strings, such as {"NCCL_DEBUG": "INFO"}, not a JSON %',
				pg_catalog.jsonb_typeof(NEW.env)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.octet_length(NEW.env::text) OPERATOR(pg_catalog.>) 65536 THEN
		RAISE EXCEPTION 'env must be at most 64 kB of JSON'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(NEW.env) e LOOP
		IF k OPERATOR(pg_catalog.!~) '^[A-Za-z_][A-Za-z0-9_]{0,127}$' THEN
			RAISE EXCEPTION 'env key "%" is not an environment variable name', pg_catalog.left(k, 200)
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Names are letters, digits and _, not starting with a digit, at most 128 characters.';
		END IF;
		IF k OPERATOR(pg_catalog.=) ANY (ARRAY['CUDA_VISIBLE_DEVICES', 'MASTER_ADDR', 'MASTER_PORT', 'RANK',
					'LOCAL_RANK', 'NODE_RANK', 'WORLD_SIZE']) OR k OPERATOR(pg_catalog.~) '^MIXDNN_' THEN
			RAISE EXCEPTION 'env key "%" is set by the launcher and cannot be given', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'The launcher sets CUDA_VISIBLE_DEVICES, MASTER_ADDR, MASTER_PORT, RANK, LOCAL_RANK, NODE_RANK, WORLD_SIZE and every MIXDNN_* variable.';
		END IF;
		IF pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.<>) 'string' THEN
			RAISE EXCEPTION 'env value of "%" must be a JSON string, not a JSON %', k, pg_catalog.jsonb_typeof(v)
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
	END LOOP;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._job_check_env() IS 'internal: refuses a job whose workdir is not an absolute path without control characters, whose command is over 64 kB or whose env is not a JSON object of strings with free variable names';

-- Commands had no bound in 0.1.0: rows over it stay as they are (the check
-- runs when a command is written), and the upgrade says how many.
DO $$
DECLARE
	n		bigint;
BEGIN
	SELECT pg_catalog.count(*) INTO n FROM mixdnn.jobs j
		WHERE pg_catalog.octet_length(j.command) OPERATOR(pg_catalog.>) 65536;
	IF n OPERATOR(pg_catalog.>) 0 THEN
		RAISE WARNING '% jobs have a command over 64 kB; they keep it, but a change to their command, env or workdir must bring it within 64 kB', n
			USING HINT = 'A launcher runs a command of at most 128 kB (sh -c COMMAND).';
	END IF;
END
$$;

-- 40_restore.sql makes it again, letting a restore's load through.
CREATE TRIGGER jobs_check_env
	BEFORE INSERT OR UPDATE OF workdir, env, command ON mixdnn.jobs
	FOR EACH ROW EXECUTE FUNCTION mixdnn._job_check_env();
REVOKE ALL ON FUNCTION mixdnn._job_check_env() FROM PUBLIC;
-- Users give both when they submit.
GRANT INSERT (workdir, env) ON mixdnn.jobs TO mixdnn_user;

-- A function's result type and arguments change only by DROP and CREATE.
DROP FUNCTION mixdnn.claim(text);
CREATE FUNCTION mixdnn.claim(node text)
	RETURNS TABLE (job_id bigint, name text, command text, gpu_indices int[], nodes text[],
				   node_rank int, world_gpus int, env jsonb,
				   workdir text, owner name, attempt int)
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	now_ts		timestamptz;
	claimed		bigint[];
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(claim.node);
	now_ts := mixdnn.now();
	-- Any call from a launcher shows it is alive.
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = now_ts, unreachable_since = NULL WHERE n.node = claim.node;

	-- Only the current attempt of a job that is still launching or running;
	-- one being cancelled right now is skipped, not waited for.
	WITH l AS (
		SELECT p.job_id, p.attempt FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
			WHERE p.node = claim.node AND p.state = 'launching' AND j.status IN ('launching', 'running')
			ORDER BY p.job_id
			FOR NO KEY UPDATE OF p, j SKIP LOCKED),
	c AS (
		UPDATE mixdnn.job_parts p
			SET state = 'running', claimed_at = now_ts, lease_until = now_ts + mixdnn._lease()
			FROM l
			WHERE p.node = claim.node AND p.job_id = l.job_id AND p.attempt = l.attempt
			RETURNING p.job_id)
	SELECT pg_catalog.array_agg(c.job_id ORDER BY c.job_id) INTO claimed FROM c;
	IF claimed IS NULL THEN
		RETURN;
	END IF;

	-- The first claimed part makes the job running: its process exists.
	UPDATE mixdnn.jobs j SET status = 'running'
		WHERE j.job_id = ANY (claimed) AND j.status = 'launching';

	-- The job's own env first: the launcher's names win (they are refused
	-- at INSERT anyway). MASTER_PORT comes from the lowest GPU the job holds
	-- on its master node: a GPU is held by one job at a time, and held until
	-- every process of its job has ended, so two jobs sharing a master node
	-- never get the same port (docs/launcher.md).
	RETURN QUERY
	SELECT j.job_id, j.name, j.command, x.gpu_indices, w.nodes, p.node_rank, w.world_gpus,
		   coalesce(j.env, '{}'::jsonb) OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(
				'MASTER_ADDR', coalesce(m.address, m.node),
				'MASTER_PORT', (29500 + mp.port_gpu)::text,
				'RANK', p.node_rank::text,
				'LOCAL_RANK', '0',
				'WORLD_SIZE', pg_catalog.cardinality(w.nodes)::text,
				'NODE_RANK', p.node_rank::text,
				'CUDA_VISIBLE_DEVICES', pg_catalog.array_to_string(x.gpu_indices, ','),
				'MIXDNN_JOB_ID', j.job_id::text,
				'MIXDNN_ATTEMPT', j.attempt::text,
				'MIXDNN_NODE', p.node,
				'MIXDNN_NNODES', pg_catalog.cardinality(w.nodes)::text,
				'MIXDNN_WORLD_GPUS', w.world_gpus::text,
				'MIXDNN_LOCAL_GPUS', p.gpus::text,
				'MIXDNN_GPU_OFFSET', (SELECT coalesce(pg_catalog.sum(q.gpus), 0) FROM mixdnn.job_parts q
									  WHERE q.job_id = p.job_id AND q.attempt = p.attempt
										AND q.node_rank < p.node_rank)::text),
		   j.workdir, j.owner, j.attempt
	FROM mixdnn.job_parts p
	JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
	CROSS JOIN LATERAL (
		SELECT pg_catalog.array_agg(q.node ORDER BY q.node_rank) AS nodes,
			   pg_catalog.sum(q.gpus)::int AS world_gpus,
			   (pg_catalog.array_agg(q.node ORDER BY q.node_rank))[1] AS master
		FROM mixdnn.job_parts q WHERE q.job_id = p.job_id AND q.attempt = p.attempt) w
	JOIN mixdnn.gpu_nodes m ON m.node = w.master
	CROSS JOIN LATERAL (
		SELECT coalesce(pg_catalog.array_agg(h.gpu_index ORDER BY h.gpu_index), '{}') AS gpu_indices
		FROM mixdnn.gpu_holds h WHERE h.job_id = p.job_id AND h.node = p.node) x
	CROSS JOIN LATERAL (
		SELECT coalesce(pg_catalog.min(h.gpu_index), 0) AS port_gpu
		FROM mixdnn.gpu_holds h WHERE h.job_id = p.job_id AND h.node = w.master) mp
	WHERE p.node = claim.node AND p.job_id = ANY (claimed)
	ORDER BY j.job_id;
END
$$;
COMMENT ON FUNCTION mixdnn.claim(text) IS 'launcher: takes the node''s launching parts (current attempts only), marks them and their jobs running, renews their leases and returns what to run with its environment';
REVOKE ALL ON FUNCTION mixdnn.claim(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.claim(text) TO mixdnn_launcher;

DROP FUNCTION mixdnn.finish(bigint, int, text, int);
CREATE FUNCTION mixdnn.finish(job_id bigint, exit_code int, node text, attempt int DEFAULT NULL,
							  reason text DEFAULT NULL)
	RETURNS boolean
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	j		record;
BEGIN
	PERFORM mixdnn._lock_scheduler_now();
	IF finish.job_id IS NULL OR finish.exit_code IS NULL THEN
		RAISE EXCEPTION 'job_id and exit_code must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	PERFORM mixdnn._check_node(finish.node);
	UPDATE mixdnn.gpu_nodes n SET last_heartbeat = mixdnn.now(), unreachable_since = NULL WHERE n.node = finish.node;
	SELECT jb.job_id, jb.status, jb.attempt INTO j FROM mixdnn.jobs jb WHERE jb.job_id = finish.job_id FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', finish.job_id
			USING ERRCODE = 'no_data_found';
	END IF;

	-- Fencing: a stale attempt, a part this node did not claim, or a second
	-- report changes nothing.
	IF (finish.attempt IS NOT NULL AND finish.attempt <> j.attempt)
	   OR j.status NOT IN ('launching', 'running') THEN
		RETURN false;
	END IF;
	UPDATE mixdnn.job_parts p
		SET state = CASE WHEN finish.exit_code = 0 THEN 'completed' ELSE 'failed' END,
			finished_at = mixdnn.now(), exit_code = finish.exit_code
		WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.node = finish.node AND p.state = 'running';
	IF NOT FOUND THEN
		RETURN false;
	END IF;

	IF finish.exit_code <> 0 THEN
		-- One failed part fails the gang: the other nodes stop theirs.
		PERFORM pg_catalog.pg_notify('mixdnn_cancel',
				pg_catalog.format('{"job_id": %s, "node": %s}', p.job_id, pg_catalog.to_json(p.node)))
			FROM mixdnn.job_parts p
			WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state IN ('launching', 'running');
		UPDATE mixdnn.jobs jb
			SET status = 'failed', exit_code = finish.exit_code,
				reason = pg_catalog.concat(pg_catalog.format('exited with code %s on node %s', finish.exit_code, finish.node),
										   ': ' OPERATOR(pg_catalog.||) pg_catalog.left(finish.reason, 1000))
			WHERE jb.job_id = j.job_id;
	ELSIF NOT EXISTS (SELECT FROM mixdnn.job_parts p
					  WHERE p.job_id = j.job_id AND p.attempt = j.attempt AND p.state <> 'completed') THEN
		UPDATE mixdnn.jobs jb SET status = 'completed', exit_code = 0, reason = NULL
			WHERE jb.job_id = j.job_id;
	END IF;
	RETURN true;
END
$$;
COMMENT ON FUNCTION mixdnn.finish(bigint, int, text, int, text) IS 'launcher: reports the exit code of the job''s part on node (of attempt, when given; why it failed, when known); true if it counted, false for a stale attempt, an unclaimed part or a repeated report';
REVOKE ALL ON FUNCTION mixdnn.finish(bigint, int, text, int, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.finish(bigint, int, text, int, text) TO mixdnn_launcher;
