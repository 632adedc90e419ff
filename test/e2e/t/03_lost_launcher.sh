#!/usr/bin/env bash
# A launcher killed with SIGKILL: its jobs' processes die with it, their
# leases expire, the jobs are re-queued (attempt kept, reason given) and run
# again once a launcher is back; past mixdnn.max_retries they fail. A
# launcher restarted at once gives up its old parts without waiting.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.lease_timeout 3s
for n in n1 n2 n3; do start_launcher "$n"; done

# --- lease expiry (n3 is the only v100 node)
job=$(submit lost hard v100 1 "$(job_cmd 3)" '3 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "the job runs on n3"
pid=$(env_of "$job" 1 0 PID)
kill9_launcher n3
wait_until 3 "! alive $pid"
ok $? "its process died with the launcher"
wait_until 10 "[ \"\$(q \"SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND old_status = 'running' AND new_status = 'planned'\")\" = 1 ]"
ok $? "the lease expired and the job was re-queued"
is "$(q "SELECT reason FROM mixdnn.job_events WHERE job_id = $job AND new_status = 'planned' AND old_status = 'running'")" \
	"launcher of node n3 stopped heartbeating; re-queued after attempt 1" "with the reason"
is "$(q "SELECT state FROM mixdnn.job_parts WHERE job_id = $job AND attempt = 1")" lost "attempt 1's part is lost"
start_launcher n3
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the job completed once a launcher was back"
attempt=$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")
ok "$([ "$attempt" -ge 2 ]; echo $?)" "in a later attempt ($attempt)"
is "$(awk -v j="$job" '$5 == j' "$T/out/gpu.log" | awk '{print $6}' | tr '\n' ' ')" "$attempt " \
	"only the last attempt ran to its end"
is "$(gpu_overlaps)" "" "no GPU ran two jobs at the same time"

# --- past max_retries the job fails
set_setting mixdnn.max_retries 0
job=$(submit no-retry hard v100 1 "$(job_cmd 30)" '30 s')
wait_until 15 "[ -n \"\$(ls '$T/out/$job'-*.env 2>/dev/null)\" ]"
ok $? "a second job runs on n3"
kill9_launcher n3
wait_until 10 "[ \"\$(status_of $job)\" = failed ]"
ok $? "with mixdnn.max_retries = 0 a lost lease fails it"
is "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $job")" \
	"launcher of node n3 stopped heartbeating; failed after 1 attempts" "with the reason"
set_setting mixdnn.max_retries ''

# --- a launcher restarted at once gives up its old parts
start_launcher n3
job=$(submit restarted hard v100 1 "$(job_cmd 2)" '2 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "a third job runs on n3"
kill9_launcher n3
start_launcher n3
wait_until 3 "[ \"\$(q \"SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND old_status = 'running' AND new_status = 'planned'\")\" = 1 ]"
ok $? "the new launcher re-queued it at once, before the lease ran out"
# the cause the new launcher heard from the part's keeper, or, where the
# keeper had already left, that it found none (reset_node's cause; before,
# a guess: "node n3 no longer runs it (its launcher restarted or ...)")
like "$(q "SELECT reason FROM mixdnn.job_events WHERE job_id = $job AND old_status = 'running' AND new_status = 'planned'")" \
	"^node n3 handed it back: (its launcher died while it ran|its launcher restarted and found no keeper of it); re-queued after attempt 1\$" \
	"with the reason"
wait_until 20 "[ \"\$(status_of $job)\" = completed ]"
ok $? "and ran it again to completion"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 2 "in attempt 2"
is "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" 0 "no GPU is held at the end"

set_setting mixdnn.lease_timeout ''
done_testing
