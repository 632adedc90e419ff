#!/usr/bin/env bash
# A cancel whose notice never reaches the launcher is found at its next
# heartbeat, even when the counts agree: here the node's parts the server
# lists (one, a part no process of this launcher runs) and the launcher's
# live parts (one, the cancelled job's) are as many. Before, the launcher
# reconciled only on a difference in counts, and the cancelled part ran on
# until its keeper's lease deadline (mixdnn.lease_timeout, 60 s), then was
# killed without grace.
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n3 --heartbeat-interval 1

job=$(submit lost-cancel hard v100 1 "$(job_cmd 120)" '120 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "the job's process started"
pid=$(env_of "$job" 1 0 PID)

# Without triggers (session_replication_role = replica): no NOTIFY is sent.
# A running part on n3 that no process of this launcher runs, and the job's
# cancel, as if its notice had been dropped.
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SET session_replication_role = replica;
WITH g AS (
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, status, attempt, started_at)
	VALUES ('ghost', 'hard', 'v100', 1, '1 hour', 'true', 'running', 1, now()) RETURNING job_id)
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, lease_until)
	SELECT job_id, 1, 'n3', 0, 1, 'running', now(), now() + interval '1 hour' FROM g;
UPDATE mixdnn.job_parts SET state = 'cancelled', finished_at = now() WHERE job_id = $job;
UPDATE mixdnn.jobs SET status = 'cancelled', finished_at = now() WHERE job_id = $job;
SQL
ok $? "(setup) a listed part without a process, and a cancel without its notice"
wait_until 15 "! alive $pid"
ok $? "the cancelled job's process is stopped within a few heartbeats, not at its lease deadline"
grep -q "job $job attempt 1" "$T/launcher-n3.log"
ok $? "the launcher's log names the job" || diag "$(tail -5 "$T/launcher-n3.log")"
stop_launcher n3
done_testing
