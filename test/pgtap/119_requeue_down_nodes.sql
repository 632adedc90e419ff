-- 119_requeue_down_nodes.sql — the worker's sweep of nodes that are down
-- (sql/install/39b_node_down.sql). Setting a node down re-queues its jobs
-- but skips a job whose row another transaction holds (its owner's open
-- cancel); such a job runs on, on a down node, until
-- mixdnn.requeue_down_nodes() re-queues it as the node's trigger would
-- have. One session cannot hold a row against itself, so the state the
-- skip leaves is made here with the nodes' triggers off
-- (session_replication_role); e2e 20_bounded_waits (case 7) has the skip
-- itself, with a second session.
--
-- Mode: deferred round triggers, ":commit" after each write
-- (lib/fixture.sql).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(12);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('n2', 'v100', 4);
:commit

-- r runs on n1; s runs on n2.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('r', 'hard', 'v100', 4, '1h'),
	('s', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 2, 'r and s launch');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')) + (SELECT count(*) FROM mixdnn.claim('n2')), 2::bigint,
	'their launchers claim them');
:commit
SELECT is(mixdnn.requeue_down_nodes(), 0, 'no node is down: the sweep changes nothing');

-- n1 goes down as if r's row had been held then: the trigger did not run.
SET session_replication_role = replica;
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = (SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('r'));
SET session_replication_role = origin;
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'r'), 'running', 'r runs on, on a node that is down');

SELECT is(mixdnn.requeue_down_nodes(), 1, 'the sweep re-queues one job');
:commit
SELECT is((SELECT reason FROM mixdnn.job_events WHERE job_id = pg_temp.jid('r') AND old_status = 'running'
		   ORDER BY event_id DESC LIMIT 1),
	'node ' || (SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('r') LIMIT 1) || ' went down; re-queued after attempt 1',
	'r is re-queued with the reason the node''s trigger gives');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('r')), 0::bigint,
	'r''s GPUs are released');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 's'), 'running', 's, on a node that is up, runs on');
SELECT is(mixdnn.requeue_down_nodes(), 0, 'a second sweep finds nothing');

-- s's node goes down as if s's row had been held, and comes up again
-- before the sweep: s ran on all the while, and runs on.
SET session_replication_role = replica;
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = (SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('s'));
UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = (SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('s'));
SET session_replication_role = origin;
:commit
SELECT is(mixdnn.requeue_down_nodes(), 0, 'a node up again before the sweep: nothing to re-queue');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 's'), 'running', '... and its job runs on');

SELECT ok(NOT has_function_privilege('mixdnn_user', 'mixdnn.requeue_down_nodes()', 'EXECUTE')
	  AND NOT has_function_privilege('mixdnn_user', 'mixdnn._requeue_node_jobs(text)', 'EXECUTE')
	  AND NOT has_function_privilege('mixdnn_user', 'mixdnn._node_live_jobs(text)', 'EXECUTE')
	  AND NOT has_function_privilege('mixdnn_admin', 'mixdnn._requeue_node_jobs(text)', 'EXECUTE')
	  AND has_function_privilege('mixdnn_admin', 'mixdnn.requeue_down_nodes()', 'EXECUTE'),
	'only admins may run the sweep; nobody but the owner the per-node re-queue');

SELECT * FROM finish();
ROLLBACK;
