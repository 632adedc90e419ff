-- A part keeps the GPU type its node had at the launch: utilization and
-- fair-share usage read it there, not from today's gpu_nodes, where a node
-- deleted since is missing and a node registered again may have another
-- type. 0.1.0 deleted a node's parts with it (ON DELETE CASCADE), so every
-- part's node is still registered here and the part takes the node's type
-- now: the type it ran on, unless the node changed type after it (0.1.0
-- did not refuse that), which the database no longer records. A part whose
-- node is missing all the same keeps NULL: its type is not known, and it
-- counts in neither utilization nor fair-share usage, as before the update.
ALTER TABLE mixdnn.job_parts ADD COLUMN gpu_type text;
COMMENT ON COLUMN mixdnn.job_parts.gpu_type IS 'GPU type of its node at launch; NULL where unknown (a part of a node missing at the upgrade from 0.1.0)';
UPDATE mixdnn.job_parts p SET gpu_type = n.gpu_type FROM mixdnn.gpu_nodes n WHERE n.node = p.node;
