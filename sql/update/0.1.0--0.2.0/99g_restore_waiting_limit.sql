-- 99g_restore_waiting_limit.sql — a restore loads every job as it was
-- dumped: the waiting-jobs limit is not checked while a data load runs
-- (mixdnn._loading()). It failed the restore of a role whose quota allows
-- more waiting jobs than the restoring session's mixdnn.max_waiting_jobs:
-- the quotas load after the jobs.
DROP TRIGGER jobs_waiting_limit ON mixdnn.jobs;
CREATE TRIGGER jobs_waiting_limit AFTER INSERT ON mixdnn.jobs
	REFERENCING NEW TABLE AS new_jobs
	FOR EACH STATEMENT WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._jobs_waiting_limit();
