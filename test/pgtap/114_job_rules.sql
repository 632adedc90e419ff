-- 114_job_rules.sql — rules of the jobs' trigger (32_job_before_write.sql)
-- and of the write-back (src/pg/writeback.c) that no other file could fail
-- on (found by mutating the code, docs/testing.md):
--   * a completed, failed or cancelled job can no longer change: not its
--     priority, reason or owner, by an admin either (55000);
--   * an admin may give a submission an earlier submitted_at, never a
--     later one than now (22023): a job submitted in the future would count
--     against its owner's submission budget until then, and no admin may
--     delete it. A superuser (a replay) may;
--   * a planned start pushed back by more than mixdnn.replan_tolerance times
--     the time from now to the OLD start is rewritten (21_horizon.sql tests
--     a push within it): measured against the new start, the tolerance let
--     a push of 63 min of a start 10 h away stand (10 % of 11 h 3 min).
-- Each is a mutant of tools/mutants.txt.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(18);

CREATE ROLE tap114_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap114_bob NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap114_admin NOLOGIN IN ROLE mixdnn_admin;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit

---------------------------------------------------------------- finished jobs
-- ok runs and completes, bad runs and fails, gone is cancelled by its owner.
SELECT pg_temp.submit('tap114_alice', 'ok', 'v100', 2, '1h');
SELECT pg_temp.submit('tap114_alice', 'bad', 'v100', 2, '1h');
SELECT pg_temp.submit('tap114_alice', 'gone', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 2, '(setup) ok and bad launch');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')), 2::bigint, '(setup) both are claimed');
SELECT ok(mixdnn.finish(pg_temp.jid('ok'), 0) AND mixdnn.finish(pg_temp.jid('bad'), 1), '(setup) both report');
SET LOCAL ROLE tap114_alice;
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'gone';
RESET ROLE;
:commit
SELECT results_eq($$SELECT name, status FROM mixdnn.jobs ORDER BY name$$,
	$$VALUES ('bad', 'failed'), ('gone', 'cancelled'), ('ok', 'completed')$$,
	'(setup) one job completed, one failed, one cancelled');

SET LOCAL ROLE tap114_admin;
SELECT throws_ok($$UPDATE mixdnn.jobs SET priority = 5 WHERE name = 'gone'$$, '55000',
	format('job %s is cancelled and can no longer change', pg_temp.jid('gone')),
	'an admin cannot change the priority of a cancelled job');
SELECT throws_ok($$UPDATE mixdnn.jobs SET reason = 'x' WHERE name = 'ok'$$, '55000',
	format('job %s is completed and can no longer change', pg_temp.jid('ok')),
	'... nor the reason of a completed one');
SELECT throws_ok($$UPDATE mixdnn.jobs SET owner = 'tap114_bob' WHERE name = 'bad'$$, '55000',
	format('job %s is failed and can no longer change', pg_temp.jid('bad')),
	'... nor the owner of a failed one');
RESET ROLE;
SELECT is((SELECT string_agg(format('%s %s %s %s', name, priority, owner, coalesce(reason, '-')), ', ' ORDER BY name)
		   FROM mixdnn.jobs WHERE name IN ('ok', 'gone')),
	'gone 0 tap114_alice -, ok 0 tap114_alice -', 'the cancelled and the completed job are as they were');
SELECT is((SELECT owner::text FROM mixdnn.jobs WHERE name = 'bad'), 'tap114_alice', 'the failed job keeps its owner');

---------------------------------------------------------------- submitted_at
SET LOCAL ROLE tap114_admin;
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, submitted_at)
	VALUES ('later', 'tap114_bob', 'v100', 1, '1h', mixdnn.now() + interval '1 second')$$, '22023',
	'submitted_at cannot be later than now (2026-01-01 00:00:00+00), not 2026-01-01 00:00:01+00',
	'an admin cannot submit a job a second in the future');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, submitted_at)
	VALUES ('much later', 'tap114_bob', 'v100', 1, '1h', mixdnn.now() + interval '2 days')$$, '22023', NULL,
	'... nor two days in the future');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, submitted_at)
	VALUES ('now', 'tap114_bob', 'v100', 1, '1h', mixdnn.now())$$,
	'an admin may give submitted_at = now');
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, submitted_at)
	VALUES ('earlier', 'tap114_bob', 'v100', 1, '1h', mixdnn.now() - interval '1 day')$$,
	'... or an earlier time');
RESET ROLE;
SELECT lives_ok($$INSERT INTO mixdnn.jobs (name, owner, gpu_type, gpus, duration, submitted_at)
	VALUES ('replayed', 'tap114_bob', 'v100', 1, '1h', mixdnn.now() + interval '1 hour')$$,
	'a superuser (a replay) may submit in the future');

---------------------------------------------------------------- the tolerance
-- A fresh node of its own: long runs on it until +10 h, later is planned
-- after it (+10 h); a 63-minute arrival goes first and pushes later back by
-- 63 min, more than 10 % of its 10 h distance: written, with a history row.
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status IN ('pending', 'planned');
:commit
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('k1', 'k80', 1);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('long', 'hard', 'k80', 1, '10h');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) long runs until +10 h');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('later', 'hard', 'k80', 1, '2h');
:commit
CREATE TEMP TABLE later0 AS SELECT (SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('later')) AS n;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('push', 'hard', 'k80', 1, '63 min');
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'push'), pg_temp.t0() + interval '10 hours',
	'(setup) the 63-minute job goes first, at +10 h');
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'later'), pg_temp.t0() + interval '11 hours 3 minutes',
	'a start 10 h away pushed back by 63 min (over 10 % of 10 h) is rewritten');
SELECT is((SELECT count(*) FROM mixdnn.plan_history WHERE job_id = pg_temp.jid('later')) - (SELECT n FROM later0), 1::bigint,
	'... with a history row');

SELECT * FROM finish();
ROLLBACK;
