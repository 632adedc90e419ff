-- 30_job_env.sql — jobs.workdir, jobs.env and the command's length: checked
-- at INSERT and UPDATE (22023, 54000; nothing written), and what claim hands the launcher: the job's env with
-- the launcher's own variables (torch.distributed's meaning for one process
-- per node), workdir, owner and attempt, and a MASTER_PORT per master GPU.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(33);

CREATE ROLE tap30_launcher NOLOGIN IN ROLE mixdnn_launcher;
CREATE ROLE tap30_user NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus, address) VALUES ('n1', 'v100', 8, '10.0.0.1'), ('n2', 'v100', 8, NULL);
:commit

-- Bad values: 22023, and no row.
CREATE FUNCTION pg_temp.bad(workdir text, env jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, workdir, env)
		VALUES ('bad', 'hard', 'v100', 1, '1h', 'true', workdir, env);
	RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT is(pg_temp.bad('relative/dir', NULL), '22023', 'a relative workdir is refused');
SELECT is(pg_temp.bad('', NULL), '22023', 'an empty workdir is refused');
SELECT is(pg_temp.bad(E'/data/a\nb', NULL), '22023', 'a workdir with a newline is refused');
SELECT is(pg_temp.bad(E'/data/a\tb', NULL), '22023', 'and with any other control character');
SELECT is(pg_temp.bad(E'/data/a\u0085b', NULL), '22023', 'and with a C1 control (NEL: [[:cntrl:]] is not ASCII only, also under COLLATE "C")');
SELECT is(pg_temp.bad(NULL, '["A"]'), '22023', 'env must be a JSON object, not an array');
SELECT is(pg_temp.bad(NULL, '"A=1"'), '22023', 'nor a string');
SELECT is(pg_temp.bad(NULL, '{"A": 1}'), '22023', 'values must be strings, not numbers');
SELECT is(pg_temp.bad(NULL, '{"A": null}'), '22023', 'nor null');
SELECT is(pg_temp.bad(NULL, '{"1A": "x"}'), '22023', 'a name must not start with a digit');
SELECT is(pg_temp.bad(NULL, '{"A=B": "x"}'), '22023', 'nor hold =');
SELECT is(pg_temp.bad(NULL, '{"": "x"}'), '22023', 'nor be empty');
SELECT is((SELECT string_agg(pg_temp.bad(NULL, pg_catalog.jsonb_build_object(k, 'x')), ',')
		   FROM unnest(ARRAY['CUDA_VISIBLE_DEVICES', 'CUDA_DEVICE_ORDER', 'MASTER_ADDR', 'MASTER_PORT', 'RANK', 'LOCAL_RANK',
							 'NODE_RANK', 'WORLD_SIZE', 'MIXDNN_JOB_ID', 'MIXDNN_ANYTHING']) k),
	'22023,22023,22023,22023,22023,22023,22023,22023,22023,22023', 'every launcher variable is refused');
SELECT throws_ok($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, env)
	VALUES ('x', 'hard', 'v100', 1, '1h', '{"RANK": "3"}')$$, '22023',
	'env key "RANK" is set by the launcher and cannot be given', 'the message names the key');
SELECT throws_ok(format($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('long', 'hard', 'v100', 1, '1h', %L)$$, repeat('x', 65537)), '54000',
	'command must be at most 64 kB, not 65537 bytes', 'a command over 64 kB is refused: 54000');
SELECT throws_ok(format($$INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('long', 'hard', 'v100', 1, '1h', %L)$$, repeat('é', 32769)), '54000', NULL,
	'the limit counts bytes, not characters');
SELECT is((SELECT count(*) FROM mixdnn.jobs), 0::bigint, 'no refused job was written');
SELECT is(pg_temp.bad(E'/data/caf\u00e9/\u00a0x', NULL), 'accepted', 'letters and a no-break space beyond ASCII are not controls');
SELECT is(pg_temp.bad('/data/run', '{"NCCL_DEBUG": "INFO", "_x9": ""}'), 'accepted', 'good values are accepted');
SELECT throws_ok($$UPDATE mixdnn.jobs SET env = '{"WORLD_SIZE": "9"}'$$, '22023', NULL, 'an UPDATE is checked too');
SELECT throws_ok(format($$UPDATE mixdnn.jobs SET command = %L$$, repeat('x', 65537)), '54000', NULL,
	'an UPDATE of the command is checked too');
SELECT lives_ok(format($$UPDATE mixdnn.jobs SET command = %L$$, repeat('x', 65536)), 'a command of exactly 64 kB is accepted');

DELETE FROM mixdnn.jobs;
:commit

-- A user submits with workdir and env.
SET LOCAL ROLE tap30_user;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, workdir, env)
	VALUES ('a', 'hard', 'v100', 2, '1h', 'train a', '/work/a', '{"NCCL_DEBUG": "INFO"}'),
		   ('b', 'hard', 'v100', 10, '1h', 'train b', NULL, NULL),
		   ('c', 'hard', 'v100', 2, '1h', 'train c', NULL, NULL);
RESET ROLE;
:commit
SELECT is(mixdnn.launch_due(), 3, 'all three launch');
SET LOCAL ROLE tap30_launcher;
CREATE TEMP TABLE c1 AS SELECT * FROM mixdnn.claim('n1');
CREATE TEMP TABLE c2 AS SELECT * FROM mixdnn.claim('n2');
RESET ROLE;
CREATE TEMP TABLE parts AS SELECT * FROM c1 UNION ALL SELECT * FROM c2;
SELECT results_eq($$SELECT workdir, owner, attempt, env->>'NCCL_DEBUG' FROM parts WHERE name = 'a'$$,
	$$VALUES ('/work/a', 'tap30_user'::name, 1, 'INFO')$$, 'claim returns workdir, owner, attempt and the job''s env');
SELECT results_eq($$SELECT env->>'RANK', env->>'LOCAL_RANK', env->>'WORLD_SIZE', env->>'MIXDNN_WORLD_GPUS',
						   env->>'MIXDNN_LOCAL_GPUS', env->>'NODE_RANK' FROM parts WHERE name = 'a'$$,
	$$VALUES ('0', '0', '1', '2', '2', '0')$$, 'one node: RANK 0, WORLD_SIZE 1 node, GPU counts in MIXDNN_*');
SELECT results_eq($$SELECT c.env->>'RANK', c.env->>'NODE_RANK', c.env->>'WORLD_SIZE', c.env->>'MIXDNN_WORLD_GPUS'
					FROM parts c WHERE c.name = 'b' ORDER BY c.node_rank$$,
	$$VALUES ('0', '0', '2', '10'), ('1', '1', '2', '10')$$,
	'two nodes: RANK = NODE_RANK, WORLD_SIZE = 2 nodes, the GPUs in MIXDNN_WORLD_GPUS');
SELECT results_eq($$SELECT (c.env->>'MIXDNN_GPU_OFFSET')::int FROM parts c WHERE c.name = 'b' ORDER BY c.node_rank$$,
	$$SELECT 0 UNION ALL SELECT (SELECT (c.env->>'MIXDNN_LOCAL_GPUS')::int FROM parts c WHERE c.name = 'b' AND c.node_rank = 0)$$,
	'MIXDNN_GPU_OFFSET: the GPUs of the lower-ranked nodes (the first global rank of a process per GPU)');
SELECT is((SELECT count(DISTINCT c.env->>'MASTER_ADDR') FROM parts c WHERE c.name = 'b'), 1::bigint,
	'both parts of b have the same MASTER_ADDR');
SELECT is((SELECT c.env->>'MASTER_ADDR' FROM parts c WHERE c.name = 'b' AND c.node_rank = 0),
		  (SELECT coalesce(n.address, n.node) FROM mixdnn.gpu_nodes n WHERE n.node = (SELECT c.nodes[1] FROM parts c WHERE c.name = 'b' LIMIT 1)),
	'the rank-0 node''s address, or its name when it has none');
-- CUDA numbers devices fastest first by default: only in PCI bus order are
-- CUDA_VISIBLE_DEVICES's indices the node's (nvidia-smi's, gpu_holds').
SELECT is((SELECT string_agg(DISTINCT c.env->>'CUDA_DEVICE_ORDER', ',') FROM parts c), 'PCI_BUS_ID',
	'every part numbers its GPUs in PCI bus order (CUDA_DEVICE_ORDER)');
SELECT is((SELECT workdir FROM parts WHERE name = 'b' LIMIT 1), NULL, 'no workdir: NULL (the launcher uses the home directory)');
-- MASTER_PORT: 29500 + the lowest GPU the job holds on its master node.
SELECT results_eq($$SELECT DISTINCT c.name, (c.env->>'MASTER_PORT')::int - 29500 FROM parts c ORDER BY 1$$,
	$$SELECT j.name, min(h.gpu_index) FROM mixdnn.gpu_holds h JOIN mixdnn.jobs j USING (job_id)
	  WHERE h.node = (SELECT p.node FROM mixdnn.job_parts p WHERE p.job_id = j.job_id AND p.node_rank = 0)
	  GROUP BY j.name ORDER BY j.name$$, 'MASTER_PORT is 29500 + the job''s lowest GPU on its master node');
SELECT ok((SELECT max(n) FROM (SELECT count(DISTINCT c.job_id) n FROM parts c GROUP BY c.nodes[1]) x) >= 2
		  AND NOT EXISTS (SELECT FROM parts c GROUP BY c.env->>'MASTER_ADDR', c.env->>'MASTER_PORT'
						  HAVING count(DISTINCT c.job_id) > 1),
	'jobs sharing a master node get different ports');

SELECT * FROM finish();
ROLLBACK;
