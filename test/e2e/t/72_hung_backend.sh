#!/usr/bin/env bash
# A server that stops answering over the Unix socket: the launcher's own
# backend stopped (SIGSTOP; a commit waiting for a synchronous standby
# that is gone hangs the same way). Every call waits for its answer at
# most two heartbeat intervals, at least 10 s plus three of the session's
# mixdnn.lock_timeout (--heartbeat-interval 2 and the 2 s default here:
# 16 s); then the connection is taken for lost. Before, a call
# waited in libpq without bound (no TCP keepalive or tcp_user_timeout
# over a Unix socket, and statement_timeout cannot stop a stopped
# server): SIGUSR2 and SIGTERM did not end the launcher, and it read no
# keeper, until the backend was continued.
#
# 1. SIGUSR2 just after the backend stops: the launcher exits within
#    45 s, leaving its part running; once the backend is continued (its
#    session ends: it cannot answer a client that is gone), the next
#    launcher adopts the part, which completes in attempt 1.
# 2. The backend stops under a running launcher: within 45 s it takes
#    the connection for lost and goes on (it tries to reconnect; the
#    stopped session still holds the node's lock); SIGTERM then ends it
#    within kill grace + 16 s (+ slack), its part stopped, the result
#    not reported; with the backend continued, the next launcher adopts
#    the part's keeper, which kept the result, and reports it: the job
#    ends failed with 143, as every job SIGTERM stops does.
. "$(dirname "$0")/../lib.sh"

reset_cluster

STOPPED=""
cleanup() {	# no process left stopped, even if a check failed
	local p
	for p in $STOPPED; do
		kill -CONT "$p" 2>/dev/null
	done
	stop_all_launchers
}
trap cleanup EXIT

backend_of() {	# backend_of NODE: the pid of its launcher's session
	q "SELECT pid FROM pg_stat_activity WHERE application_name = 'mixdnn-launcher $1'"
}
stop_backend() {
	STOPPED="$STOPPED $1"
	kill -STOP "$1"
}
session_gone() {	# session_gone PID: 0 once the server lists no such backend
	[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE pid = $1")" = 0 ]
}
log_count() {	# log_count REGEX: matching lines of n1's launcher log
	grep -cE -- "$1" "$T/launcher-n1.log"
}
NO_ANSWER='no answer from the server within 16 s: taking the connection for lost'
next_launcher() {	# next_launcher BACKEND LAUNCHER: continues the backend, reaps the launcher that left, starts the next
	kill -CONT "$1"
	wait_until 30 "session_gone $1"
	ok $? "(setup) continued, the stopped session ends"
	wait "$2" 2>/dev/null
	rm -f "$T/launcher-n1.pid"
	start_launcher n1 --heartbeat-interval 2
}

# 1. SIGUSR2
start_launcher n1 --heartbeat-interval 2
lpid=$(launcher_pid n1)
job=$(submit hung-usr2 hard a100 1 "$(job_cmd 25)")
wait_until 30 "[ \"\$(status_of $job)\" = running ]"
ok $? "(setup) the job runs" || diag "$(tail -5 "$T/launcher-n1.log")"
bpid=$(backend_of n1)
stop_backend "$bpid"
sleep 1
t0=$(date +%s)
kill -USR2 "$lpid"
wait_until 45 "! alive $lpid"
ok $? "with its backend stopped, the launcher leaves at SIGUSR2 within 45 s ($(($(date +%s) - t0)) s)" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
is "$(log_count "$NO_ANSWER")" 1 "... having taken the connection for lost after 16 s without an answer"
like "$(tail -1 "$T/launcher-n1.log")" "leaving 1 job parts running for the next launcher of node n1 \(SIGUSR2\)" \
	"... leaving its part running"
next_launcher "$bpid" "$lpid"
wait_until 30 "grep -q 'job $job attempt 1: adopted its keeper' '$T/launcher-n1.log'"
ok $? "the next launcher adopts the part" || diag "$(tail -5 "$T/launcher-n1.log")"
wait_until 60 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the job completes" || diag "$(tail -5 "$T/launcher-n1.log")"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 1 "... in attempt 1"

# 2. steady state, then SIGTERM
lpid=$(launcher_pid n1)
job=$(submit hung-term hard a100 1 "$(job_cmd 60)")
wait_until 30 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "(setup) the job runs" || diag "$(tail -5 "$T/launcher-n1.log")"
bpid=$(backend_of n1)
before=$(log_count "$NO_ANSWER")
stop_backend "$bpid"
wait_until 45 "[ \"\$(log_count '$NO_ANSWER')\" -gt $before ]"
ok $? "with its backend stopped, the launcher takes the connection for lost within 45 s" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
before=$(log_count 'another launcher serves node n1')
wait_until 15 "[ \"\$(log_count 'another launcher serves node n1')\" -gt $before ]"
ok $? "... and goes on: it tries to reconnect (the stopped session holds the node's lock)" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
t0=$(date +%s)
kill -TERM "$lpid"
wait_until 60 "! alive $lpid"
ok $? "SIGTERM ends it within kill grace + 16 s, and some ($(($(date +%s) - t0)) s)" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
pid1=$(env_of "$job" 1 0 PID)
ok "$(alive "$pid1" && echo 1 || echo 0)" "... its part stopped"
like "$(tail -2 "$T/launcher-n1.log")" "could not report 1 results; their leases will expire" \
	"... it could not report the result"
next_launcher "$bpid" "$lpid"
wait_until 30 "[ \"\$(status_of $job)\" = failed ]"
ok $? "the next launcher reports the stopped part's exit (its keeper kept it): the job ends failed, as SIGTERM ends jobs" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
is "$(q "SELECT attempt || '/' || exit_code FROM mixdnn.jobs WHERE job_id = $job")" "1/143" "... in attempt 1, with 143"

stop_all_launchers
done_testing
