#!/usr/bin/env bash
# A launcher's finish() and an admin setting the node down, at once, never
# deadlock. finish() took the job's row, then waited for the scheduler lock;
# setting a node down takes the scheduler lock, then the rows of the jobs
# it re-queues: one of them was aborted (deadlock detected) a second later,
# and the launcher's report of a part that had ended with 0 came after the
# node's re-queue, so the job ran again (the soak caught it). finish() now
# takes the scheduler lock, the node's row, then the job's row without
# waiting. The admin's transaction holds what finish() waits for until it
# waits, so the order is forced, not timed: in plan_mode commit the
# scheduler lock, in plan_mode worker (a change to a node takes no
# scheduler lock there) the node's row.
. "$(dirname "$0")/../lib.sh"

reset_cluster

race() {	# race MODE HOLD_SQL: a job runs on a whole node; the admin holds, finish() waits, the admin sets the node down
	local mode=$1 hold=$2 job node finisher
	job=$(submit "wide-$mode" hard a100 4 "true" '60 s')
	wait_until 20 "[ \"\$(status_of $job)\" = launching ]"
	ok $? "$mode: the worker launches a job on a whole node"
	node=$(q "SELECT node FROM mixdnn.job_parts WHERE job_id = $job")
	is "$(q "SELECT count(*) FROM mixdnn.claim('$node')")" 1 "$mode: its node's launcher (by hand) claims it: running"
	session_open "admin-$mode"
	session_send "BEGIN; $(printf "$hold" "$node"); SELECT 'held';"
	wait_until 10 "grep -q held '$T/admin-$mode.out'"
	ok $? "$mode: an admin's transaction holds what finish() takes first" || diag "$(cat "$T/admin-$mode.out")"
	# its wait bounded by 30 s, not the 2 s default: a slow machine must not make it give up first
	PGOPTIONS="-c mixdnn.lock_timeout=30s" psql -X -q -A -t -c "SELECT mixdnn.finish($job, 0, '$node')" \
		>"$T/finish-$mode.out" 2>&1 &
	finisher=$!
	wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT mixdnn.finish($job,%' AND wait_event_type = 'Lock'\")\" = 1 ]"
	ok $? "$mode: the part's finish() waits for it"
	session_send "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = '$node'; SELECT 'downed';"
	wait_until 10 "grep -q -e downed -e ERROR '$T/admin-$mode.out'"
	session_send "COMMIT;"
	session_close
	wait "$finisher"
	ok "$(grep -q downed "$T/admin-$mode.out" && ! grep -q ERROR "$T/admin-$mode.out"; echo $?)" \
		"$mode: the admin sets the node down, re-queuing the job" || diag "$(cat "$T/admin-$mode.out")"
	is "$(cat "$T/finish-$mode.out")" f "$mode: the finish() that came after is stale (false), not a deadlock"
	is "$(q "SELECT state FROM mixdnn.job_parts WHERE job_id = $job AND attempt = 1")" lost \
		"$mode: its first attempt's part is lost, as the node went down first"
	is "$(q "SELECT status <> 'completed' FROM mixdnn.jobs WHERE job_id = $job")" t "$mode: and the job is to run again"
	q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = '$node'" >/dev/null
}

race commit "SELECT mixdnn._lock_scheduler_now(), '%s'::text"
set_setting mixdnn.plan_mode worker
race worker "SELECT FROM mixdnn.gpu_nodes WHERE node = '%s' FOR NO KEY UPDATE"
set_setting mixdnn.plan_mode ''
done_testing
