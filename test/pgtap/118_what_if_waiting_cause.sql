-- 118_what_if_waiting_cause.sql — under the policies that start a job
-- only now (mixdnn.policy k8s, sjf, hgreedy, hsjf, k8s-any), mixdnn.what_if
-- of a job whose GPUs are busy said blocked_by 'cluster' ("the up nodes
-- cannot hold it now") while its node was up and would hold it: `k8s:
-- needs 8 a100 GPUs, 3 free now` with blocked_by cluster. It now names
-- what keeps it from starting now as mixdnn.explain() does: GPUs free but
-- given to a job the round starts first (reservations), or held by
-- launching and running jobs (capacity); 'cluster' stays for a type whose
-- nodes are not up.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(6);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 1.0), ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'a100', 4), ('n2', 'v100', 2);
:commit
SET LOCAL mixdnn.policy = 'k8s';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('p1', 'hard', 'a100', 2, '1 hour');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'p1'), 'planned', 'k8s: p1 starts now on 2 of the 4 a100s');
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'a100', gpus => 4, duration => '1 hour')),
	('k8s: needs 4 a100 GPUs, 2 free now'::text, 'reservations'::text),
	'what_if of a 4-GPU job: 2 of the GPUs go to p1, which starts now (it said cluster)');
SELECT is(mixdnn.launch_due(), 1, 'p1 launches');
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'a100', gpus => 4, duration => '1 hour')),
	('k8s: needs 4 a100 GPUs, 2 free now'::text, 'capacity'::text),
	'... then held by p1: capacity (it said cluster)');
SELECT is((SELECT (reason, blocked_by) FROM mixdnn.what_if(gpus => 4, min_gpus => 1, allowed_types => '{a100}', duration => '1 hour')),
	('k8s: needs 4 a100 GPUs, 2 free now'::text, 'capacity'::text),
	'a soft job waits for its requested 4 under k8s, not its min_gpus of 1: capacity');
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = 'n2';
:commit
SELECT is((SELECT blocked_by FROM mixdnn.what_if(model_class => 'hard', gpu_type => 'v100', gpus => 2, duration => '1 hour')),
	'cluster', 'a type whose only node is down: still cluster');

SELECT * FROM finish();
ROLLBACK;
