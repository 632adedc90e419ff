-- A part keeps the GPU type its node had at the launch: utilization and
-- fair-share usage read it there, not from today's gpu_nodes, where a node
-- deleted since is missing and a node registered again may have another
-- type. 0.1.0 deleted a node's parts with it (ON DELETE CASCADE), so every
-- part's node is still registered here; but 0.1.0 let a node change type
-- once its GPUs were free, so the node's type now is a part's only where
-- nothing better is known. A part of its job's latest launch takes the
-- job's planned type, which is what that launch ran on, as long as the job
-- has not been planned again since: it is launching, running, completed or
-- failed (none of which a re-queued job reaches without a new launch), or
-- was cancelled from launching or running. 0.1.0 kept the attempt when it
-- re-queued a job, so a job re-queued, planned on another type and then
-- cancelled must not give its old part the new type. Any other part takes
-- its node's type now. A part whose node is missing all
-- the same keeps NULL: its type is not known, and it counts in neither
-- utilization nor fair-share usage, as before the update.
ALTER TABLE mixdnn.job_parts ADD COLUMN gpu_type text;
COMMENT ON COLUMN mixdnn.job_parts.gpu_type IS 'GPU type of its node at launch; NULL where unknown (a part of a node missing at the upgrade from 0.1.0)';
UPDATE mixdnn.job_parts p
SET gpu_type = coalesce((SELECT j.planned_gpu_type FROM mixdnn.jobs j
						 WHERE j.job_id = p.job_id AND j.attempt = p.attempt
						   AND (j.status IN ('launching', 'running', 'completed', 'failed')
								OR j.status = 'cancelled'
								   AND EXISTS (SELECT FROM mixdnn.job_events e
											   WHERE e.job_id = j.job_id AND e.new_status = 'cancelled'
												 AND e.old_status IN ('launching', 'running')))),
						(SELECT n.gpu_type FROM mixdnn.gpu_nodes n WHERE n.node = p.node));
