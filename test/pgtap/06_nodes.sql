-- 06_nodes.sql — a node going down re-queues its running jobs and plans
-- avoid it; a draining node keeps its running jobs but takes no new ones;
-- node changes run rounds.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. mixdnn.launch_due() is called by
-- hand (no background worker).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(35);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('n2', 'v100', 4);
:commit

INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('x', 'hard', 'v100', 4, '2h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'x launches');
CREATE TEMP TABLE xnode AS SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('x');
CREATE TEMP TABLE other AS SELECT node FROM mixdnn.gpu_nodes WHERE node <> (SELECT node FROM xnode);
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM xnode))), 1::bigint, 'x is claimed: running');

-- x's node goes down at +10 min.
SELECT pg_temp.set_now(pg_temp.t0() + interval '10 minutes');
CREATE TEMP TABLE r0 AS SELECT max(round_id) AS last FROM mixdnn.rounds;
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = (SELECT node FROM xnode);
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'x'), 'planned', 'the running job on the down node is re-queued: planned');
SELECT is((SELECT count(*) FROM mixdnn.job_events WHERE job_id = pg_temp.jid('x') AND old_status = 'running'
		   AND new_status = 'planned' AND reason LIKE '%' || (SELECT node FROM xnode) || '%down%'), 1::bigint,
	'its status history records the re-queue with the reason naming the node');
SELECT ok((SELECT reason FROM mixdnn.jobs WHERE name = 'x') LIKE '%down%',
	'the job''s reason says its node went down');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('x')), 0::bigint, 'its GPUs are released');
SELECT is((SELECT state FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('x')), 'lost', 'its part is lost');
SELECT is((SELECT count(*) FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)), 1::bigint,
	'the node change ran one round');
SELECT ok((SELECT event FROM mixdnn.rounds WHERE round_id > (SELECT last FROM r0)) LIKE '%node%',
	'... with event node');
SELECT results_eq($$SELECT planned_gpu_type, planned_gpus, planned_start FROM mixdnn.jobs WHERE name = 'x'$$,
	$$VALUES ('v100', 4, pg_temp.t0() + interval '10 minutes')$$,
	'x is re-planned to start now on the remaining up node');
SELECT is(mixdnn.launch_due(), 1, 'x launches again');
SELECT results_eq($$SELECT DISTINCT node FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('x')$$,
	$$SELECT node FROM other$$, 'it now runs on the other node, not the down one');
SELECT is((SELECT attempt FROM mixdnn.jobs WHERE name = 'x'), 2, 'it is its second attempt');

-- With one node down, 4 GPUs remain: two more 4-GPU jobs must wait in turn.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('y', 'hard', 'v100', 4, '1h'), ('z', 'soft', 'v100', 4, '1h');
:commit
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE name IN ('y', 'z') AND planned_start < (SELECT planned_end FROM mixdnn.jobs WHERE name = 'x')),
	0::bigint, 'no new job is planned onto the down node''s GPUs');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'plans fit the up nodes');
SELECT is(mixdnn.launch_due(), 0, 'nothing launches on the down node');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE node = (SELECT node FROM xnode)), 0::bigint, 'the down node holds nothing');

-- A job that needs more GPUs than the up nodes have is accepted (the cluster
-- has them when the node comes back) but stays pending with a reason.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('w', 'hard', 'v100', 8, '1h');
:commit
SELECT results_eq($$SELECT status, planned_start IS NULL, reason IS NOT NULL FROM mixdnn.jobs WHERE name = 'w'$$,
	$$VALUES ('pending', true, true)$$, 'an 8-GPU job with only 4 GPUs up is pending with a reason');

-- The node comes back: w becomes plannable.
UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = (SELECT node FROM xnode);
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'w'), 'planned', 'when the node is up again the 8-GPU job is planned');
SELECT is_empty($$SELECT * FROM pg_temp.plan_overbooking()$$, 'plans fit the up nodes');

-- Draining: x's current node drains. x keeps running; no new job goes there.
UPDATE mixdnn.gpu_nodes SET status = 'draining' WHERE node = (SELECT node FROM other);
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'x'), 'launching', 'a job on a draining node keeps running');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = pg_temp.jid('x')), 4::bigint, '... and keeps its GPUs');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'w'), 'pending', 'the 8-GPU job is pending again while a node drains');
SELECT pg_temp.set_now(pg_temp.t0() + interval '5 hours');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'x';
:commit
SELECT results_eq($$SELECT count(*) FILTER (WHERE status = 'planned'), count(*) FILTER (WHERE planned_start = mixdnn.now())
					 FROM mixdnn.jobs WHERE name IN ('y', 'z')$$,
	$$VALUES (2::bigint, 1::bigint)$$,
	'with one node up and one draining, y and z are both planned, only one of them for now');
SELECT is(mixdnn.launch_due(), 1, 'one job launches');
SELECT is((SELECT count(*) FROM mixdnn.gpu_holds WHERE node = (SELECT node FROM other)), 0::bigint,
	'the draining node takes no new job, even with all its GPUs free');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND planned_start = mixdnn.now()), 0::bigint,
	'no job is left planned for now (the other waits for the up node)');

-- A node cannot shrink below GPUs that are held.
SELECT throws_ok($$UPDATE mixdnn.gpu_nodes SET gpus = 2 WHERE node = (SELECT node FROM xnode)$$, '55006', NULL,
	'shrinking a node below its held GPUs is refused (55006)');

-- Nor change its type under the jobs that hold its GPUs; a node holding nothing may.
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 2.0);
SELECT throws_ok($$UPDATE mixdnn.gpu_nodes SET gpu_type = 'a100' WHERE node = (SELECT node FROM xnode)$$, '55006', NULL,
	'changing the type of a node whose GPUs are held is refused (55006)');
SELECT lives_ok($$UPDATE mixdnn.gpu_nodes SET gpu_type = 'a100'
				 WHERE node NOT IN (SELECT node FROM mixdnn.gpu_holds) AND node <> (SELECT node FROM xnode)$$,
	'a node holding no GPU changes its type');

-- A node keeps its name: the launcher's --node, and the key of its GPUs and parts.
SELECT throws_ok($$UPDATE mixdnn.gpu_nodes SET node = node || '-new' WHERE node = (SELECT node FROM xnode)$$, '0A000',
	format('node %s cannot be renamed to %s-new', (SELECT node FROM xnode), (SELECT node FROM xnode)),
	'renaming a node whose GPUs are held is refused (0A000)');
SELECT throws_ok($$UPDATE mixdnn.gpu_nodes SET node = 'n9' WHERE node NOT IN (SELECT node FROM mixdnn.gpu_holds)$$, '0A000', NULL,
	'... and so is renaming an idle node');
SELECT lives_ok($$UPDATE mixdnn.gpu_nodes SET node = node, status = status$$, 'writing a node''s own name back is no rename');

-- A deleted node's parts stay: they are where and when its jobs ran.
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('t4', 0.5);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n3', 't4', 1);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('on-n3', 'hard', 't4', 1, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'on-n3 launches on n3');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'on-n3';
:commit
DELETE FROM mixdnn.gpu_nodes WHERE node = 'n3';
:commit
SELECT is((SELECT node || ' ' || state FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('on-n3')),
	'n3 completed', 'deleting a node keeps the parts that ran on it');

SELECT * FROM finish();
ROLLBACK;
