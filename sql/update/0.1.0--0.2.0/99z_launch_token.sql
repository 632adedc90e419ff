-- 99z_launch_token.sql — each launch of a part gets a random token, which
-- the launcher keeps with the part's keeper and reports with (the
-- installation id and job id, attempt and node did not tell apart a
-- launch that a restored copy of the cluster forgot from the new job that
-- took its id; 63_launcher_parts.sql). The parts already in the table get
-- a token each; keepers started before the update know none and are
-- matched by job, attempt and node as before.
ALTER TABLE mixdnn.job_parts ADD COLUMN launch_token uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid();
COMMENT ON COLUMN mixdnn.job_parts.launch_token IS 'random id of this launch of the part: the launcher keeps it with the part''s process and reports with it';
-- Their results gain the token: made again by 99za (63_launcher_parts.sql),
-- with their grants. finish() without the token: 99q made it with one.
DROP FUNCTION mixdnn.heartbeat_parts(text);
DROP FUNCTION mixdnn.node_parts(text);
DROP FUNCTION mixdnn.finish(bigint, int, text, int, text);
