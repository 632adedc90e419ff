-- 99k_finite_submitted_at.sql — a job's submitted_at is a finite time. An
-- admin could write 'infinity' or '-infinity' (admins may set it, for
-- replays), and every user's mixdnn.queue and mixdnn.metrics then failed
-- with "cannot subtract infinite timestamps" while that job waited (a
-- review). Such a row gets a finite time in the same place of the queue
-- (one second before the earliest finite submission for '-infinity', one
-- second after the latest, or now if later, for 'infinity'), or its start
-- or end if earlier, with a warning naming it. Left as it was, with the
-- constraint NOT VALID, the row could not be restored from a dump into a
-- fresh install (whose constraint is valid), and a COPY that fails loses
-- its whole table. The triggers are off for the fix: it is the upgrade's,
-- not a user's change, and plans nothing.
DO $$
DECLARE
	ids		text;
	first	timestamptz;
	last	timestamptz;
BEGIN
	SELECT pg_catalog.string_agg(job_id::text, ', ' ORDER BY job_id) INTO ids
		FROM mixdnn.jobs WHERE NOT pg_catalog.isfinite(submitted_at);
	IF ids IS NULL THEN
		RETURN;
	END IF;
	SELECT pg_catalog.min(submitted_at) OPERATOR(pg_catalog.-) interval '1 second',
		   pg_catalog.max(submitted_at) OPERATOR(pg_catalog.+) interval '1 second' INTO first, last
		FROM mixdnn.jobs WHERE pg_catalog.isfinite(submitted_at);
	ALTER TABLE mixdnn.jobs DISABLE TRIGGER USER;
	UPDATE mixdnn.jobs SET submitted_at = LEAST(
			CASE WHEN pg_catalog.isfinite(started_at) THEN started_at END,
			CASE WHEN pg_catalog.isfinite(finished_at) THEN finished_at END,
			CASE WHEN submitted_at OPERATOR(pg_catalog.<) mixdnn.now() THEN COALESCE(first, mixdnn.now())
				 ELSE GREATEST(last, mixdnn.now()) END)
		WHERE NOT pg_catalog.isfinite(submitted_at);
	ALTER TABLE mixdnn.jobs ENABLE TRIGGER USER;
	RAISE WARNING 'jobs % had an infinite submitted_at; it is now a finite time in the same place of the queue', ids;
END
$$;
ALTER TABLE mixdnn.jobs ADD CONSTRAINT jobs_submitted_at_check CHECK (pg_catalog.isfinite(submitted_at));
