-- 08_bad_input.sql — SPEC §7: every malformed submission or status change
-- gets an error with a proper SQLSTATE and changes nothing (no job, no
-- event, no round, no plan row); an unknown model is accepted.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- statement runs the round COMMIT would run, so a bad statement that had
-- queued a round would show up as a new mixdnn.rounds row (see :bad).
-- pg_temp.state() fingerprints everything a bad statement must not change.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(107);

CREATE ROLE tap08_user NOLOGIN IN ROLE mixdnn_user;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.5), ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('k1', 'k80', 4), ('v1', 'v100', 4), ('v2', 'v100', 4);
:commit
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('good', 'v100', 2, '1h');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'good'), 'planned', '(setup) a good job is planned');

-- Everything a bad statement must not change: the full contents of every
-- mixdnn table.
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS $$
	SELECT concat_ws(' ',
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.jobs t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.job_events t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.rounds t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.plan_history t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.gpu_holds t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.job_parts t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.gpu_nodes t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.gpus t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.gpu_types t),
		(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM mixdnn.profiles t))
$$;
CREATE TEMP TABLE before AS SELECT pg_temp.state() AS s;

-- After each bad statement (run by throws_ok in a subtransaction that its
-- error rolls back) and its commit point, :bad writes a row that notes no
-- scheduling event (a node's unchanged last_heartbeat) and commits again,
-- outside that subtransaction. Whatever the failed statement left behind
-- that a rollback does not undo (an event noted for the next round) would
-- then run a round, and the contents would differ.
\set bad 'UPDATE mixdnn.gpu_nodes SET last_heartbeat = last_heartbeat WHERE node = ''k1''; :commit SELECT is(pg_temp.state(), (SELECT s FROM before), :''label'' || '': changed nothing'');'

-- Submission time (the superuser's, as an admin's replay writes it)
\set label 'submitted_at = infinity'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, submitted_at) VALUES ('bad', 'v100', 1, '1h', 'infinity')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'submitted_at = -infinity'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, submitted_at) VALUES ('bad', 'v100', 1, '1h', '-infinity')$$, '23514', NULL, :'label');
:commit
:bad

-- GPU counts
\set label 'gpus = 0'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 0, '1h')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'gpus = -2'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', -2, '1h')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'gpus = 100000 (absurd)'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 100000, '1h')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'min_gpus = 0'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, min_gpus, duration) VALUES ('bad', 'v100', 2, 0, '1h')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'min_gpus > max_gpus'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, min_gpus, max_gpus, duration) VALUES ('bad', 'v100', 2, 4, 2, '1h')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'hard job with min_gpus <> gpus'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, duration) VALUES ('bad', 'hard', 'v100', 2, 1, '1h')$$, '22023', NULL, :'label');
:commit
:bad
-- GPU types
\set label 'unknown gpu_type'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'h100', 1, '1h')$$, '23503', NULL, :'label');
:commit
:bad
\set label 'unknown type in allowed_types'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('bad', 1, '{v100,h100}', '1h')$$, '23503', NULL, :'label');
:commit
:bad
\set label 'empty allowed_types'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('bad', 1, '{}', '1h')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'NULL inside allowed_types'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('bad', 1, '{v100,NULL}', '1h')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'allowed_types with 65 entries (every round reads it)'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('bad', 1, array_fill('v100'::text, ARRAY[65]), '1h')$$,
	'54000', 'allowed_types must name at most 64 GPU types, not 65', :'label');
:commit
:bad
\set label 'allowed_types naming a type twice'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('bad', 1, '{v100,k80,v100}', '1h')$$,
	'22023', 'allowed_types names "v100" more than once', :'label');
:commit
:bad
\set label 'allowed_types as a two-dimensional array'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, allowed_types, duration) VALUES ('bad', 1, '{{v100},{k80}}', '1h')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'model of 64 characters'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, model, duration) VALUES ('bad', 1, repeat('m', 64), '1h')$$, '22001', NULL, :'label');
:commit
:bad
\set label 'hard job without gpu_type'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpus, duration) VALUES ('bad', 'hard', 1, '1h')$$, '23502', NULL, :'label');
:commit
:bad
\set label 'hard job with allowed_types'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, allowed_types, duration) VALUES ('bad', 'hard', 'v100', 1, '{v100}', '1h')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'unknown model_class'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('bad', 'medium', 'v100', 1, '1h')$$, '23514', NULL, :'label');
:commit
:bad
-- Requests no configuration of the registered cluster could ever satisfy
\set label 'hard job larger than its type (8 v100 registered)'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('bad', 'hard', 'v100', 9, '1h')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'soft job whose min_gpus no allowed type has'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpus, min_gpus, allowed_types, duration) VALUES ('bad', 6, 6, '{k80}', '1h')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'soft job larger than any one type'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, min_gpus, duration) VALUES ('bad', 'v100', 12, 12, '1h')$$, '22023', NULL, :'label');
:commit
:bad
-- Durations
\set label 'duration 0'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 1, '0')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'negative duration'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 1, '-1 hour')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'absurd duration (10 years)'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 1, '10 years')$$, '23514', NULL, :'label');
:commit
:bad
-- Interval comparison counts a year as 360 days and a month as 30; the
-- planner reads seconds (365.25 and 30.44 days).
\set label 'duration negative in seconds, positive as an interval (-1 year 361 days)'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 1, '-1 year 361 days')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'duration over 366 days in seconds, not as an interval (12 months 6 days)'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 1, '12 months 6 days')$$, '23514', NULL, :'label');
:commit
:bad
\set label 'duration changed to negative seconds'
SELECT throws_ok($$UPDATE mixdnn.jobs SET duration = '-1 year 361 days' WHERE name = 'good'$$, '23514', NULL, :'label');
:commit
:bad
-- NULLs where required
\set label 'NULL name'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES (NULL, 'v100', 1, '1h')$$, '23502', NULL, :'label');
:commit
:bad
\set label 'NULL gpus'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', NULL, '1h')$$, '23502', NULL, :'label');
:commit
:bad
\set label 'missing gpus'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, duration) VALUES ('bad', 'v100', '1h')$$, '23502', NULL, :'label');
:commit
:bad
\set label 'NULL duration'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('bad', 'v100', 1, NULL)$$, '23502', NULL, :'label');
:commit
:bad
\set label 'NULL model_class'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('bad', NULL, 'v100', 1, '1h')$$, '23502', NULL, :'label');
:commit
:bad
\set label 'NULL priority'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('bad', 'v100', 1, '1h', NULL)$$, '23502', NULL, :'label');
:commit
:bad
\set label 'status set to NULL'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = NULL WHERE name = 'good'$$, '23502', NULL, :'label');
:commit
:bad
-- Submitting what only the scheduler writes
\set label 'new job with status planned'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, status) VALUES ('bad', 'v100', 1, '1h', 'planned')$$, '22023', NULL, :'label');
:commit
:bad
\set label 'new job with a planned_start'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, planned_start, planned_end) VALUES ('bad', 'v100', 1, '1h', now(), now())$$, '22023', NULL, :'label');
:commit
:bad
\set label 'priority out of range'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, priority) VALUES ('bad', 'v100', 1, '1h', 1000)$$, '23514', NULL, :'label');
:commit
:bad
-- One bad row spoils the whole statement: the good row is not kept either.
\set label 'a multi-row INSERT with one bad row'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('ok-row', 'v100', 1, '1h'), ('bad', 'v100', 1, '-1h')$$, '23514', NULL, :'label');
:commit
:bad
-- Status transitions
\set label 'unknown status value'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'paused' WHERE name = 'good'$$, '55000', NULL, :'label');
:commit
:bad
\set label 'planned -> completed (not a transition)'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'good'$$, '55000', NULL, :'label');
:commit
:bad
\set label 'planned -> running (skips launching)'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'running' WHERE name = 'good'$$, '55000', NULL, :'label');
:commit
:bad
-- Final states are final: completed -> running.
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('done', 'v100', 1, '1h');
:commit
SELECT ok(mixdnn.launch_due() >= 1, '(setup) jobs launch');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'done';
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'done'), 'completed', '(setup) a completed job');
UPDATE before SET s = pg_temp.state();
\set label 'completed -> running'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'running' WHERE name = 'done'$$, '55000', NULL, :'label');
:commit
:bad
\set label 'completed -> cancelled'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'done'$$, '55000', NULL, :'label');
:commit
:bad
\set label 'completed job: request change'
SELECT throws_ok($$UPDATE mixdnn.jobs SET gpus = 2 WHERE name = 'done'$$, '55000', NULL, :'label');
:commit
:bad
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'good'), 'launching', '(setup) good is launching');
UPDATE before SET s = pg_temp.state();
\set label 'launching job: request change'
SELECT throws_ok($$UPDATE mixdnn.jobs SET gpus = 3 WHERE name = 'good'$$, '55000', NULL, :'label');
:commit
:bad
-- A user may cancel but not move her job through the scheduler's states.
SET LOCAL ROLE tap08_user;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('mine', 'v100', 1, '1h');
:commit
RESET ROLE;
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'mine'), 'planned', '(setup) the user''s job is planned');
UPDATE before SET s = pg_temp.state();
GRANT SELECT ON before TO tap08_user;
SET LOCAL ROLE tap08_user;
\set label 'user: planned -> launching'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'launching' WHERE name = 'mine'$$, '42501', NULL, :'label');
:commit
RESET ROLE;
:bad
SET LOCAL ROLE tap08_user;
\set label 'user: planned -> pending'
SELECT throws_ok($$UPDATE mixdnn.jobs SET status = 'pending' WHERE name = 'mine'$$, '42501', NULL, :'label');
:commit
RESET ROLE;
:bad

-- A model measured at 0 on every configuration the request fits (SPEC §7:
-- no configuration could ever run it), and one that fits elsewhere.
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES
	('nofit', 'v100', 4, 0), ('nofit', 'v100', 8, 0), ('nofit', 'k80', 4, 3.0);
:commit
DELETE FROM before;
INSERT INTO before SELECT pg_temp.state();
\set label 'hard job whose model runs at 0 on its configuration'
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration)
	VALUES ('bad', 'nofit', 'hard', 'v100', 4, '1h')$$, '22023', 'no configuration of the cluster can run this job', :'label');
:commit
:bad
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration)
	VALUES ('fits-k80', 'nofit', 'soft', 'v100', 4, '1h')$$,
	'a soft job of that model is accepted: it can run on k80');
:commit
DELETE FROM before;
INSERT INTO before SELECT pg_temp.state();

-- Unknown model: accepted, planned by the scaling model.
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, model, gpu_type, gpus, duration) VALUES ('unknown-model', 'model-nobody-profiled', 'v100', 2, '1h')$$,
	'a job with an unknown model is accepted');
:commit
SELECT results_eq($$SELECT status, planned_gpus > 0, planned_end > planned_start FROM mixdnn.jobs WHERE name = 'unknown-model'$$,
	$$VALUES ('planned', true, true)$$, '... and planned by the scaling model');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name IN ('bad', 'ok-row')), 0::bigint, 'no rejected job was stored');

SELECT * FROM finish();
ROLLBACK;
