-- 95_bad_rows_policies.sql — one absurd job never blocks the others under
-- a mixdnn.policy other than mixdnn either (model.md, "Limits"; an audit
-- of bad rows). The baselines and comparators plan a job's requested
-- configuration: one that would run 8e8 years took its GPU in the round
-- and lost its plan only afterwards, so the job behind it that needed
-- every GPU of the type waited for ever; and the comparators' plans ended
-- after 9999-12-31. Under k8s, static and backfill one that would end
-- after 9999-12-31 took the GPUs before its plan was dropped, and the job
-- behind it waited.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) runs the round
-- COMMIT would run.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(32);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('slow', 1e-6);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 4), ('s1', 'slow', 4);
:commit

CREATE FUNCTION pg_temp.said(n text) RETURNS text LANGUAGE sql AS
	$$ SELECT status || ': ' || coalesce(planned_gpu_type || ' at ' || planned_start::text, reason, '') FROM mixdnn.jobs WHERE name = n $$;

-- Each policy: the absurd job first in the queue, the job that needs every
-- slow GPU behind it, and near the end of the calendar a job that would
-- end after it.
CREATE FUNCTION pg_temp.check_policy(pol text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('mixdnn.policy', pol, true);
	PERFORM pg_temp.set_now(pg_temp.t0());
	DELETE FROM mixdnn.jobs;
	INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration, submitted_at)
		VALUES ('absurd', 1, '{slow}', '300 days', pg_temp.t0() - interval '10 s');
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, submitted_at)
		VALUES ('all-slow', 'hard', 'slow', 4, '1h', pg_temp.t0() - interval '5 s');
	SET CONSTRAINTS ALL IMMEDIATE;
	SET CONSTRAINTS ALL DEFERRED;
	-- ("its shortest run time" where the policy weighs every allowed configuration)
	RETURN NEXT matches(pg_temp.said('absurd'),
		'^pending: its (shortest )?run time \(3e\+08 days on 1 slow GPU\) exceeds the limit of 3650 days$',
		pol || ': the absurd job waits and says why');
	RETURN NEXT is(pg_temp.said('all-slow'), 'planned: slow at ' || pg_temp.t0()::text,
		pol || ': the job that needs its GPUs starts now');
	PERFORM pg_temp.set_now('9999-12-30 00:00+00');
	DELETE FROM mixdnn.jobs;
	INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('late', 'v100', 1, '10 days');
	SET CONSTRAINTS ALL IMMEDIATE;
	SET CONSTRAINTS ALL DEFERRED;
	RETURN NEXT is(pg_temp.said('late'),
		'pending: its plan would end after 9999-12-31, the last time the scheduler plans',
		pol || ': no plan ends after 9999-12-31');
	-- the job that would end after 9999-12-31 does not take the GPUs the
	-- job behind it needs: its plan is dropped, the GPUs stayed idle
	PERFORM pg_temp.set_now('9999-06-01 00:00+00');
	DELETE FROM mixdnn.jobs;
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, submitted_at)
		VALUES ('too-late', 'hard', 'v100', 4, '300 days', '9999-06-01 00:00+00'::timestamptz - interval '10 s'),
			   ('all-v100', 'hard', 'v100', 4, '1h', '9999-06-01 00:00+00'::timestamptz - interval '5 s');
	SET CONSTRAINTS ALL IMMEDIATE;
	SET CONSTRAINTS ALL DEFERRED;
	RETURN NEXT is(pg_temp.said('all-v100'), 'planned: v100 at ' || '9999-06-01 00:00+00'::timestamptz::text,
		pol || ': a plan ending after 9999-12-31 holds no GPUs from the job behind it');
END $$;

SELECT pg_temp.check_policy(p) FROM unnest('{mixdnn,k8s,static,backfill,sjf,hgreedy,hsjf,k8s-any}'::text[]) p;

SELECT * FROM finish();
ROLLBACK;
