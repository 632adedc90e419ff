-- 80_surface.sql — what users look at: mixdnn.queue (positions, and what a
-- user sees of others' jobs), mixdnn.explain(job_id) and mixdnn.what_if(),
-- as two users, an admin and an outsider.
--
-- Scenario: 4 v100 (speed 1) and 4 a100 (speed 2). alice runs a-run on all
-- a100 for 90 min and waits with a-wait (2 a100, 1 h, planned at +90 min);
-- bob's soft b-secret (4 GPUs, 4 h on v100) starts on v100 now: 4 a100
-- would take 2 h, but a-wait is planned on 2 of them from +90 min to +150
-- min, so they could end it only at +4.5 h ("reservations"). b-secret, the
-- longest job, is makespan-critical on arrival here (critical_wait 0), so it
-- is served on v100 at once; with the default wait of 5 % of its run time
-- the configuration LP would choose its type instead (docs/model.md).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(47);
SET LOCAL mixdnn.critical_wait = 0;

CREATE ROLE tap80_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap80_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap80_admin NOLOGIN IN ROLE mixdnn_admin;
CREATE ROLE tap80_nobody NOLOGIN;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v1', 'v100', 4), ('a1', 'a100', 4);
:commit
SET LOCAL ROLE tap80_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a-run', 'hard', 'a100', 4, '90 min');
:commit
RESET ROLE;
SELECT is(mixdnn.launch_due(), 1, '(setup) a-run launches on a1');
SET LOCAL ROLE tap80_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a-wait', 'hard', 'a100', 2, '1 h');
:commit
RESET ROLE;
SET LOCAL ROLE tap80_bob;
INSERT INTO mixdnn.jobs (name, model, gpu_type, gpus, min_gpus, max_gpus, duration)
	VALUES ('b-secret', 'secret-model', 'v100', 4, 4, 4, '4 h');
:commit
RESET ROLE;
SELECT results_eq($$SELECT name, status, planned_gpu_type, planned_start - pg_temp.t0() FROM mixdnn.jobs ORDER BY job_id$$,
	$$VALUES ('a-run', 'launching', 'a100', interval '0'), ('a-wait', 'planned', 'a100', interval '90 min'),
			 ('b-secret', 'planned', 'v100', interval '0')$$,
	'(setup) the plans the scenario describes');

-- mixdnn.queue as alice: every unfinished job, others' private columns hidden.
SET LOCAL ROLE tap80_alice;
SELECT is((SELECT count(*) FROM mixdnn.queue), 3::bigint, 'alice''s queue lists every unfinished job, bob''s too');
SELECT results_eq($$SELECT position, owner::text COLLATE "default", name, mine FROM mixdnn.queue ORDER BY position NULLS FIRST$$,
	$$VALUES (NULL::int, 'tap80_alice', 'a-run', true), (1, 'tap80_bob', NULL, false), (2, 'tap80_alice', 'a-wait', true)$$,
	'positions follow the planned starts; bob''s job has no name for alice; a launched job has no position');
SELECT results_eq($$SELECT status, requested_gpu_type, requested_gpus, planned_gpu_type, planned_gpus, planned_start, model, reason
					FROM mixdnn.queue WHERE owner = 'tap80_bob'$$,
	$$VALUES ('planned', 'v100', 4, 'v100', 4, pg_temp.t0(), NULL::text, NULL::text)$$,
	'alice sees the configuration and plan of bob''s job, not its model or reason');
SELECT is((SELECT count(*) FROM mixdnn.queue WHERE name = 'b-secret' OR model = 'secret-model'), 0::bigint,
	'alice cannot find bob''s job by its hidden name or model');
SELECT is((SELECT nodes FROM mixdnn.queue WHERE name = 'a-run'), ARRAY['a1'], 'a launched job lists its nodes');
SELECT is((SELECT waited FROM mixdnn.queue WHERE name = 'a-wait'), interval '0', 'waited so far, on the scheduler clock');
SELECT is((SELECT reason FROM mixdnn.queue WHERE name = 'a-wait'),
	'waiting for 2 a100 GPUs, expected free at 2026-01-01 01:30:00 UTC', 'alice sees her own job''s reason');
RESET ROLE;
SELECT pg_temp.set_now(pg_temp.t0() + interval '10 min') AS t \gset
SET LOCAL ROLE tap80_bob;
SELECT results_eq($$SELECT name, model, waited FROM mixdnn.queue ORDER BY job_id$$,
	$$VALUES (NULL, NULL, interval '0'), (NULL, NULL, interval '10 min'), ('b-secret', 'secret-model', interval '10 min')$$,
	'bob sees his own job in full and alice''s without name; waited grows with the clock');
RESET ROLE;
SET LOCAL ROLE tap80_admin;
SELECT is((SELECT count(name) FROM mixdnn.queue), 3::bigint, 'the admin sees every job''s name');
RESET ROLE;
SET LOCAL ROLE tap80_nobody;
SELECT throws_ok($$SELECT * FROM mixdnn.queue$$, '42501', NULL, 'a role without mixdnn_user cannot read the queue');
SELECT throws_ok($$SELECT * FROM mixdnn.explain(1)$$, '42501', NULL, '... nor call explain');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpu_type => 'v100', gpus => 1, duration => '1 h')$$, '42501', NULL,
	'... nor what_if');
RESET ROLE;
SELECT pg_temp.set_now(pg_temp.t0()) AS t \gset
SELECT results_eq($$SELECT job_id FROM mixdnn.queue WHERE position IS NOT NULL ORDER BY position$$,
	$$SELECT job_id FROM mixdnn.jobs WHERE status = 'planned' ORDER BY planned_start, job_id$$,
	'queue order = the order launch_due serves planned jobs (planned_start, job_id)');

-- mixdnn.explain: only for one's own waiting jobs.
CREATE TEMP TABLE counts AS
	SELECT (SELECT count(*) FROM mixdnn.rounds) AS rounds, (SELECT count(*) FROM mixdnn.plan_history) AS hist,
		   (SELECT count(*) FROM mixdnn.jobs) AS jobs,
		   (SELECT array_agg(planned_start ORDER BY job_id) FROM mixdnn.jobs) AS starts;
CREATE TEMP VIEW unchanged AS
	SELECT (SELECT count(*) FROM mixdnn.rounds) = c.rounds AND (SELECT count(*) FROM mixdnn.plan_history) = c.hist
		   AND (SELECT count(*) FROM mixdnn.jobs) = c.jobs
		   AND (SELECT array_agg(planned_start ORDER BY job_id) FROM mixdnn.jobs) = c.starts AS same
	FROM counts c;
GRANT SELECT ON counts, unchanged TO PUBLIC;
SELECT is(pg_temp.jid('b-secret') IS NOT NULL, true, '(setup) ids');
CREATE TEMP TABLE ids AS SELECT pg_temp.jid('a-run') AS a_run, pg_temp.jid('a-wait') AS a_wait, pg_temp.jid('b-secret') AS b;
GRANT SELECT ON ids TO PUBLIC;
SET LOCAL ROLE tap80_alice;
SELECT throws_ok(format('SELECT * FROM mixdnn.explain(%s)', (SELECT b FROM ids)), 'P0002',
	format('job %s does not exist or is not yours', (SELECT b FROM ids)), 'alice cannot explain bob''s job');
SELECT throws_ok('SELECT * FROM mixdnn.explain(987654321)', 'P0002', NULL, 'nor a job that does not exist (same error)');
SELECT throws_ok('SELECT * FROM mixdnn.explain(NULL)', '22004', 'job_id must not be NULL',
	'explain(NULL) is refused, not an empty answer');
SELECT throws_ok(format('SELECT * FROM mixdnn.explain(%s)', (SELECT a_run FROM ids)), '55000', NULL,
	'a launched job is not explained');
SELECT results_eq(format('SELECT gpu_type, gpus, chosen, blocked_by FROM mixdnn.explain(%s)', (SELECT a_wait FROM ids)),
	$$VALUES ('a100', 2, true, NULL::text)$$, 'a-wait (hard) has one candidate, chosen');
SELECT results_eq(format('SELECT earliest_start, earliest_end, run_time FROM mixdnn.explain(%s)', (SELECT a_wait FROM ids)),
	$$VALUES (pg_temp.t0() + interval '90 min', pg_temp.t0() + interval '150 min', interval '1 h')$$,
	'its chosen row is its plan');
RESET ROLE;
SET LOCAL ROLE tap80_bob;
CREATE TEMP TABLE bx AS SELECT * FROM mixdnn.explain((SELECT b FROM ids));
SELECT is((SELECT count(*) FILTER (WHERE chosen) FROM bx), 1::bigint, 'bob''s job: exactly one chosen candidate');
SELECT results_eq($$SELECT gpu_type, gpus FROM bx WHERE chosen$$,
	$$SELECT planned_gpu_type, planned_gpus FROM mixdnn.jobs WHERE name = 'b-secret'$$,
	'the chosen candidate is the plan the round wrote');
SELECT results_eq($$SELECT blocked_by, earliest_start FROM bx WHERE gpu_type = 'a100' AND gpus = 4$$,
	$$VALUES ('reservations', pg_temp.t0() + interval '150 min')$$,
	'4 a100 would be faster, but a-wait is planned on them: reservations, earliest at +150 min');
SELECT is((SELECT count(*) FROM bx WHERE NOT chosen AND blocked_by IS NULL AND earliest_end <= pg_temp.t0() + interval '4 h'),
	0::bigint, 'every candidate that could end sooner names what blocks it');
SELECT ok((SELECT bool_and(detail <> '') FROM bx), 'every candidate says why in words');
SELECT ok((SELECT same FROM unchanged), 'explain wrote nothing: no round, no plan change');

-- mixdnn.what_if: a hypothetical 2-a100 job fits beside a-wait at +90 min.
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus, planned_start, planned_end, wait, position
					FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'a100', gpus => 2, duration => '1 hour')$$,
	$$VALUES ('a100', 2, pg_temp.t0() + interval '90 min', pg_temp.t0() + interval '150 min', interval '90 min', 3)$$,
	'what_if: when, on what and at which position such a job would run');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 8, duration => '1 hour')$$,
	'22023', 'no configuration of the cluster can run this job',
	'what_if of a job the registered cluster can never hold: refused as its submission is (it was a row, blocked_by cluster)');
SELECT ok((SELECT same FROM unchanged), 'what_if wrote nothing: no job, no round, no other plan changed');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpu_type => 'h100', gpus => 1, duration => '1 h')$$, '23503',
	'unknown gpu type "h100"', 'what_if: unknown gpu type');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpu_type => 'v100', gpus => 0, duration => '1 h')$$, '23514', NULL,
	'what_if: gpus out of range');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpu_type => 'v100', gpus => 1)$$, '23502',
	'mixdnn.what_if needs a value for duration', 'what_if: duration is required');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(model_class => 'medium', gpus => 1, duration => '1 h')$$, '23514', NULL,
	'what_if: model_class hard or soft');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(model_class => 'hard', gpus => 1, duration => '1 h')$$, '23502',
	'a hard-model job needs a gpu_type', 'what_if: a hard job needs a gpu_type');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 4, min_gpus => 3, max_gpus => 2, duration => '1 h')$$, '23514', NULL,
	'what_if: min_gpus > max_gpus');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', priority => 500)$$, '23514',
	'priority must be between -100 and 100, not 500', 'what_if: priority out of range');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', allowed_types => '{}')$$, '22023', NULL,
	'what_if: an empty allowed_types');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '0 s')$$, '23514', NULL,
	'what_if: a duration that is not positive');
-- As a submission answers them (08_bad_input.sql): same SQLSTATEs and words.
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '-1 year 361 days')$$, '23514', NULL,
	'what_if: a duration negative in seconds');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', model => repeat('m', 64))$$, '22001',
	'model must have at most 63 characters, as mixdnn.profiles.model, not 64', 'what_if: a model over 63 characters');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', allowed_types => array_fill('v100'::text, ARRAY[65]))$$,
	'54000', 'allowed_types must name at most 64 GPU types, not 65', 'what_if: 65 allowed_types');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', allowed_types => '{v100,a100,v100}')$$,
	'22023', 'allowed_types names "v100" more than once', 'what_if: a type named twice');
SELECT throws_ok($$SELECT * FROM mixdnn.what_if(gpus => 1, duration => '1 h', allowed_types => '{{v100},{a100}}')$$,
	'22023', 'allowed_types must be a one-dimensional list of GPU types', 'what_if: a two-dimensional allowed_types');

-- what_if refuses every request a submission refuses, with its SQLSTATE
-- and words: both call the same checks, and this keeps them so.
CREATE FUNCTION pg_temp.refusal(q text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE q;
	RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || SQLERRM;
END $f$;
SELECT is_empty($$
	WITH bad (model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration, priority, model) AS (VALUES
		('hard', NULL, 1, NULL, NULL, NULL, '1 h', 0, NULL), ('hard', 'v100', 2, 1, NULL, NULL, '1 h', 0, NULL),
		('hard', 'v100', 1, NULL, NULL, '{v100}', '1 h', 0, NULL), ('soft', NULL, 0, NULL, NULL, NULL, '1 h', 0, NULL),
		('soft', NULL, 4, 3, 2, NULL, '1 h', 0, NULL), ('soft', NULL, 2, 5000, NULL, NULL, '1 h', 0, NULL),
		('soft', 'h100', 1, NULL, NULL, NULL, '1 h', 0, NULL), ('soft', NULL, 1, NULL, NULL, '{v100,h100}', '1 h', 0, NULL),
		('soft', NULL, 1, NULL, NULL, '{}', '1 h', 0, NULL), ('soft', NULL, 1, NULL, NULL, '{v100,NULL}', '1 h', 0, NULL),
		('soft', NULL, 1, NULL, NULL, '{v100,a100,v100}', '1 h', 0, NULL),
		('soft', NULL, 1, NULL, NULL, '{{v100},{a100}}', '1 h', 0, NULL),
		('soft', NULL, 1, NULL, NULL, array_fill('v100'::text, ARRAY[65])::text, '1 h', 0, NULL),
		('soft', NULL, 1, NULL, NULL, NULL, '0 s', 0, NULL), ('soft', NULL, 1, NULL, NULL, NULL, '-1 year 361 days', 0, NULL),
		('soft', NULL, 1, NULL, NULL, NULL, '367 days', 0, NULL), ('soft', NULL, 1, NULL, NULL, NULL, '1 h', 101, NULL),
		('soft', NULL, 1, NULL, NULL, NULL, '1 h', 0, repeat('m', 64)), ('medium', NULL, 1, NULL, NULL, NULL, '1 h', 0, NULL))
	SELECT b.*, s.refusal AS submission, w.refusal AS what_if FROM bad b,
		LATERAL pg_temp.refusal(format('INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, duration, priority, model) VALUES (%L, %L, %L, %s, %s, %s, %L, %L, %s, %L)',
			'x', b.model_class, b.gpu_type, b.gpus, coalesce(b.min_gpus::text, 'NULL'), coalesce(b.max_gpus::text, 'NULL'),
			b.allowed_types, b.duration, b.priority, b.model)) AS s(refusal),
		LATERAL pg_temp.refusal(format('SELECT * FROM mixdnn.what_if(%L, %L, %s, %s, %s, %L, %L, %s, %L)',
			b.model_class, b.gpu_type, b.gpus, coalesce(b.min_gpus::text, 'NULL'), coalesce(b.max_gpus::text, 'NULL'),
			b.allowed_types, b.duration, b.priority, b.model)) AS w(refusal)
	WHERE s.refusal IS DISTINCT FROM w.refusal OR s.refusal = 'accepted'$$,
	'what_if refuses each of 19 bad requests as a submission does (SQLSTATE and message)');
RESET ROLE;

-- A set of types none of which exists is none, never all (it planned on every type).
SELECT throws_ok($$SELECT * FROM mixdnn._what_if(false, NULL, 1, 1, 1, '{bogus}', 3600, 0, NULL)$$, '22023',
	'mixdnn._what_if: none of allowed_types is a GPU type', '_what_if: allowed_types naming no GPU type');

SELECT * FROM finish();
ROLLBACK;
