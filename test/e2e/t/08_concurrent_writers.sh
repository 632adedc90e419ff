#!/usr/bin/env bash
# Concurrent submitters, cancellers, completions and launches (SPEC §7): no
# transaction fails (no deadlock, no serialization error), no job is lost
# (every committed job is planned or further along), and no GPU is booked
# twice, in both plan modes.
. "$(dirname "$0")/../lib.sh"

cat >"$T/submit.sql" <<'SQL'
\set gpus random(1, 4)
\set soft random(0, 1)
\set secs random(60, 7200)
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES ('load', (ARRAY['hard', 'soft'])[1 + :soft], 'a100', :gpus, make_interval(secs => :secs));
SQL
# The status test in the outer WHERE is re-checked after a row lock wait,
# so two clients racing for the same job do not both change it.
cat >"$T/churn.sql" <<'SQL'
UPDATE mixdnn.jobs SET status = 'cancelled'
	WHERE job_id = (SELECT min(job_id) FROM mixdnn.jobs WHERE status IN ('pending', 'planned'))
	  AND status IN ('pending', 'planned');
UPDATE mixdnn.jobs SET status = 'completed'
	WHERE job_id = (SELECT min(job_id) FROM mixdnn.jobs WHERE status IN ('launching', 'running'))
	  AND status IN ('launching', 'running');
SELECT mixdnn.launch_due();
SQL

for mode in commit worker; do
	reset_cluster
	set_setting mixdnn.plan_mode "$mode"
	q "TRUNCATE mixdnn.rounds CASCADE" >/dev/null
	pgbench -n -c 6 -j 2 -T 4 -f "$T/submit.sql@3" -f "$T/churn.sql@1" >"$T/pgbench-$mode.log" 2>&1
	ok $? "$mode: 6 clients submitting, cancelling, completing and launching for 4 s"
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$T/pgbench-$mode.log")
	is "${failed:-0}" 0 "$mode: no transaction failed"
	diag "$(grep -E '^(number of transactions actually processed|tps)' "$T/pgbench-$mode.log" | tr '\n' ' ')"

	# The worker may still be planning the last commits: wait for it, bounded.
	wait_until 20 "[ \"\$(q \"SELECT count(*) FROM mixdnn.jobs WHERE status = 'pending' AND reason IS NULL\")\" = 0 ]"
	ok $? "$mode: every committed job got a plan"
	is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE status IN ('launching', 'running') AND NOT EXISTS
			  (SELECT FROM mixdnn.gpu_holds h WHERE h.job_id = jobs.job_id)")" 0 \
		"$mode: every launching or running job holds GPUs"
	is "$(q "SELECT count(*) FROM (SELECT h.job_id FROM mixdnn.gpu_holds h JOIN mixdnn.jobs j USING (job_id)
			  GROUP BY h.job_id, j.planned_gpus HAVING count(*) <> j.planned_gpus) x")" 0 \
		"$mode: every job holds exactly its planned GPU count"
	is "$(q "SELECT count(*) FROM mixdnn.gpu_holds h JOIN mixdnn.jobs j USING (job_id)
			  WHERE j.status NOT IN ('launching', 'running')")" 0 \
		"$mode: finished and cancelled jobs hold no GPUs"
	is "$(q "SELECT count(*) FROM mixdnn.job_events e WHERE e.old_status IS NULL")" \
	   "$(q "SELECT count(*) FROM mixdnn.jobs")" "$mode: every job's submission is in its history"
done
set_setting mixdnn.plan_mode ''
done_testing
