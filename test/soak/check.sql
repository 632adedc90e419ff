-- test/soak/check.sql — the invariants the tables must keep at every
-- instant, one row per violation ("invariant: detail"); none is success.
-- Also records latencies and work-conservation streaks in schema soak
-- (which purge_history never touches). psql variables: max_attempts,
-- retention_s (the purge's older_than plus its period and slack),
-- wc_bound_s and solver_bound_s (work conservation), final (on at the end, after the drain).
\set QUIET on
\pset tuples_only on
\pset format unaligned

-- Latencies while the history is still there: a job's first plan (its
-- first revision's round) after its submission, and its launch (the
-- 'launching' event) to the claim of its first part.
INSERT INTO soak.latency (job_id, submitted_at, first_plan_at)
SELECT j.job_id, j.submitted_at, min(r.at)
FROM mixdnn.jobs j JOIN mixdnn.plan_history h USING (job_id) JOIN mixdnn.rounds r USING (round_id)
WHERE NOT EXISTS (SELECT FROM soak.latency l WHERE l.job_id = j.job_id)
GROUP BY j.job_id, j.submitted_at;
INSERT INTO soak.launch (job_id, attempt, launching_at, claimed_at)
SELECT p.job_id, p.attempt, e.at, min(p.claimed_at)
FROM mixdnn.job_parts p
JOIN LATERAL (SELECT max(at) AS at FROM mixdnn.job_events e
              WHERE e.job_id = p.job_id AND e.new_status = 'launching' AND e.at <= p.claimed_at) e ON true
WHERE p.claimed_at IS NOT NULL AND e.at IS NOT NULL
  AND NOT EXISTS (SELECT FROM soak.launch l WHERE l.job_id = p.job_id AND l.attempt = p.attempt)
GROUP BY p.job_id, p.attempt, e.at;

-- Free GPUs per type on nodes that take jobs, and the waiting jobs one of
-- whose configurations fits in them without a reason the planner may give
-- for waiting (quota, a reservation for a starving or critical job, a
-- draining node, jobs ahead of it planned on those GPUs, a later start that
-- ends it no later: docs/model.md, "Reasons"). A job the round chose to
-- keep off free GPUs that would end it sooner ("the round chose ... over
-- free ..." or "the round starts it later, though free ...") is waiting
-- too, but bounded more loosely: since is when the job's idle wait began,
-- plain_since when its present stretch without that choice did.
CREATE TEMP VIEW free AS
SELECT n.gpu_type, sum(n.gpus - (SELECT count(*) FROM mixdnn.gpu_holds h WHERE h.node = n.node))::int AS free
FROM mixdnn.gpu_nodes n
WHERE n.status = 'up' AND n.unreachable_since IS NULL
GROUP BY n.gpu_type;
CREATE TEMP VIEW idle_waiting AS
SELECT j.job_id, coalesce(j.reason, '') ~ '; the round (chose|starts it later)' AS chosen
FROM mixdnn.jobs j
WHERE j.status IN ('pending', 'planned')
  AND EXISTS (SELECT FROM free f
              WHERE f.free >= coalesce(j.min_gpus, j.gpus)
                AND CASE WHEN j.model_class = 'hard' THEN f.gpu_type = j.gpu_type
                         ELSE j.allowed_types IS NULL OR f.gpu_type = ANY (j.allowed_types) END)
  AND coalesce(j.reason, '') !~* 'quota|reserv|starv|critical|drain|finish it first|no later than|ahead of it';
DELETE FROM soak.idle i WHERE NOT EXISTS (SELECT FROM idle_waiting w WHERE w.job_id = i.job_id);
INSERT INTO soak.idle (job_id, since, plain_since)
SELECT job_id, clock_timestamp(), CASE WHEN NOT chosen THEN clock_timestamp() END FROM idle_waiting
ON CONFLICT (job_id) DO UPDATE
SET plain_since = CASE WHEN EXCLUDED.plain_since IS NOT NULL THEN coalesce(soak.idle.plain_since, EXCLUDED.plain_since) END;

SELECT 'gpu held twice: ' || node || ' gpu ' || gpu_index
FROM mixdnn.gpu_holds GROUP BY node, gpu_index HAVING count(*) > 1
UNION ALL
SELECT 'more GPUs in live parts than the node has: ' || p.node || ' ' || sum(p.gpus) || ' > ' || n.gpus
FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id) JOIN mixdnn.gpu_nodes n USING (node)
WHERE p.state IN ('launching', 'running') AND p.attempt = j.attempt AND j.status IN ('launching', 'running')
GROUP BY p.node, n.gpus HAVING sum(p.gpus) > n.gpus
UNION ALL
SELECT 'GPUs held for a job that is not launching or running: job ' || h.job_id || ' ' || j.status
FROM mixdnn.gpu_holds h JOIN mixdnn.jobs j USING (job_id)
WHERE j.status NOT IN ('launching', 'running')
UNION ALL
SELECT 'held GPUs differ from the live parts: job ' || j.job_id || ' node ' || p.node
       || ' part ' || p.gpus || ' held ' || (SELECT count(*) FROM mixdnn.gpu_holds h WHERE h.job_id = j.job_id AND h.node = p.node)
FROM mixdnn.jobs j JOIN mixdnn.job_parts p ON p.job_id = j.job_id AND p.attempt = j.attempt
WHERE j.status IN ('launching', 'running') AND p.state IN ('launching', 'running')
  AND p.gpus <> (SELECT count(*) FROM mixdnn.gpu_holds h WHERE h.job_id = j.job_id AND h.node = p.node)
UNION ALL
SELECT 'ran more times than its attempts allow: job ' || job_id || ' attempt ' || attempt
FROM mixdnn.jobs WHERE attempt > :max_attempts
UNION ALL
SELECT 'a launch without a part: job ' || job_id || ' ' || status || ' attempt ' || attempt
FROM mixdnn.jobs j
WHERE status IN ('launching', 'running')
  AND NOT EXISTS (SELECT FROM mixdnn.job_parts p WHERE p.job_id = j.job_id AND p.attempt = j.attempt)
UNION ALL
SELECT 'a completed job without its exit code: job ' || job_id
FROM mixdnn.jobs WHERE status = 'completed' AND (exit_code IS DISTINCT FROM 0 OR finished_at IS NULL)
UNION ALL
SELECT 'a failed job that ran without its exit code: job ' || job_id
FROM mixdnn.jobs WHERE status = 'failed' AND attempt > 0 AND exit_code IS NULL
  AND coalesce(reason, '') !~* 'lease|lost|restarted|retries|went down'
UNION ALL
SELECT 'a plan revision without its round: round ' || h.round_id
FROM mixdnn.plan_history h WHERE NOT EXISTS (SELECT FROM mixdnn.rounds r WHERE r.round_id = h.round_id)
UNION ALL
SELECT 'history kept past retention: job ' || j.job_id || ' finished ' || j.finished_at
FROM mixdnn.jobs j
WHERE j.finished_at < now() - make_interval(secs => :retention_s)
  AND (EXISTS (SELECT FROM mixdnn.plan_history h WHERE h.job_id = j.job_id)
       OR EXISTS (SELECT FROM mixdnn.job_events e WHERE e.job_id = j.job_id
                  AND e.new_status IS DISTINCT FROM 'launching'))
UNION ALL
SELECT 'work conservation: job ' || i.job_id || ' waits while GPUs it fits are idle for '
       || round(extract(epoch FROM clock_timestamp() - i.plain_since)) || ' s (reason: ' || coalesce(j.reason, '') || ')'
FROM soak.idle i JOIN mixdnn.jobs j USING (job_id)
WHERE i.plain_since < clock_timestamp() - make_interval(secs => :wc_bound_s)
UNION ALL
SELECT 'work conservation, the round''s choice included: job ' || i.job_id || ' waits while GPUs it fits are idle for '
       || round(extract(epoch FROM clock_timestamp() - i.since)) || ' s (reason: ' || coalesce(j.reason, '') || ')'
FROM soak.idle i JOIN mixdnn.jobs j USING (job_id)
WHERE i.since < clock_timestamp() - make_interval(secs => :solver_bound_s)
UNION ALL
SELECT 'not terminal after the drain: job ' || job_id || ' ' || status
FROM mixdnn.jobs WHERE :final AND status NOT IN ('completed', 'failed', 'cancelled');
