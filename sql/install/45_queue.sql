-- The waiting queue: the order in which waiting jobs enter the planning
-- horizon, and what the per-role limit on waiting jobs counts
-- (docs/design.md, "The waiting queue"; the limit: 46_submission_limits.sql).

-- The first mixdnn.planning_horizon waiting jobs in this order are planned
-- by a round; a job's queue position is its rank in it.
CREATE INDEX jobs_queue_idx ON mixdnn.jobs (priority DESC, submitted_at, job_id)
	WHERE status IN ('pending', 'planned');
-- Planned jobs a full horizon pushed out, and queued jobs still without a reason.
CREATE INDEX jobs_planned_idx ON mixdnn.jobs (job_id) WHERE status = 'planned';
CREATE INDEX jobs_unexplained_idx ON mixdnn.jobs (job_id) WHERE status = 'pending' AND reason IS NULL;
-- Counting a role's waiting jobs at submission.
CREATE INDEX jobs_owner_waiting_idx ON mixdnn.jobs (owner) WHERE status IN ('pending', 'planned');

-- One row per submitting role. A submission locks its owner's row while it
-- counts the owner's waiting jobs and its submissions of the last hour
-- (46_submission_limits.sql), so two concurrent submissions of one role
-- cannot both pass a limit. Only the extension's owner can read or
-- lock these rows; no other role can hold up a submission through them.
CREATE TABLE mixdnn.submitters (
	owner		name PRIMARY KEY
);
COMMENT ON TABLE mixdnn.submitters IS 'internal: one row per submitting role, locked while its waiting jobs are counted';
