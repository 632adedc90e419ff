-- tools/bench/probe.sql — pgbench, one extra client beside the submitters:
-- submit one job (autocommit), then poll until its plan is visible and log
-- how long that took after the commit (public.probe_log, see setup.sql).
\set r random(1, 10000)
\set gpus (case when :r <= 9317 then 1 when :r <= 9538 then 2 when :r <= 9765 then 4 when :r <= 9965 then 8 else 16 end)
\set z random_gaussian(-40000, 40000, 4.0)
\set dur greatest(60, least(604800, int(exp(6.79 + 2.16 * :z / 10000.0))))
\set soft random(0, 1)
\set t random(1, 3)
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('probe', (ARRAY['hard', 'soft'])[1 + :soft], (ARRAY['v100', 'a100', 'p100'])[:t],
			:gpus, make_interval(secs => :dur))
	RETURNING job_id \gset
INSERT INTO public.probe_log SELECT :job_id, public.bench_wait_planned(:job_id);
-- keep the queue length of the run: take the probe job out again
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = :job_id AND status IN ('pending', 'planned');
\sleep 200 ms
