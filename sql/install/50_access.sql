-- Who sees and changes what. Nothing is granted to PUBLIC.

-- Planned versus actual, for analysts. wait and jct are NULL where the
-- time is 'infinity' or '-infinity' (a superuser's UPDATE): one such job
-- failed the view for every reader who may see it.
CREATE VIEW mixdnn.schedule WITH (security_invoker = true) AS
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
COMMENT ON VIEW mixdnn.schedule IS 'each job''s first plan, latest plan and actual start and finish';

ALTER TABLE mixdnn.jobs ENABLE ROW LEVEL SECURITY;
CREATE POLICY jobs_own ON mixdnn.jobs TO mixdnn_user
	USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY jobs_admin ON mixdnn.jobs TO mixdnn_admin
	USING (true) WITH CHECK (true);

ALTER TABLE mixdnn.plan_history ENABLE ROW LEVEL SECURITY;
CREATE POLICY plan_history_own ON mixdnn.plan_history FOR SELECT TO mixdnn_user
	USING (EXISTS (SELECT FROM mixdnn.jobs j WHERE j.job_id = plan_history.job_id));
ALTER TABLE mixdnn.job_events ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_events_own ON mixdnn.job_events FOR SELECT TO mixdnn_user
	USING (EXISTS (SELECT FROM mixdnn.jobs j WHERE j.job_id = job_events.job_id));
ALTER TABLE mixdnn.job_parts ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_parts_own ON mixdnn.job_parts FOR SELECT TO mixdnn_user
	USING (EXISTS (SELECT FROM mixdnn.jobs j WHERE j.job_id = job_parts.job_id));
ALTER TABLE mixdnn.gpu_holds ENABLE ROW LEVEL SECURITY;
CREATE POLICY gpu_holds_all ON mixdnn.gpu_holds FOR SELECT TO mixdnn_user, mixdnn_launcher
	USING (true);

REVOKE ALL ON ALL TABLES IN SCHEMA mixdnn FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA mixdnn FROM PUBLIC;

-- Users: submit, read, cancel their own jobs; read the cluster and history.
GRANT SELECT ON mixdnn.gpu_types, mixdnn.gpu_nodes, mixdnn.gpus, mixdnn.profiles, mixdnn.rounds,
	mixdnn.status_transitions, mixdnn.gpu_holds, mixdnn.allocations TO mixdnn_user;
GRANT SELECT ON mixdnn.jobs, mixdnn.plan_history, mixdnn.job_events, mixdnn.job_parts, mixdnn.schedule TO mixdnn_user;
GRANT INSERT (name, model, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types,
			  duration, priority, command) ON mixdnn.jobs TO mixdnn_user;
GRANT UPDATE (status) ON mixdnn.jobs TO mixdnn_user;

-- Admins: the cluster, every job, and running rounds and launches by hand.
GRANT SELECT, INSERT, UPDATE, DELETE ON mixdnn.gpu_types, mixdnn.gpu_nodes, mixdnn.profiles TO mixdnn_admin;
GRANT INSERT (owner, submitted_at), UPDATE (status, priority, reason, owner) ON mixdnn.jobs TO mixdnn_admin;
GRANT SELECT ON mixdnn.plan_history, mixdnn.job_events, mixdnn.job_parts TO mixdnn_admin;
GRANT EXECUTE ON FUNCTION mixdnn.run_round(text), mixdnn.launch_due() TO mixdnn_admin;

-- Launchers: only through the launcher functions (60_launcher.sql).
GRANT SELECT ON mixdnn.gpu_nodes TO mixdnn_launcher;

-- Functions that triggers call as the invoker. (Trigger functions
-- themselves need no EXECUTE grant.)
GRANT EXECUTE ON FUNCTION mixdnn.now(), mixdnn._caller_level(),
	mixdnn._job_can_run(text, text, int, int, int, text[], text),
	mixdnn._check_job_terms(int, interval, text),
	mixdnn._check_job_shape(text, text, int, int, int, text[]) TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
