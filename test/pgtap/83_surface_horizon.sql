-- 83_surface_horizon.sql — the queue, explain and what_if with the planning
-- horizon (issue #14 with issue #9 item 7): a job behind the horizon is
-- explained (cause "horizon", its queue position and the horizon size);
-- what_if answers what a real submission would get, behind a full horizon
-- or over mixdnn.max_waiting_jobs; mixdnn.queue gives jobs behind the
-- horizon positions after the planned ones, equal to their rank in queue
-- order; mixdnn._what_if, callable by users, checks its arguments itself.
--
-- Scenario: one v100 GPU (node v1, up) and one a100 GPU (node a1, down);
-- planning horizon 3. bob's 'stuck' (a100, priority 5) is first in queue
-- order and cannot be planned; alice's q1 (3 h) and q2 .. q5 (1 h each,
-- v100) follow: q1 and q2 are planned, q3 .. q5 wait behind the horizon.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(28);

CREATE ROLE tap83_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap83_bob NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus, status) VALUES ('v1', 'v100', 1, 'up'), ('a1', 'a100', 1, 'down');
:commit
SET LOCAL mixdnn.planning_horizon = 3;
SET LOCAL ROLE tap83_bob;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, priority) VALUES ('stuck', 'hard', 'a100', 1, '1 h', 5);
:commit
RESET ROLE;
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 second');
SET LOCAL ROLE tap83_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	SELECT 'q' || i, 'hard', 'v100', 1, CASE i WHEN 1 THEN interval '3 h' ELSE interval '1 h' END FROM generate_series(1, 5) i;
:commit
RESET ROLE;
\set queued '''queued: beyond the planning horizon of the first 3 waiting jobs (by priority, then submission time)'''
SELECT results_eq(format($$SELECT name, status, coalesce(reason = %L, false) FROM mixdnn.jobs ORDER BY job_id$$, :queued),
	$$VALUES ('stuck', 'pending', false), ('q1', 'planned', false), ('q2', 'planned', false),
			 ('q3', 'pending', true), ('q4', 'pending', true), ('q5', 'pending', true)$$,
	'(setup) stuck, q1, q2 within the horizon; q3 .. q5 queued behind it');
CREATE TEMP TABLE ids AS SELECT pg_temp.jid('q5') AS q5, pg_temp.jid('q1') AS q1,
	(SELECT max(planned_end) FROM mixdnn.jobs WHERE status = 'planned') AS free_at;
GRANT SELECT ON ids TO PUBLIC;
CREATE TEMP TABLE counts AS
	SELECT (SELECT count(*) FROM mixdnn.rounds) AS rounds, (SELECT count(*) FROM mixdnn.plan_history) AS hist,
		   (SELECT count(*) FROM mixdnn.jobs) AS jobs,
		   (SELECT array_agg(row(status, planned_start, reason)::text ORDER BY job_id) FROM mixdnn.jobs) AS rows;
CREATE TEMP VIEW unchanged AS
	SELECT (SELECT count(*) FROM mixdnn.rounds) = c.rounds AND (SELECT count(*) FROM mixdnn.plan_history) = c.hist
		   AND (SELECT count(*) FROM mixdnn.jobs) = c.jobs
		   AND (SELECT array_agg(row(status, planned_start, reason)::text ORDER BY job_id) FROM mixdnn.jobs) = c.rows AS same
	FROM counts c;
GRANT SELECT ON counts, unchanged TO PUBLIC;

-- A trap for the owner's queries that explain and what_if run, prepared on
-- their first call below: alice's operators first in her search_path.
CREATE SCHEMA tap83_evil AUTHORIZATION tap83_alice;
SET LOCAL ROLE tap83_alice;
CREATE FUNCTION tap83_evil.escalate() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
		EXECUTE 'ALTER ROLE tap83_alice SUPERUSER';
	END IF;
	RETURN true;
END
$$;
CREATE FUNCTION tap83_evil.eq8(bigint, bigint) RETURNS boolean LANGUAGE sql
	AS 'SELECT tap83_evil.escalate() AND $1 OPERATOR(pg_catalog.=) $2';
CREATE FUNCTION tap83_evil.eq4(int, int) RETURNS boolean LANGUAGE sql
	AS 'SELECT tap83_evil.escalate() AND $1 OPERATOR(pg_catalog.=) $2';
CREATE FUNCTION tap83_evil.eqn(name, name) RETURNS boolean LANGUAGE sql
	AS 'SELECT tap83_evil.escalate() AND $1 OPERATOR(pg_catalog.=) $2';
CREATE OPERATOR tap83_evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = tap83_evil.eq8);
CREATE OPERATOR tap83_evil.= (LEFTARG = int, RIGHTARG = int, FUNCTION = tap83_evil.eq4);
CREATE OPERATOR tap83_evil.= (LEFTARG = name, RIGHTARG = name, FUNCTION = tap83_evil.eqn);

-- mixdnn.queue: the order the scheduler serves jobs.
SELECT results_eq($$SELECT job_id FROM mixdnn.queue ORDER BY position$$,
	$$(SELECT job_id FROM mixdnn.queue WHERE status = 'planned' ORDER BY planned_start, job_id)
	  UNION ALL SELECT j FROM unnest(ARRAY(SELECT job_id FROM mixdnn.queue WHERE owner = 'tap83_bob')
									  || ARRAY(SELECT job_id FROM mixdnn.queue WHERE name IN ('q3', 'q4', 'q5') ORDER BY job_id)) j$$,
	'queue positions: the planned jobs by planned start, then the unplanned in queue order');
SELECT results_eq($$SELECT name, position FROM mixdnn.queue WHERE name IN ('q3', 'q4', 'q5') ORDER BY position$$,
	$$VALUES ('q3', 4), ('q4', 5), ('q5', 6)$$,
	'jobs behind the horizon: positions after every job within it, their rank in queue order');

-- mixdnn.explain of a job behind the horizon (the first call under the trap).
SET LOCAL search_path = tap83_evil, pg_catalog, public;
CREATE TEMP TABLE trapped AS SELECT * FROM mixdnn.explain((SELECT q5 FROM ids));
CREATE TEMP TABLE trapped_w AS SELECT * FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1 hour');
RESET search_path;
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'tap83_alice'), false,
	'explain and what_if under a hostile search_path make nobody superuser');
SELECT is((SELECT count(*) FROM trapped WHERE blocked_by = 'horizon') + (SELECT count(*) FROM trapped_w WHERE blocked_by = 'horizon'),
	2::bigint, '... and answer as usual');
SET LOCAL ROLE tap83_alice;
SELECT results_eq(format('SELECT gpu_type, gpus, chosen, blocked_by FROM mixdnn.explain(%s)', (SELECT q5 FROM ids)),
	$$VALUES ('v100', 1, false, 'horizon')$$,
	'explain of a job behind the horizon: its candidate, not chosen, blocked by the horizon');
SELECT results_eq(format('SELECT earliest_start, run_time FROM mixdnn.explain(%s)', (SELECT q5 FROM ids)),
	$$SELECT free_at, interval '1 h' FROM ids$$,
	'... its earliest start keeps every planned job''s GPUs');
SELECT is((SELECT detail FROM mixdnn.explain((SELECT q5 FROM ids))),
	'queued: position 6 in queue order, behind the planning horizon of the first 3 waiting jobs; it is planned once it moves within it',
	'... and says its queue position and the horizon size');
SELECT is((SELECT blocked_by FROM mixdnn.explain((SELECT q1 FROM ids)) WHERE chosen), NULL,
	'a job within the horizon is explained as before');
SELECT ok((SELECT same FROM unchanged), 'explain wrote nothing');
RESET ROLE;
SET LOCAL ROLE tap83_bob;
SELECT throws_ok(format('SELECT * FROM mixdnn.explain(%s)', (SELECT q5 FROM ids)), 'P0002', NULL,
	'bob cannot explain alice''s queued job');

-- mixdnn.what_if behind a full horizon: what a real submission would get.
SELECT results_eq($$SELECT planned_gpu_type, planned_start, wait, position, reason, blocked_by
					FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1 hour')$$,
	format($$VALUES (NULL::text, NULL::timestamptz, NULL::interval, 7, %L, 'horizon')$$, :queued),
	'what_if behind a full horizon: no plan, its queue position, the queued reason, cause horizon');
SELECT ok((SELECT same FROM unchanged), 'what_if wrote nothing');
-- Priority 1: second in queue order; it pushes q2 out of the horizon, as a real submission does.
CREATE TEMP TABLE w1 AS SELECT * FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1,
	duration => '2 hours', priority => 1, model => 'bob-model');
SELECT is((SELECT blocked_by FROM w1), NULL, 'what_if within the horizon: planned, no cause');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, priority, model)
	VALUES ('b-real', 'hard', 'v100', 1, '2 hours', 1, 'bob-model');
:commit
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus, planned_start, planned_end, position FROM mixdnn.queue WHERE name = 'b-real'$$,
	$$SELECT planned_gpu_type, planned_gpus, planned_start, planned_end, position FROM w1$$,
	'the real submission gets the plan and position what_if said');
SELECT results_eq($$SELECT name, position FROM mixdnn.queue WHERE name IS NULL AND status = 'pending' ORDER BY position$$,
	$$VALUES (NULL::text, 4), (NULL, 5), (NULL, 6), (NULL, 7)$$,
	'q2 .. q5 now wait behind the horizon, after the planned jobs and stuck');
SELECT ok(strpos(mixdnn.gantt_svg(pg_temp.t0(), pg_temp.t0() + interval '1 day'), 'b-real') > 0,
	'(control) bob''s Gantt chart names his planned job');
RESET ROLE;

-- Nothing alice gets from the surface names bob's jobs or models.
SET LOCAL ROLE tap83_alice;
CREATE TEMP TABLE seen AS
	SELECT (SELECT string_agg(e::text, ' ') FROM mixdnn.explain((SELECT q5 FROM ids)) e)
		|| (SELECT string_agg(w::text, ' ') FROM mixdnn.what_if(gpus => 1, duration => '1 hour', priority => 1) w)
		|| mixdnn.gantt_svg(pg_temp.t0(), pg_temp.t0() + interval '1 day')
		|| (SELECT string_agg(u::text, ' ') FROM mixdnn.utilization(pg_temp.t0(), pg_temp.t0() + interval '1 day') u)
		|| (SELECT string_agg(m::text, ' ') FROM mixdnn.metrics m)
		|| (SELECT string_agg(q::text, ' ') FROM mixdnn.queue q) AS t;
SELECT ok((SELECT t IS NOT NULL AND strpos(t, 'b-real') = 0 AND strpos(t, 'bob-model') = 0 AND strpos(t, 'stuck') = 0 FROM seen),
	'explain, what_if, gantt_svg, utilization, metrics and queue never show alice bob''s job names or models');
RESET ROLE;

-- mixdnn.what_if over the caller's mixdnn.max_waiting_jobs.
SET LOCAL mixdnn.max_waiting_jobs = 5;
SET LOCAL ROLE tap83_alice;
SELECT results_eq($$SELECT planned_start, position, reason, blocked_by
					FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1 hour', priority => 100)$$,
	$$VALUES (NULL::timestamptz, NULL::int, 'refused: role tap83_alice has 5 waiting jobs, the most mixdnn.max_waiting_jobs allows', 'limit')$$,
	'what_if over the limit: refused, and why');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, priority) VALUES ('q6', 'hard', 'v100', 1, '1 h', 100)$$,
	'54000', NULL, '... as the real submission is');
RESET ROLE;
SET LOCAL ROLE tap83_bob;
SELECT is((SELECT blocked_by FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 1, duration => '1 hour', priority => 100)),
	NULL, 'another role under the limit is planned');
RESET ROLE;
RESET mixdnn.max_waiting_jobs;

-- mixdnn._what_if runs as its caller and checks what it is given.
SELECT is((SELECT bool_or(prosecdef) FROM pg_proc WHERE oid IN ('mixdnn.what_if'::regproc, 'mixdnn._what_if'::regproc)), false,
	'what_if and _what_if run with the caller''s rights');
SET LOCAL ROLE tap83_bob;
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(true, NULL, 1, 1, 1, NULL, 3600, 0, NULL)$$, '22023',
	'mixdnn._what_if needs the arguments mixdnn.what_if checks', '_what_if: a hard job without a type');
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(false, NULL, 100000, 1, 100000, NULL, 3600, 0, NULL)$$, '22023', NULL,
	'_what_if: more GPUs than any job may ask for');
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(false, NULL, 1, 1, 1, NULL, 1e12, 0, NULL)$$, '22023', NULL,
	'_what_if: an absurd duration');
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(false, NULL, 1, 1, 1, NULL, 3600, 0, repeat('m', 64))$$, '22023', NULL,
	'_what_if: a model name longer than a profile''s (63 characters)');
-- An empty set of types is none, never all (it was every type here).
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(false, NULL, 1, 1, 1, '{}', 3600, 0, NULL)$$, '22023', NULL,
	'_what_if: an empty allowed_types');
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(false, NULL, 1, 1, 1, '{NULL}', 3600, 0, NULL)$$, '22023', NULL,
	'_what_if: allowed_types of a NULL only');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
