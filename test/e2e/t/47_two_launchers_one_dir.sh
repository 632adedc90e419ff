#!/usr/bin/env bash
# One launcher per state directory. The database's node lock belongs to the
# first launcher's session: when that session dropped, a second launcher of
# the node with the same state directory took the lock and adopted the
# first one's keepers, which then lost their launcher and killed the job
# (it stayed "running" with nothing running). The second now waits for the
# directory's lock, so the first reconnects and keeps its job.
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n1
# its own output directory: job ids start again at 1 after reset_cluster,
# and an earlier test's job 1 left its files in $T/out
out=$T/out47
mkdir -p "$out" && chmod 777 "$out"
job=$(submit kept hard a100 1 "sh $E2E_DIR/job.sh $out 20 0" '20 s')
wait_until 20 "[ \"\$(status_of $job)\" = running ] && [ -f '$out/$job-1-0.env' ]"
ok $? "a 20 s job runs under the first launcher of n1"
pid=$(sed -n 's/^PID=//p' "$out/$job-1-0.env")

# A second launcher of n1 with the same state directory.
PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n1 --poll-interval 2 --kill-grace 2 \
	--state-dir "$T/state-n1" "${E2E_MIN_UID[@]}" >"$T/second-n1.log" 2>&1 &
second=$!
wait_until 10 "grep -q 'another launcher uses state directory' '$T/second-n1.log'"
ok $? "the second launcher waits for the state directory's lock"

# The first one's session is cut while it is stopped (a hang, a network
# cut): the database's node lock stays free for longer than the second
# one's retry interval (at most 5 s), well within the lease.
kill -STOP "$(launcher_pid n1)"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '$E2E_LAUNCHER_ROLE'" >/dev/null
sleep 8
kill -CONT "$(launcher_pid n1)"
sleep 4
ok "$(grep -q 'adopted' "$T/second-n1.log"; [ $? -ne 0 ]; echo $?)" "the second launcher adopted nothing"
alive "$pid"
ok $? "the job's process still runs"
ok "$(grep -q "its keeper .* died" "$T/launcher-n1.log"; [ $? -ne 0 ]; echo $?)" \
	"the first launcher lost no keeper" || diag "$(tail -5 "$T/launcher-n1.log")"
wait_until 40 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the job completes under the first launcher" || diag "status $(status_of "$job")"
kill "$second" 2>/dev/null
wait "$second" 2>/dev/null
stop_launcher n1
done_testing
