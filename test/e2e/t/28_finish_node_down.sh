#!/usr/bin/env bash
# A launcher's finish() and an admin setting the node down, at once, never
# deadlock. finish() took the job's row, then waited for the scheduler lock;
# setting a node down takes the scheduler lock, then the rows of the jobs
# it re-queues: one of them was aborted (deadlock detected) a second later,
# and the launcher's report of a part that had ended with 0 came after the
# node's re-queue, so the job ran again (the soak caught it). finish() now
# takes the scheduler lock first and the row without waiting. The admin's
# transaction holds the scheduler lock until finish() waits for it, so the
# order is forced, not timed; then the same in plan_mode = worker.
. "$(dirname "$0")/../lib.sh"

reset_cluster
job=$(submit wide hard a100 4 "true" '60 s')
wait_until 20 "[ \"\$(status_of $job)\" = launching ]"
ok $? "the worker launches a job on a whole node"
node=$(q "SELECT node FROM mixdnn.job_parts WHERE job_id = $job")
is "$(q "SELECT count(*) FROM mixdnn.claim('$node')")" 1 "its node's launcher (by hand) claims it: running"

session_open admin
session_send "BEGIN; SELECT mixdnn._lock_scheduler_now(); SELECT 'locked';"
wait_until 10 "grep -q locked '$T/admin.out'"
ok $? "an admin's transaction holds the scheduler lock" || diag "$(cat "$T/admin.out")"
# its wait bounded by 30 s, not the 2 s default: a slow machine must not make it give up first
PGOPTIONS="-c mixdnn.lock_timeout=30s" psql -X -q -A -t -c "SELECT mixdnn.finish($job, 0, '$node')" >"$T/finish.out" 2>&1 &
finisher=$!
wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT mixdnn.finish($job,%' AND wait_event_type = 'Lock'\")\" = 1 ]"
ok $? "the part's finish() waits for it"
session_send "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = '$node'; SELECT 'downed';"
wait_until 10 "grep -q -e downed -e ERROR '$T/admin.out'"
session_send "COMMIT;"
session_close
wait "$finisher"
ok "$(grep -q downed "$T/admin.out" && ! grep -q ERROR "$T/admin.out"; echo $?)" \
	"the admin sets the node down, re-queuing the job" || diag "$(cat "$T/admin.out")"
is "$(cat "$T/finish.out")" f "the finish() that came after is stale (false), not a deadlock"
is "$(q "SELECT state FROM mixdnn.job_parts WHERE job_id = $job AND attempt = 1")" lost \
	"its first attempt's part is lost, as the node went down first"
is "$(q "SELECT status <> 'completed' FROM mixdnn.jobs WHERE job_id = $job")" t "and the job is to run again"
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = '$node'" >/dev/null

# plan_mode = worker: a change to a node takes no scheduler lock; the
# admin's transaction holds the node's row, and setting it down waits for
# the rows of the jobs it re-queues. finish() takes the node's row before
# the job's (a review: taking the job's first, it deadlocked here too).
set_setting mixdnn.plan_mode worker
job=$(submit wide2 hard a100 4 "true" '60 s')
wait_until 20 "[ \"\$(status_of $job)\" = launching ]"
ok $? "plan_mode worker: the worker launches another job on a whole node"
node=$(q "SELECT node FROM mixdnn.job_parts WHERE job_id = $job")
is "$(q "SELECT count(*) FROM mixdnn.claim('$node')")" 1 "it is claimed: running"
session_open admin2
session_send "BEGIN; SELECT 'held' FROM mixdnn.gpu_nodes WHERE node = '$node' FOR NO KEY UPDATE;"
wait_until 10 "grep -q held '$T/admin2.out'"
ok $? "an admin's transaction holds the node's row" || diag "$(cat "$T/admin2.out")"
PGOPTIONS="-c mixdnn.lock_timeout=30s" psql -X -q -A -t -c "SELECT mixdnn.finish($job, 0, '$node')" >"$T/finish2.out" 2>&1 &
finisher=$!
wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT mixdnn.finish($job,%' AND wait_event_type = 'Lock'\")\" = 1 ]"
ok $? "the part's finish() waits for it"
session_send "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = '$node'; SELECT 'downed';"
wait_until 10 "grep -q -e downed -e ERROR '$T/admin2.out'"
session_send "COMMIT;"
session_close
wait "$finisher"
ok "$(grep -q downed "$T/admin2.out" && ! grep -q ERROR "$T/admin2.out"; echo $?)" \
	"the admin sets the node down" || diag "$(cat "$T/admin2.out")"
is "$(cat "$T/finish2.out")" f "the finish() that came after is stale (false), not a deadlock"
is "$(q "SELECT state FROM mixdnn.job_parts WHERE job_id = $job AND attempt = 1")" lost \
	"its first attempt's part is lost"
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = '$node'" >/dev/null
set_setting mixdnn.plan_mode ''
done_testing
