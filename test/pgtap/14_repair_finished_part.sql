-- 14_repair_finished_part.sql — the launch worker's start-up repair
-- (mixdnn._repair() and _lose_half_launched(), after a crash or a
-- restart) leaves a gang job alone whose part on one node has finished
-- while its other part still runs: the finished part's GPUs stay held
-- until the job ends, which is not a half-done launch. Found by test/soak/run.sh (docs/soak.md): a client
-- backend killed between the two parts' ends made the restarted worker
-- re-queue such a job, which then ran a second time.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(9);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('n2', 'v100', 4);
:commit

-- w (8 GPUs) runs on n1 and n2, attempt 1; both nodes claim their parts.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('w', 'hard', 'v100', 8, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) w launches on two nodes');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')) + (SELECT count(*) FROM mixdnn.claim('n2')), 2::bigint,
	'(setup) both nodes claim their part');
SELECT is(mixdnn.finish(pg_temp.jid('w'), 0, 'n1', 1), true, '(setup) n1''s part ends with 0');
:commit

SELECT is(mixdnn._repair(), 0, 'the repair finds nothing to mend');
SELECT is((SELECT h.lost + h.held FROM mixdnn._lose_half_launched() h), 0, 'nor any job half-launched');
SELECT results_eq($$SELECT status, attempt FROM mixdnn.jobs WHERE name = 'w'$$, $$VALUES ('running'::text, 1)$$,
	'w still runs, attempt 1');
SELECT is((SELECT string_agg(node || ':' || state, ' ' ORDER BY node) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('w')),
	'n1:completed n2:running', 'n1''s part stays completed, n2''s runs on');

-- n2's report then completes the job, once.
SELECT is(mixdnn.finish(pg_temp.jid('w'), 0, 'n2', 1), true, 'n2''s report counts');
:commit
SELECT results_eq($$SELECT status, attempt, exit_code FROM mixdnn.jobs WHERE name = 'w'$$,
	$$VALUES ('completed'::text, 1, 0)$$, 'w completed on its first attempt with exit code 0');

SELECT * FROM finish();
ROLLBACK;
