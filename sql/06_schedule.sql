--
-- 06_schedule: the real COMMIT path (psql autocommit): every committed
-- submission is planned by one round, launch_due allocates GPUs, completion
-- releases them. The clock is pinned with mixdnn.virtual_now; ids are not
-- printed. Cleans up after itself.
--
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET mixdnn.virtual_now = '2026-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed, memory_gb) VALUES ('k80', 0.5, 12), ('v100', 1.0, 16), ('a100', 2.0, 40);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('k80-1', 'k80', 4), ('v100-1', 'v100', 4), ('a100-1', 'a100', 2);
SELECT node, array_agg(gpu_index ORDER BY gpu_index) AS gpus FROM mixdnn.gpus GROUP BY node ORDER BY node;

-- One statement, three jobs: one round; all planned once committed.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration) VALUES
	('resnet', 'hard', 'v100', 4, NULL, NULL, '1 hour'),
	('bert', 'soft', 'v100', 2, 1, 2, '1 hour'),
	('gpt', 'hard', 'v100', 2, NULL, NULL, '30 min');
SELECT name, status, min_gpus, max_gpus, planned_gpu_type, planned_gpus, planned_start, planned_end, reason
FROM mixdnn.jobs ORDER BY name;
SELECT event, policy, waiting, running, launched FROM mixdnn.rounds ORDER BY round_id;

SELECT mixdnn.launch_due() AS launched;
SELECT name, status, started_at FROM mixdnn.jobs ORDER BY name;
SELECT j.name, a.node, a.gpu_indices FROM mixdnn.allocations a JOIN mixdnn.jobs j USING (job_id) ORDER BY j.name, a.node;

-- At 00:20 nothing is due yet.
SET mixdnn.virtual_now = '2026-01-01 00:20+00';
SELECT mixdnn.launch_due() AS launched;
-- gpt finishes early, at 00:25: resnet is re-planned for now and launches.
SET mixdnn.virtual_now = '2026-01-01 00:25+00';
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'gpt';
SELECT name, status, finished_at, planned_start, planned_end, reason FROM mixdnn.jobs ORDER BY name;
SELECT mixdnn.launch_due() AS launched;
SELECT j.name, a.node, a.gpu_indices FROM mixdnn.allocations a JOIN mixdnn.jobs j USING (job_id) ORDER BY j.name, a.node;
SELECT event, waiting, running, launched FROM mixdnn.rounds ORDER BY round_id;

-- Status history and plan history, in order.
SELECT j.name, e.old_status, e.new_status, e.at
FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) ORDER BY j.name, e.event_id;
SELECT j.name, h.status, h.planned_gpu_type, h.planned_gpus, h.planned_start
FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id) ORDER BY j.name, h.round_id;
SELECT name, requested_gpu_type, planned_gpu_type, first_planned_start, wait, revisions FROM mixdnn.schedule ORDER BY name;

-- At 00:40 bert has run 10 min past its expected end (00:30) and still
-- holds its GPUs: a new job for them is planned for now + 10 min (as long
-- again as bert has overrun, mixdnn.overrun_factor 1; at least
-- mixdnn.overrun_grace), not for now, and launch_due does not start it.
SET mixdnn.virtual_now = '2026-01-01 00:40+00';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('vit', 'hard', 'a100', 2, '10 min');
SELECT name, status, planned_start, reason FROM mixdnn.jobs WHERE name = 'vit';
SELECT mixdnn.launch_due() AS launched;
SELECT name, status, planned_start FROM mixdnn.jobs WHERE name = 'vit';

-- A bad submission is refused and leaves no trace.
\set VERBOSITY terse
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('huge', 'hard', 'a100', 3, '1h');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('neg', 'v100', 1, '-5 min');
\set VERBOSITY default
SELECT count(*) AS jobs FROM mixdnn.jobs;

-- Clean up for the files that follow.
DELETE FROM mixdnn.jobs;
DELETE FROM mixdnn.gpu_nodes;
DELETE FROM mixdnn.gpu_types;
DELETE FROM mixdnn.rounds;
SELECT (SELECT count(*) FROM mixdnn.jobs) + (SELECT count(*) FROM mixdnn.gpus)
	 + (SELECT count(*) FROM mixdnn.gpu_holds) + (SELECT count(*) FROM mixdnn.job_parts) AS leftovers;
