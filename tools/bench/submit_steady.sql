-- tools/bench/submit_steady.sql — pgbench: submit one job and cancel the
-- oldest planned one in the same transaction (one round), so the queue stays
-- at its prefilled length while the clients run (and grows when plans lag).
\set r random(1, 10000)
\set gpus (case when :r <= 9317 then 1 when :r <= 9538 then 2 when :r <= 9765 then 4 when :r <= 9965 then 8 else 16 end)
\set z random_gaussian(-40000, 40000, 4.0)
\set dur greatest(60, least(604800, int(exp(6.79 + 2.16 * :z / 10000.0))))
\set soft random(0, 1)
\set t random(1, 3)
BEGIN;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('bench-' || :client_id, (ARRAY['hard', 'soft'])[1 + :soft], (ARRAY['v100', 'a100', 'p100'])[:t],
			:gpus, make_interval(secs => :dur));
-- Only a planned job: in plan_mode worker a job is pending until the worker's
-- round, and cancelling it before would hide how late that round is.
-- FOR UPDATE: concurrent clients must not all pick the same oldest job (the
-- statement's snapshot may predate the scheduler lock its trigger waits for).
UPDATE mixdnn.jobs SET status = 'cancelled'
	WHERE job_id = (SELECT job_id FROM mixdnn.jobs WHERE status = 'planned'
					ORDER BY job_id LIMIT 1 FOR UPDATE SKIP LOCKED);
COMMIT;
