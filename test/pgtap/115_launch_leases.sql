-- 115_launch_leases.sql — the launch protocol's lease rules that no other
-- file could fail on (found by mutating the code, docs/testing.md):
--   * a part launched but never claimed is lost when its launch lease ends,
--     and its job re-queued saying so ("no launcher claimed it ... in
--     time"); expire_leases() no longer looking at 'launching' parts left
--     such a job holding its GPUs for ever;
--   * claim() grants a fresh lease from the time of the claim, not the one
--     launch_due() gave: a claim late in the launch lease must not lose the
--     part a moment later;
--   * finish(job, exit_code), the two-argument report, refuses a job that
--     runs on more than one node (which node's part would it end?), and
--     leaves both parts running.
-- Each of the three is a mutant of tools/mutants.txt.
--
-- Mode: deferred round triggers, ":commit" after each write
-- (lib/fixture.sql); the launcher's calls are made by hand under the
-- virtual clock, launch_due() and expire_leases() as the worker would.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(15);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('n2', 'v100', 4);
:commit

-- The lease of job's part on node n, of its current attempt.
CREATE FUNCTION pg_temp.lease(job text, n text) RETURNS timestamptz LANGUAGE sql AS $$
	SELECT p.lease_until FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id)
	WHERE j.name = job AND p.attempt = j.attempt AND p.node = n
$$;

---------------------------------------------------------------- never claimed
-- u (4 GPUs) launches on n1 at t0 and no launcher ever claims it.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('u', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'unclaimed: u launches at t0');
SELECT is(pg_temp.lease('u', 'n1'), pg_temp.t0() + interval '60 seconds',
	'unclaimed: its launching part has the launch lease (mixdnn.lease_timeout, 60 s)');
SELECT pg_temp.set_now(pg_temp.t0() + interval '59 seconds');
SELECT is(mixdnn.expire_leases(), 0, 'unclaimed: within the launch lease nothing is lost');
SELECT pg_temp.set_now(pg_temp.t0() + interval '61 seconds');
SELECT is(mixdnn.expire_leases(), 1, 'unclaimed: past the launch lease the never-claimed part is lost');
:commit
SELECT results_eq($$SELECT p.state FROM mixdnn.job_parts p WHERE p.job_id = pg_temp.jid('u')$$,
	$$VALUES ('lost'::text)$$, 'unclaimed: u''s part is lost');
SELECT ok((SELECT status IN ('pending', 'planned') FROM mixdnn.jobs WHERE name = 'u')
	  AND (SELECT reason FROM mixdnn.job_events WHERE job_id = pg_temp.jid('u') AND old_status = 'launching'
		   ORDER BY event_id DESC LIMIT 1) LIKE 'no launcher claimed it on node n1 in time; re-queued after attempt 1',
	'unclaimed: u is re-queued, saying no launcher claimed it in time');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('u')), 0::bigint,
	'unclaimed: u''s GPUs are released');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'u';
UPDATE mixdnn.gpu_nodes SET unreachable_since = NULL;
:commit

---------------------------------------------------------------- a late claim renews the lease
-- c launches at t1; its launcher claims it 50 s later, 10 s before the
-- launch lease ends. The claim's lease runs 60 s from the claim.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('c', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'late claim: c launches');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour 50 seconds');
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('c')))),
	1::bigint, 'late claim: claimed 50 s after the launch');
SELECT is(pg_temp.lease('c', (SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('c'))),
	pg_temp.t0() + interval '1 hour 110 seconds', 'late claim: the lease runs 60 s from the claim');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour 70 seconds');
SELECT is(mixdnn.expire_leases(), 0, 'late claim: past the launch lease, within the claim''s, c is not lost');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'c';
:commit

---------------------------------------------------------------- finish(job, code) and gangs
-- g (8 GPUs) runs on n1 and n2: the two-argument finish cannot tell which
-- part ended. s (4 GPUs) runs on one node: it can.
SELECT pg_temp.set_now(pg_temp.t0() + interval '2 hours');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('g', 'hard', 'v100', 8, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'gang: g launches on both nodes');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')) + (SELECT count(*) FROM mixdnn.claim('n2')), 2::bigint,
	'gang: both launchers claim their part');
SELECT throws_ok(format('SELECT mixdnn.finish(%s, 0)', pg_temp.jid('g')), '22023',
	format('job %s runs on 2 nodes', pg_temp.jid('g')),
	'gang: finish(job, exit_code) refuses a job on two nodes');
SELECT is((SELECT string_agg(state, ' ' ORDER BY node) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('g')),
	'running running', 'gang: ... and ends neither part');

SELECT * FROM finish();
ROLLBACK;
