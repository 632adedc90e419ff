--
-- 07_reinstall: a backend keeps the round's queries prepared
-- (src/pg/spi_cache.c); after DROP EXTENSION and CREATE EXTENSION in the
-- same session they are planned again against the new tables.
--
SET timezone = 'UTC';
SET mixdnn.virtual_now = '2026-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('before', 'hard', 'v100', 4, '1h');
SELECT mixdnn.launch_due() AS launched;
SELECT name, status, planned_start FROM mixdnn.jobs;

-- A job is launching: only a forced drop goes ahead (its WARNING is not
-- shown here; 08_drop_guard tests the guard).
SET mixdnn.force_drop = on;
SET client_min_messages = error;
DROP EXTENSION mixdnn CASCADE;
CREATE EXTENSION mixdnn;
RESET client_min_messages;
RESET mixdnn.force_drop;

INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('after', 'hard', 'v100', 2, '1h');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('later', 'hard', 'v100', 4, '1h');
SELECT mixdnn.launch_due() AS launched;
SELECT name, status, planned_start, reason FROM mixdnn.jobs ORDER BY name;
SELECT count(*) AS rounds FROM mixdnn.rounds;

-- Clean up for the files that follow.
DELETE FROM mixdnn.jobs;
DELETE FROM mixdnn.gpu_nodes;
DELETE FROM mixdnn.gpu_types;
DELETE FROM mixdnn.rounds;
RESET mixdnn.virtual_now;
