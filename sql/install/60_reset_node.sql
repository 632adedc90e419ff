-- 60_reset_node.sql — a launcher hands back a part it claimed and does
-- not run: mixdnn.reset_node(). Also the upgrade piece 0.1.0--0.2.0/99zm_b
-- (a link to this file), after 99zm_a has dropped the 2-argument
-- reset_node(node, job_id) of 0.1.0, which this one replaces: a call with
-- one or two arguments (launchers before the cause) resolves to it.
--
-- cause: why the launcher gives the part up, when it knows (its fork of
-- the part's keeper failed, the keeper killed the part on its lease, ...):
-- the reason is then "node N handed it back: CAUSE". The cause is the
-- launcher role's text, read by users in the job's reason: at most 200
-- characters (22001), not blank, printable ASCII (22023); refused,
-- nothing changed. Without a cause the reason guesses, as before it took
-- one (launchers before it call reset_node(node, job)).
CREATE FUNCTION mixdnn.reset_node(node text, job_id bigint DEFAULT NULL, cause text DEFAULT NULL) RETURNS int
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
#variable_conflict use_column
DECLARE
	r		record;
	n		int := 0;
	reason	text;
BEGIN
	IF pg_catalog.length(reset_node.cause) OPERATOR(pg_catalog.>) 200 THEN
		RAISE EXCEPTION 'cause must be at most 200 characters, not %', pg_catalog.length(reset_node.cause)
			USING ERRCODE = 'string_data_right_truncation';
	END IF;
	-- Printable ASCII, which is all the launcher sends (it writes '?' for
	-- any other byte): no control character (a newline, an escape
	-- sequence), and no Unicode space, line separator or bidirectional
	-- override that would make the reason look blank or other than it is;
	-- byte for byte the same in every server encoding.
	IF reset_node.cause OPERATOR(pg_catalog.!~) '^[ -~]*$' THEN
		RAISE EXCEPTION 'cause must be printable ASCII (no control character such as a newline)'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.btrim(reset_node.cause) OPERATOR(pg_catalog.=) '' THEN
		RAISE EXCEPTION 'cause must not be empty: give NULL for none'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	reason := CASE
		WHEN reset_node.cause IS NOT NULL
			THEN pg_catalog.format('node %s handed it back: %s', reset_node.node, reset_node.cause)
		WHEN reset_node.job_id IS NULL
			THEN pg_catalog.format('launcher of node %s restarted', reset_node.node)
		-- with a job and no cause (a launcher before causes): its
		-- reconciliation found the part gone, after its own restart, a
		-- claim whose answer it lost, or its keeper killing the part on
		-- the lease
		ELSE pg_catalog.format('node %s no longer runs it (its launcher restarted or lost the answer to its claim, or the part''s lease ran out)',
							   reset_node.node)
	END;
	PERFORM mixdnn._lock_scheduler_now();
	PERFORM mixdnn._check_node(reset_node.node);
	FOR r IN
		SELECT p.job_id FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE p.node = reset_node.node AND p.state = 'running' AND j.status IN ('launching', 'running')
		  AND (reset_node.job_id IS NULL OR p.job_id = reset_node.job_id)
		ORDER BY p.job_id
	LOOP
		IF mixdnn._lose_job(r.job_id, ARRAY[reset_node.node], reason) THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END
$$;
COMMENT ON FUNCTION mixdnn.reset_node(text, bigint, text) IS 'launcher: the parts the node claimed (of job_id only, when given) and no longer runs are lost at once, as if their lease had expired; a launcher calls it for each part it claimed and does not run, with the cause when it knows it (at most 200 characters, no control characters); returns how many jobs';

REVOKE ALL ON FUNCTION mixdnn.reset_node(text, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION mixdnn.reset_node(text, bigint, text) TO mixdnn_launcher;
