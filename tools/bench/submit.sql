-- tools/bench/submit.sql — pgbench: one job per transaction, the job mix of
-- bin/mixdnn-bench (Philly GPU counts, log-normal durations, 50% soft).
\set r random(1, 10000)
\set gpus (case when :r <= 9317 then 1 when :r <= 9538 then 2 when :r <= 9765 then 4 when :r <= 9965 then 8 else 16 end)
\set z random_gaussian(-40000, 40000, 4.0)
\set dur greatest(60, least(604800, int(exp(6.79 + 2.16 * :z / 10000.0))))
\set soft random(0, 1)
\set t random(1, 3)
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('bench-' || :client_id, (ARRAY['hard', 'soft'])[1 + :soft], (ARRAY['v100', 'a100', 'p100'])[:t],
			:gpus, make_interval(secs => :dur));
