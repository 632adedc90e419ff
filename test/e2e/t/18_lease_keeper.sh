#!/usr/bin/env bash
# No part outlives its lease: the launcher passes each renewal to its
# keepers (CLOCK_MONOTONIC deadlines, a little before the database's), and
# a keeper whose lease runs out kills its part, whatever its launcher is
# doing (stopped, hung, cut off from the database). Before, a stopped
# launcher's parts kept running while the database re-queued their jobs
# elsewhere: the job ran twice at once. A part killed so is not reported as
# an exit (the job would fail): the database gives it up and re-queues it.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.lease_timeout 3s
node_of() {	# node_of JOB ATTEMPT
	env_of "$1" "$2" 0 MIXDNN_NODE
}

# --- a healthy launcher renews its keepers' leases: a job of three leases runs once
start_launcher n1
start_launcher n2
job=$(submit renewed hard a100 1 "$(once 9)" '9 s')
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "a job running three times the lease completes" || diag "status $(status_of "$job")"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 1 "in its first attempt: the renewals reached its keeper"

# --- a stopped launcher: its keeper kills the part before the job starts elsewhere
job=$(submit stalled hard a100 1 "$(once 30)" '30 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "a second job runs"
node=$(node_of "$job" 1)
pid=$(env_of "$job" 1 0 PID)
kill -STOP "$(launcher_pid "$node")"
wait_until 8 "! alive $pid"
ok $? "with its launcher ($node) stopped, the part is killed once its lease runs out"
wait_until 20 "[ -f '$T/out/$job-2.previous' ]"
ok $? "the job was re-queued and started again"
is "$(cat "$T/out/$job-2.previous" 2>/dev/null)" dead "when attempt 2 started, attempt 1's process was gone"
ok "$([ "$(node_of "$job" 2)" != "$node" ]; echo $?)" "attempt 2 runs on the other node"
kill -CONT "$(launcher_pid "$node")"
wait_until 10 "grep -q 'job $job attempt 1: given up, not reported as an exit: its lease ran out: no launcher renewed it in time' '$T/launcher-$node.log'"
ok $? "the launcher, resumed, does not report the killed part as an exit"
is "$(status_of "$job")" running "the job keeps running in attempt 2"
is "$(q "SELECT reason FROM mixdnn.job_events WHERE job_id = $job AND old_status = 'running' AND new_status = 'planned'")" \
	"launcher of node $node stopped heartbeating; re-queued after attempt 1" "attempt 1 was lost with the lease"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
ok $? "cancelled, it lets go of its GPUs"

# --- a lock holds a part's lease back in the database: its keeper is not renewed either
# (before, the launcher renewed every keeper, and the job could run twice
# once the lock went and the database gave the stale lease up)
job=$(submit locked hard a100 1 "$(once 30)" '30 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "a fourth job runs"
node=$(node_of "$job" 1)
pid=$(env_of "$job" 1 0 PID)
# held as a cancel or a finish under way holds it, for more than two leases
psql -X -q -c "BEGIN" -c "SELECT 1 FROM mixdnn.job_parts WHERE job_id = $job FOR NO KEY UPDATE" \
	-c "SELECT pg_sleep(7)" -c "ROLLBACK" >/dev/null 2>&1 &
locker=$!
wait_until 6 "! alive $pid"
ok $? "with its row locked, the part is killed when its keeper's lease runs out"
grep -q "job $job attempt 1: the server did not renew its lease (its row is locked)" "$T/launcher-$node.log"
ok $? "the launcher says why it did not renew that keeper"
wait "$locker"
wait_until 20 "[ -f '$T/out/$job-2.previous' ]"
ok $? "once the lock is gone the job is re-queued and started again"
is "$(cat "$T/out/$job-2.previous" 2>/dev/null)" dead "when attempt 2 started, attempt 1's process was gone"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
ok $? "cancelled, it lets go of its GPUs"

# --- a lease shortened since the last heartbeat: a part claimed now keeps the new one
# (before, its keeper believed the lease of the heartbeat before: 60 s here),
# and the launcher's next heartbeat comes in time for it (before, up to 10 s
# later: the part died with a healthy launcher)
shorten_lease() {	# from 60 s, which each launcher learns: its next heartbeat is 10 s away
	set_setting mixdnn.lease_timeout 60s
	sleep 3.5
	set_setting mixdnn.lease_timeout 3s
	# a session reads a reloaded setting after its next statement: the launchers poll every 2 s
	sleep 2.5
}
shorten_lease
job=$(submit shortened hard a100 1 "$(once 30)" '30 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
node=$(node_of "$job" 1)
kill -STOP "$(launcher_pid "$node")"
ok "$([ -n "$node" ]; echo $?)" "a fifth job runs; its launcher is stopped at once"
pid=$(env_of "$job" 1 0 PID)
wait_until 8 "! alive $pid"
ok $? "the part dies within the 3 s lease its claim gave"
kill -CONT "$(launcher_pid "$node")"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
ok $? "cancelled, it lets go of its GPUs"

shorten_lease
job=$(submit healthy hard a100 1 "$(once 30)" '30 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "a sixth job runs"
pid=$(env_of "$job" 1 0 PID)
sleep 5
alive "$pid"
ok $? "with its launcher running, it outlives the 3 s lease: the next heartbeat came in time"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
ok $? "cancelled, it lets go of its GPUs"

# --- the database away for longer than the lease: killed, then re-queued, not failed
if [ -n "${MIXDNN_E2E_PGDATA:-}" ]; then
	set_setting mixdnn.lease_timeout 4s
	# the launchers learn the new lease at their next heartbeat
	sleep 2
	job=$(submit away hard a100 1 "$(once 6)" '6 s')
	wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
	ok $? "a third job runs"
	pid=$(env_of "$job" 1 0 PID)
	server_ctl stop -m fast
	wait_until 10 "! alive $pid"
	ok $? "with the database down, the part is killed once its lease runs out"
	server_ctl start
	wait_until 40 "[ \"\$(status_of $job)\" = completed ]"
	ok $? "after the restart the job runs again and completes" || diag "status $(status_of "$job"), reason $(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $job")"
	is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 2 "in attempt 2: the killed part was given up, not reported as failed"
	is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND new_status = 'failed'")" 0 "it never failed"
else
	skip 5 "MIXDNN_E2E_PGDATA is not set: cannot stop the server"
fi
is "$(gpu_overlaps)" "" "no GPU ran two jobs at the same time"
set_setting mixdnn.lease_timeout ''
done_testing
