--
-- 08_operations: the guard on DROP EXTENSION, history retention, and what
-- pg_dump is told to save (docs/operations.md).
--
SET timezone = 'UTC';
SET mixdnn.virtual_now = '2026-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES
	('old', 'hard', 'v100', 4, '1h'), ('run', 'hard', 'v100', 4, '1h');
SELECT mixdnn.launch_due() AS launched;
SELECT count(*) AS claimed FROM mixdnn.claim('n1');
SET mixdnn.virtual_now = '2026-01-01 01:00+00';
SELECT mixdnn.finish(job_id, 0, 'n1') AS finished FROM mixdnn.jobs WHERE name = 'old';
SELECT mixdnn.launch_due() AS launched;
SELECT name, status FROM mixdnn.jobs ORDER BY job_id;

-- Refused while a job is launching or running, whatever the spelling.
DROP EXTENSION mixdnn;
DROP EXTENSION IF EXISTS mixdnn CASCADE;
DROP SCHEMA mixdnn CASCADE;
-- Other drops are none of its business.
CREATE SCHEMA other;
DROP SCHEMA other;
-- Only a superuser may force it.
CREATE ROLE mx_regress_admin IN ROLE mixdnn_admin;
SET ROLE mx_regress_admin;
SET mixdnn.force_drop = on;
RESET ROLE;
-- Who may not drop it hears PostgreSQL's refusal, not the guard's list of
-- active jobs or a permission error of the guard's own query: a user with
-- an active job of her own (the running one, handed to her), an admin, a
-- launcher's role.
CREATE ROLE mx_regress_user LOGIN IN ROLE mixdnn_user;
UPDATE mixdnn.jobs SET owner = 'mx_regress_user' WHERE name = 'run';
SET ROLE mx_regress_user;
SELECT name, status FROM mixdnn.jobs;
DROP EXTENSION mixdnn;
DROP SCHEMA mixdnn CASCADE;
DROP OWNED BY postgres;
SET ROLE mx_regress_admin;
DROP EXTENSION IF EXISTS mixdnn CASCADE;
RESET ROLE;
CREATE ROLE mx_regress_launcher IN ROLE mixdnn_launcher;
SET ROLE mx_regress_launcher;
DROP SCHEMA mixdnn CASCADE;
RESET ROLE;
DROP ROLE mx_regress_launcher;
UPDATE mixdnn.jobs SET owner = 'postgres' WHERE name = 'run';
DROP ROLE mx_regress_user;
DROP ROLE mx_regress_admin;
SELECT extname FROM pg_extension WHERE extname = 'mixdnn';

-- Retention: nothing is old enough yet; then, a month later, what the
-- finished job left goes but its launch (when its part took its GPUs), and
-- the running job's history stays.
SELECT * FROM mixdnn.purge_history();
SELECT * FROM mixdnn.purge_history(interval '-1 day');
-- Longer ago than a timestamp reaches: nothing is that old.
SELECT * FROM mixdnn.purge_history(interval '1000000 years');
SELECT j.name, count(*) AS events FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) GROUP BY 1 ORDER BY 1;
SET mixdnn.virtual_now = '2026-02-01 00:00+00';
SELECT * FROM mixdnn.purge_history(interval '30 days');
SELECT j.name, count(*) AS events FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) GROUP BY 1 ORDER BY 1;
SELECT j.name, count(*) AS revisions FROM mixdnn.plan_history h JOIN mixdnn.jobs j USING (job_id) GROUP BY 1 ORDER BY 1;
SELECT count(*) AS rounds_left, count(*) FILTER (WHERE round_id IN (SELECT round_id FROM mixdnn.plan_history)) AS named
FROM mixdnn.rounds;
SELECT name, status, finished_at FROM mixdnn.jobs ORDER BY job_id;
-- The default comes from mixdnn.history_retention (90 days): nothing more.
SELECT * FROM mixdnn.purge_history();
-- 40 000 old rounds, each naming an old job's revision, go in well under
-- 5 s: each deleted round's revisions are found by an index (without it,
-- 20 000 took 7.3 s and 200 000 more than 7 minutes of the worker's cycle).
SET session_replication_role = replica;
INSERT INTO mixdnn.rounds (round_id, at, event, policy, solver) OVERRIDING SYSTEM VALUE
	SELECT 1000000 + i, '2025-06-01', 'arrival', 'mixdnn', 'heuristic' FROM generate_series(1, 40000) i;
INSERT INTO mixdnn.jobs (job_id, name, model_class, gpu_type, gpus, duration, status, submitted_at, finished_at)
	OVERRIDING SYSTEM VALUE
	SELECT 1000000 + i, 'old', 'hard', (SELECT min(gpu_type) FROM mixdnn.gpu_types), 1, '1 h', 'completed',
		'2025-06-01', '2025-06-01 01:00' FROM generate_series(1, 40000) i;
INSERT INTO mixdnn.plan_history (round_id, job_id, status)
	SELECT 1000000 + i, 1000000 + i, 'planned' FROM generate_series(1, 40000) i;
SET session_replication_role = origin;
SELECT clock_timestamp() AS purge_t0 \gset
SELECT * FROM mixdnn.purge_history(interval '30 days');
SELECT clock_timestamp() - :'purge_t0'::timestamptz < interval '5 s' AS purged_in_time;

-- What pg_dump saves: every table but the fixed rules and the per-role
-- lock rows of mixdnn.submitters (made again on demand), and the sequences.
SELECT c.relname, c.relkind
FROM pg_extension e, unnest(e.extconfig) AS t(oid) JOIN pg_class c ON c.oid = t.oid
WHERE e.extname = 'mixdnn' ORDER BY 1;
SELECT c.relname AS not_dumped
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'mixdnn' AND c.relkind IN ('r', 'S')
  AND c.oid <> ALL ((SELECT extconfig FROM pg_extension WHERE extname = 'mixdnn')::oid[])
ORDER BY 1;

-- Clean up for the files that follow.
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status IN ('launching', 'running');
SET client_min_messages = warning;
DELETE FROM mixdnn.jobs;
DELETE FROM mixdnn.gpu_nodes;
DELETE FROM mixdnn.gpu_types;
RESET client_min_messages;
