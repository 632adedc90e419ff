-- 11_launcher_sql.sql — the SQL side of the launch protocol that needs no
-- background worker: claim/heartbeat/finish with the virtual clock, lease
-- expiry re-queues, mixdnn.finish() releases GPUs and the next job
-- launches, and the worker's helper _next_wakeup().
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run (the launcher functions write jobs
-- too, so their rounds also run at :commit). mixdnn.launch_due() and
-- mixdnn.expire_leases() are called by hand, as the worker would.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(25);

CREATE ROLE tap11_launcher NOLOGIN IN ROLE mixdnn_launcher;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES
	('p', 'hard', 'v100', 4, '1h', 'train p'), ('q', 'hard', 'v100', 4, '1h', 'train q');
:commit
SELECT is(mixdnn._next_wakeup(), pg_temp.t0(), '_next_wakeup(): the earliest planned start (now)');
SELECT is(mixdnn.launch_due(), 1, 'p launches');
SELECT is(mixdnn._next_wakeup(), pg_temp.t0() + current_setting('mixdnn.lease_timeout')::interval,
	'_next_wakeup(): now the earliest lease end, before q''s start');

-- The launcher (a mixdnn_launcher role) claims p.
SET LOCAL ROLE tap11_launcher;
SELECT results_eq($$SELECT name, command, gpu_indices, nodes, node_rank, world_gpus FROM mixdnn.claim('n1')$$,
	$$VALUES ('p', 'train p', ARRAY[0, 1, 2, 3], ARRAY['n1'], 0, 4)$$,
	'claim(n1) returns p with its GPUs, nodes, rank and world size');
SELECT is((SELECT env->>'CUDA_VISIBLE_DEVICES' FROM mixdnn.claim('n1')), NULL,
	'a second claim returns nothing (already claimed)');
SELECT throws_ok($$SELECT * FROM mixdnn.claim('nope')$$, '42704', NULL, 'claim of an unknown node is refused');
SELECT throws_ok($$SELECT count(*) FROM mixdnn.jobs$$, '42501', NULL, 'a launcher role cannot read jobs directly');
RESET ROLE;
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'p'), 'running', 'p is running');

-- Heartbeats keep the lease; without them it expires and p is re-queued.
SELECT pg_temp.set_now(pg_temp.t0() + interval '50 seconds');
SELECT is(mixdnn.heartbeat('n1'), 1, 'heartbeat renews one part');
SELECT pg_temp.set_now(pg_temp.t0() + interval '100 seconds');
SELECT is(mixdnn.expire_leases(), 0, 'within the renewed lease nothing expires');
SELECT pg_temp.set_now(pg_temp.t0() + interval '200 seconds');
SELECT is(mixdnn.expire_leases(), 1, 'after the lease, p''s part is lost');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'p'), 'pending',
	'p is re-queued, but waits: its only node has a silent launcher');
SELECT ok((SELECT reason FROM mixdnn.jobs WHERE name = 'p') LIKE '%heartbeat%',
	'p''s reason says why it was re-queued');
SELECT is(mixdnn.launch_due(), 0, 'nothing launches onto the silent node');
-- The launcher comes back: its heartbeat is a node event, and p is planned again.
SELECT is(mixdnn.heartbeat('n1'), 0, 'the returning launcher runs no part');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'p'), 'planned', 'p is planned again once n1 heartbeats');
SELECT ok((SELECT reason FROM mixdnn.job_events WHERE job_id = pg_temp.jid('p') AND new_status = 'planned'
		   AND old_status IN ('launching', 'running') ORDER BY event_id DESC LIMIT 1) LIKE '%heartbeat%',
	'the re-queue says the launcher stopped heartbeating');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds), 0::bigint, 'p''s GPUs are released');
SELECT ok((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND planned_start = mixdnn.now()) = 1,
	'one of p, q is planned for now');
SELECT is(mixdnn.launch_due(), 1, 'it launches');

-- finish() by the launcher completes the job, frees the GPUs, and the other launches.
CREATE TEMP TABLE cur AS SELECT job_id, name FROM mixdnn.jobs WHERE status = 'launching';
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')), 1::bigint, 'claimed');
SELECT pg_temp.set_now(pg_temp.t0() + interval '30 minutes');
SELECT is(mixdnn.heartbeat('n1'), 1, 'the launcher heartbeats its one part');
SELECT ok(mixdnn.finish((SELECT job_id FROM cur), 0), 'finish(job, 0) counts');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE job_id = (SELECT job_id FROM cur)), 'completed', 'the job is completed');
SELECT is(mixdnn.launch_due(), 1, 'the other job launches after the completion round');

SELECT * FROM finish();
ROLLBACK;
