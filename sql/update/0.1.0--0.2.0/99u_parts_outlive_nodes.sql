-- A job's parts are its launch history: 0.1.0 deleted them with their node
-- (ON DELETE CASCADE), so decommissioning a node erased where and when
-- finished jobs ran. A node that a job holds GPUs on cannot be deleted, so
-- no part still running is left without its node.
ALTER TABLE mixdnn.job_parts DROP CONSTRAINT job_parts_node_fkey;
