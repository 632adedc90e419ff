-- 99zk_infinite_history_times.sql — the analysts' views over history no
-- longer fail for every reader when one job's started_at or finished_at is
-- 'infinity' or '-infinity' (only a superuser's UPDATE writes one): wait
-- and jct are NULL for it. mixdnn.schedule as sql/install/50_access.sql
-- defines it; the other views and functions of this fix (queue, metrics,
-- estimate_accuracy, utilization, gantt_svg) are new in 0.2.0, and their
-- pieces (80_surface, 90_tenancy, 99x, 99p) create them as the install does.
CREATE OR REPLACE VIEW mixdnn.schedule WITH (security_invoker = true) AS
	SELECT j.job_id, j.name, j.owner, j.model_class, j.status,
		   j.gpu_type AS requested_gpu_type, j.gpus AS requested_gpus,
		   j.planned_gpu_type, j.planned_gpus,
		   j.submitted_at,
		   (SELECT h.planned_start FROM mixdnn.plan_history h
			 WHERE h.job_id = j.job_id AND h.planned_start IS NOT NULL
			 ORDER BY h.round_id LIMIT 1) AS first_planned_start,
		   j.planned_start, j.planned_end, j.started_at, j.finished_at,
		   CASE WHEN isfinite(j.started_at) THEN j.started_at - j.submitted_at END AS wait,
		   CASE WHEN isfinite(j.finished_at) THEN j.finished_at - j.submitted_at END AS jct,
		   (SELECT count(*) FROM mixdnn.plan_history h WHERE h.job_id = j.job_id) AS revisions,
		   j.reason
	FROM mixdnn.jobs j;
