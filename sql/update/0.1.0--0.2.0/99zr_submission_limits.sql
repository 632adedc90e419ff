-- 99zr_submission_limits.sql — the waiting-jobs limit is checked by the
-- submission budget's trigger (sql/install/46_submission_limits.sql, run
-- by 99zq), in one loop over the statement's owners under one lock of
-- each owner's row of mixdnn.submitters; its own trigger goes.

DROP TRIGGER jobs_waiting_limit ON mixdnn.jobs;
DROP FUNCTION mixdnn._jobs_waiting_limit();
