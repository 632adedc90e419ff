-- test/pgtap/lib/fixture.sql — included (\ir lib/fixture.sql) right after
-- BEGIN by every pgTAP test file. Not a test itself (pg_prove is run on
-- test/pgtap/[0-9]*.sql only).
--
-- * Empties every mixdnn table inside the test's transaction (TRUNCATE is
--   rolled back with it), so each file starts from an empty cluster whatever
--   ran before. job_id and round_id sequences are NOT reset: tests never
--   depend on id values.
-- * Rounds: the round triggers are deferred constraint triggers that run
--   ONE round when the transaction commits. A test transaction never
--   commits, so it marks its "commit points" with :commit, which is
--       SET CONSTRAINTS ALL IMMEDIATE; SET CONSTRAINTS ALL DEFERRED;
--   Switching to IMMEDIATE fires the deferred round triggers queued so far,
--   exactly as COMMIT would, and switching back restores the normal
--   behaviour for what follows. So "INSERT ...; :commit" is what an
--   autocommitted INSERT does. (Staying in IMMEDIATE mode for a whole test
--   would NOT be equivalent: then the note/round triggers interleave row by
--   row and a 10-row INSERT runs 10 rounds; see 02_rounds.sql.) Tests may
--   also call mixdnn.run_round('test') to force a round.
-- * Pins the scheduler clock at 2026-01-01 00:00 UTC (SET LOCAL, superuser).
SET LOCAL client_min_messages = warning;
SET LOCAL timezone = 'UTC';
SET CONSTRAINTS ALL DEFERRED;
\set commit 'SET CONSTRAINTS ALL IMMEDIATE; SET CONSTRAINTS ALL DEFERRED;'
SET LOCAL mixdnn.virtual_now = '2026-01-01 00:00+00';
TRUNCATE mixdnn.gpu_holds, mixdnn.job_parts, mixdnn.plan_history, mixdnn.job_events, mixdnn.jobs,
	mixdnn.rounds, mixdnn.profiles, mixdnn.gpus, mixdnn.gpu_nodes, mixdnn.gpu_types;

-- Moves the scheduler clock (SET LOCAL) and returns the new time.
CREATE FUNCTION pg_temp.set_now(t timestamptz) RETURNS timestamptz
	LANGUAGE sql AS $$ SELECT set_config('mixdnn.virtual_now', t::text, true)::timestamptz $$;

-- The test's time origin.
CREATE FUNCTION pg_temp.t0() RETURNS timestamptz
	LANGUAGE sql IMMUTABLE AS $$ SELECT '2026-01-01 00:00+00'::timestamptz $$;

-- A hard job submitted by role who (a member of mixdnn_user).
CREATE FUNCTION pg_temp.submit(who text, n text, typ text, g int, d interval) RETURNS void
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SET LOCAL ROLE %I', who);
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES (n, 'hard', typ, g, d);
	RESET ROLE;
END $$;

-- GPUs of type typ (NULL: all types) the jobs of role who hold.
CREATE FUNCTION pg_temp.held(who text, typ text) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM mixdnn.gpu_holds h JOIN mixdnn.jobs j USING (job_id)
	JOIN mixdnn.gpu_nodes n ON n.node = h.node
	WHERE j.owner::text = who AND (typ IS NULL OR n.gpu_type = typ) $$;

-- A stale plan, as an earlier round could have left it: the jobs start now.
CREATE FUNCTION pg_temp.due_now(VARIADIC names text[]) RETURNS void LANGUAGE sql AS $$
	UPDATE mixdnn.jobs SET status = 'planned', planned_gpu_type = gpu_type, planned_gpus = gpus,
		planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration, reason = NULL
	WHERE name = ANY (names) $$;

-- job_id by (unique) name.
CREATE FUNCTION pg_temp.jid(n text) RETURNS bigint
	LANGUAGE sql AS $$ SELECT job_id FROM mixdnn.jobs WHERE name = n $$;

-- Capacity invariant of the current plans: for every GPU type and every
-- instant at which some planned job starts (and at mixdnn.now()), the GPUs
-- of the planned jobs overlapping that instant plus the GPUs held on up
-- nodes by launching/running jobs still expected to hold them then must not
-- exceed the type's GPUs on up nodes. A held GPU counts until its job's
-- planned_end; past it, until now + the larger of mixdnn.overrun_grace and
-- mixdnn.overrun_factor x the time past it (the planner's documented overrun
-- rule, docs/model.md; the factor is 0 for the baselines; backfill: until
-- now, as contract §6's comparators). Returns the
-- violations (none = OK).
CREATE FUNCTION pg_temp.plan_overbooking()
	RETURNS TABLE (gpu_type text, at timestamptz, used bigint, capacity bigint)
	LANGUAGE sql AS $$
	WITH cap AS (
		SELECT n.gpu_type, sum(n.gpus)::bigint AS cap
		FROM mixdnn.gpu_nodes n WHERE n.status = 'up' GROUP BY n.gpu_type),
	iv AS (
		SELECT j.planned_gpu_type AS t, j.planned_gpus::bigint AS g, j.planned_start AS s, j.planned_end AS e
		FROM mixdnn.jobs j WHERE j.status = 'planned'
		UNION ALL
		SELECT n.gpu_type, count(*), mixdnn.now(),
			   CASE WHEN j.planned_end > mixdnn.now() THEN j.planned_end
					-- backfill counts a job past its estimate as ending now (contract
					-- §6), its GPUs held: busy at now, not after
					WHEN current_setting('mixdnn.policy') = 'backfill' THEN mixdnn.now() + interval '1 second'
					ELSE mixdnn.now() + greatest(current_setting('mixdnn.overrun_grace')::interval,
						current_setting('mixdnn.overrun_factor')::float8
						* (current_setting('mixdnn.policy') = 'mixdnn')::int
						* (mixdnn.now() - coalesce(j.planned_end, mixdnn.now()))) END
		FROM mixdnn.gpu_holds h
		JOIN mixdnn.gpu_nodes n ON n.node = h.node AND n.status = 'up'
		JOIN mixdnn.jobs j ON j.job_id = h.job_id
		GROUP BY n.gpu_type, j.job_id, j.planned_end),
	pts AS (SELECT DISTINCT t, s AS p FROM iv)
	SELECT pts.t, pts.p, sum(iv.g)::bigint, coalesce(max(cap.cap), 0)::bigint
	FROM pts
	JOIN iv ON iv.t = pts.t AND iv.s <= pts.p AND iv.e > pts.p
	LEFT JOIN cap ON cap.gpu_type = pts.t
	GROUP BY pts.t, pts.p
	HAVING sum(iv.g) > coalesce(max(cap.cap), 0)
	ORDER BY 1, 2
$$;

-- Peak concurrent planned+held GPUs of a type over the same instants (to
-- show a test's plan is tight enough for the invariant to be meaningful).
CREATE FUNCTION pg_temp.plan_peak(typ text) RETURNS bigint
	LANGUAGE sql AS $$
	WITH iv AS (
		SELECT j.planned_gpu_type AS t, j.planned_gpus::bigint AS g, j.planned_start AS s, j.planned_end AS e
		FROM mixdnn.jobs j WHERE j.status = 'planned'
		UNION ALL
		SELECT n.gpu_type, count(*), mixdnn.now(),
			   CASE WHEN j.planned_end > mixdnn.now() THEN j.planned_end
					-- backfill counts a job past its estimate as ending now (contract
					-- §6), its GPUs held: busy at now, not after
					WHEN current_setting('mixdnn.policy') = 'backfill' THEN mixdnn.now() + interval '1 second'
					ELSE mixdnn.now() + greatest(current_setting('mixdnn.overrun_grace')::interval,
						current_setting('mixdnn.overrun_factor')::float8
						* (current_setting('mixdnn.policy') = 'mixdnn')::int
						* (mixdnn.now() - coalesce(j.planned_end, mixdnn.now()))) END
		FROM mixdnn.gpu_holds h
		JOIN mixdnn.gpu_nodes n ON n.node = h.node AND n.status = 'up'
		JOIN mixdnn.jobs j ON j.job_id = h.job_id
		GROUP BY n.gpu_type, j.job_id, j.planned_end)
	SELECT coalesce(max(u), 0) FROM (
		SELECT (SELECT sum(b.g) FROM iv b WHERE b.t = a.t AND b.s <= a.s AND b.e > a.s) AS u
		FROM iv a WHERE a.t = typ) x
$$;
