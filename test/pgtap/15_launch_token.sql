-- 15_launch_token.sql — every launch of a part has a random launch_token
-- (job_parts.launch_token): the launcher learns it with claim_parts(),
-- finds it in node_parts() and heartbeat_parts(), and reports with it, so
-- that finish() counts a report only for that launch. A copy of the
-- cluster restored to an earlier time reuses job ids, attempts and nodes:
-- the launcher reported an old process's exit against the new job of the
-- same id (test/e2e/t/58_restored_job_ids.sh drives it end to end).
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(14);

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2);
:commit

INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('t', 'hard', 'v100', 1, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) t launches on n1');
CREATE TEMP TABLE first_launch AS SELECT launch_token FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('t');
SELECT isnt((SELECT launch_token FROM first_launch), NULL, 'its part has a launch token');
SELECT results_eq($$SELECT job_id, attempt, launch_token FROM mixdnn.claim_parts('n1')$$,
	$$SELECT pg_temp.jid('t'), 1, launch_token FROM first_launch$$,
	'claim_parts(n1) returns the part with its token');
SELECT results_eq($$SELECT launch_token FROM mixdnn.node_parts('n1')$$, $$SELECT launch_token FROM first_launch$$,
	'node_parts(n1) lists it with its token');
SELECT results_eq($$SELECT launch_token, renewed FROM mixdnn.heartbeat_parts('n1')$$,
	$$SELECT launch_token, true FROM first_launch$$, 'so does heartbeat_parts(n1)');
SELECT is((SELECT pg_catalog.pg_get_function_result('mixdnn.claim(text)'::regprocedure)),
	'TABLE(job_id bigint, name text, command text, gpu_indices integer[], nodes text[], node_rank integer, world_gpus integer, env jsonb, workdir text, owner name, attempt integer)',
	'claim(node) keeps its columns');

-- Another launch's report (same job, attempt and node) counts for nothing.
SELECT is(mixdnn.finish(pg_temp.jid('t'), 143, 'n1', 1, 'killed', pg_catalog.gen_random_uuid()), false,
	'a report with another launch''s token does not count');
SELECT results_eq($$SELECT j.status, p.state FROM mixdnn.jobs j JOIN mixdnn.job_parts p USING (job_id) WHERE j.name = 't'$$,
	$$VALUES ('running'::text, 'running'::text)$$, 'the job and its part run on');
SELECT is(mixdnn.finish(pg_temp.jid('t') + 1000, 143, 'n1', 1, NULL, pg_catalog.gen_random_uuid()), false,
	'a report with a token, of a job that does not exist, is false (not no_data_found, which was retried without end)');

-- Lost and launched again: the next launch has a token of its own.
SELECT is(mixdnn.reset_node('n1', pg_temp.jid('t')), 1, '(setup) n1 gives the part up: t is re-queued');
:commit
SELECT is(mixdnn.launch_due(), 1, '(setup) t launches again, attempt 2');
SELECT isnt((SELECT launch_token FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('t') AND attempt = 2),
	(SELECT launch_token FROM first_launch), 'the second launch has another token');
SELECT is((SELECT count(*) FROM mixdnn.claim('n1')), 1::bigint, '(setup) claimed, by claim(node)');
-- A report without a token (a keeper of an earlier launcher version) counts as before.
SELECT is(mixdnn.finish(pg_temp.jid('t'), 0, 'n1', 2), true, 'a report without a token counts, by job, attempt and node');

SELECT * FROM finish();
ROLLBACK;
