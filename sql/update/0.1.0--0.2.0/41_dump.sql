-- pg_dump saves the scheduler's tables and sequences (70_operations.sql).
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_types', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_nodes', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpus', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.profiles', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_parts', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.gpu_holds', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.rounds', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.plan_history', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_events', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.jobs_job_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.rounds_round_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('mixdnn.job_events_event_id_seq', '');
