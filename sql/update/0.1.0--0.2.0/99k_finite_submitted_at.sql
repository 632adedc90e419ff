-- 99k_finite_submitted_at.sql — a job's submitted_at is a finite time. An
-- admin could write 'infinity' or '-infinity' (admins may set it, for
-- replays), and every user's mixdnn.queue and mixdnn.metrics then failed
-- with "cannot subtract infinite timestamps" while that job waited (a
-- review). A database that already holds such a row keeps it: the
-- constraint is then left NOT VALID (new rows are checked) rather than
-- failing the upgrade; fix the row and run
-- ALTER TABLE mixdnn.jobs VALIDATE CONSTRAINT jobs_submitted_at_check.
ALTER TABLE mixdnn.jobs ADD CONSTRAINT jobs_submitted_at_check
	CHECK (pg_catalog.isfinite(submitted_at)) NOT VALID;
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM mixdnn.jobs WHERE NOT pg_catalog.isfinite(submitted_at)) THEN
		ALTER TABLE mixdnn.jobs VALIDATE CONSTRAINT jobs_submitted_at_check;
	END IF;
END
$$;
