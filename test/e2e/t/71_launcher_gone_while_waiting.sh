#!/usr/bin/env bash
# A launcher gone while a part waits to fork. One that dies (kill -9)
# while a part's keeper waits to fork the job's command (its fork failed
# for want of processes, --fork-retry): the keeper gives the part up as
# for a running part, and the job's reason (reset_node's cause, heard by
# the next launcher) says so as it was: "its launcher died while it
# waited to fork the command", not "its launcher died while it ran"
# (before: a command that never ran). One that leaves with SIGUSR2 while
# a part waits to fork its keeper (below). Either part spends an attempt,
# as every part given up does (the database cannot tell a launch that
# never ran a command from one that did).
#
# RLIMIT_NPROC as in t/70: the launcher runs as an account of its own,
# limited to 2 processes (the launcher and its keeper: the keeper's fork
# of the command fails), or 1 (its fork of a keeper fails). The next
# launcher must hear the keeper before it leaves (it does within about
# 0.1 s of its launcher's death): the keeper is stopped (SIGSTOP) once it
# has seen its launcher go, and continued once the next launcher has
# connected to it.
. "$(dirname "$0")/../lib.sh"

# Another session holds the scheduler lock (as a round does) until released.
hold_scheduler_lock() {
	psql -X -q -c "BEGIN; SELECT mixdnn._lock_scheduler_now(); SELECT pg_sleep(60); COMMIT" >/dev/null 2>&1 &
	locker=$!
	wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%_lock_scheduler_now()%'\")\" = 1 ]"
	ok $? "(setup) the scheduler lock is held" || diag "$(tail -5 "$T/launcher-n1.log")"
}
release_scheduler_lock() {
	kill "$locker" 2>/dev/null
	q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'
	   AND query LIKE '%_lock_scheduler_now()%'" >/dev/null
	wait "$locker" 2>/dev/null
}
leave_usr2() {	# SIGUSR2 to n1's launcher ($lpid), and its exit
	kill -USR2 "$lpid"
	wait "$lpid"
	rm -f "$T/launcher-n1.pid"
}

nproc_account mxe2e_nproc71
U=$NPROC_USER

nproc_cluster

reasons() {	# reasons JOB: the reasons of its re-queues, one a line
	q "SELECT reason FROM mixdnn.job_events WHERE job_id = $1 AND old_status = 'running'
	   AND new_status = 'planned' ORDER BY event_id"
}
sockets_of() {	# sockets_of PID: how many sockets the process has open
	ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'socket:'
}

start_limited 2
job=$(submit fork-waits hard a100 1 "$(job_cmd 0.5)")
wait_until 30 "[ \"\$(cmd_tries $job)\" -ge 1 ]"
ok $? "(setup) the keeper waits to fork the command (RLIMIT_NPROC 2)" || diag "$(tail -5 "$T/launcher-n1.log")"
kpid=$(pgrep -u "$U" -x mixdnn-keeper)
kill -STOP "$kpid"
kill9_launcher n1
# continued until it has closed its dead launcher's connection (its
# listening socket is left), then
# stopped again before it leaves
for i in $(seq 50); do
	kill -CONT "$kpid"
	sleep 0.02
	kill -STOP "$kpid"
	[ "$(sockets_of "$kpid")" -le 1 ] && break
done
is "$(sockets_of "$kpid")" 1 "(setup) the keeper has seen its launcher die, and has not left"
start_limited "$(ulimit -Hu)"
wait_until 30 "grep -q 'job $job attempt 1: adopted its keeper' '$T/launcher-n1.log'"
ok $? "(setup) the next launcher connects to it" || diag "$(tail -5 "$T/launcher-n1.log")"
kill -CONT "$kpid"
wait_until 30 "[ -n \"\$(reasons $job)\" ]"
is "$(reasons "$job")" \
	"node n1 handed it back: its launcher died while it waited to fork the command; re-queued after attempt 1" \
	"the job's reason says its launcher died while the keeper waited to fork the command (no command ran)"
grep -q "job $job attempt 1: given up, not reported as an exit: its launcher died while it waited to fork the command" \
	"$T/launcher-n1.log"
ok $? "... and so does the launcher's log" || diag "$(grep "job $job" "$T/launcher-n1.log" | tail -5)"
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the job runs again and completes"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")/$(ls "$T/out/$job-"*.env 2>/dev/null | wc -l)" "2/1" \
	"... in attempt 2, its only run (attempt 1 never ran its command, and spent an attempt)"
stop_launcher n1

# SIGUSR2 (the jobs left running for the next launcher) while a part
# waits to fork its keeper (RLIMIT_NPROC 1: the launcher alone): the part
# has no keeper to leave running, and the launcher hands it back before
# it exits, saying why; before, it said it left the part running, and the
# job waited for the next launcher to find no keeper of it ("its launcher
# restarted and found no keeper of it"), or for its lease to run out.
tries() {	# tries JOB: the launcher's failed forks of the job's keeper that it will try again
	grep -c "job $1 attempt [0-9]*: cannot start the keeper: .*; it waits, the next try in" "$T/launcher-n1.log"
}
start_limited 1
lpid=$(launcher_pid n1)
job=$(submit usr2-waits hard a100 1 "$(job_cmd 0.5)")
wait_until 30 "[ \"\$(tries $job)\" -ge 1 ]"
ok $? "(setup) the part waits to fork its keeper (RLIMIT_NPROC 1)" || diag "$(tail -5 "$T/launcher-n1.log")"
leave_usr2
grep -q "leaving 0 job parts running for the next launcher of node n1 (SIGUSR2)" "$T/launcher-n1.log"
ok $? "the launcher leaves with SIGUSR2, counting no part left running" || diag "$(tail -5 "$T/launcher-n1.log")"
wait_until 5 "[ -n \"\$(reasons $job)\" ]"
is "$(reasons "$job")" \
	"node n1 handed it back: its launcher left (SIGUSR2) while the part waited to fork its keeper; re-queued after attempt 1" \
	"the waiting part is handed back at once, and the job's reason says why"
start_limited "$(ulimit -Hu)"
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "with the next launcher, the job runs and completes"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 2 "... in attempt 2 (attempt 1 spent, as a part given up is)"

stop_launcher n1

# SIGUSR2 while three parts wait to fork their keepers and the scheduler
# lock is held (reset_node refused for now after mixdnn.lock_timeout,
# 2 s): the launcher stops handing back at the first refusal, leaving the
# rest to the next launcher, and exits; before, it waited the lock
# timeout once for each part (3 x 2 s here, up to 600 s each).
# submitted before the launcher starts: its first claim has all three
# (it claims no more while a fork of a keeper fails)
jobs3=""
for i in 1 2 3; do
	jobs3="$jobs3 $(submit usr2-busy-$i hard a100 1 "$(job_cmd 0.5)")"
done
start_limited 1
lpid=$(launcher_pid n1)
waiting3=0
for j in $jobs3; do
	# the first fork fails; the parts claimed with it wait for the node's next try
	wait_until 30 "grep -Eq 'job $j attempt 1(: cannot start the keeper: .*; it waits| waits: the node could fork no keeper)' \
		'$T/launcher-n1.log'" && waiting3=$((waiting3 + 1))
done
hold_scheduler_lock
is "$waiting3" 3 "(setup) three parts wait to fork their keepers (RLIMIT_NPROC 1)"
before=$(grep -c 'reset_node refused for now' "$T/launcher-n1.log")
leave_usr2
is "$(( $(grep -c 'reset_node refused for now' "$T/launcher-n1.log") - before ))" 1 \
	"with the scheduler lock held, the launcher leaving with SIGUSR2 tries one hand-back, not one for each waiting part"
release_scheduler_lock
start_limited "$(ulimit -Hu)"
done3=0
for j in $jobs3; do
	wait_until 30 "[ \"\$(status_of $j)\" = completed ]" && done3=$((done3 + 1))
done
is "$done3" 3 "with the next launcher, the three jobs run and complete"
stop_launcher n1

# slow_hand_back JOB-NAME WHAT SET-CMD RESET-CMD [RAISE-CMD]: the hand-back
# at SIGUSR2 of a part waiting to fork its keeper, with the scheduler lock
# held and mixdnn.lock_timeout set by SET-CMD (before the launcher starts)
# or RAISE-CMD (while it runs), waits out the lock and is refused for now
# (55P03), as the server's bound says; the connection is not taken for lost.
slow_hand_back() {
	local before lost_before
	eval "$3"
	job=$(submit "$1" hard a100 1 "$(job_cmd 0.5)")
	start_limited 1 --heartbeat-interval 2
	lpid=$(launcher_pid n1)
	wait_until 30 "grep -Eq 'job $job attempt 1(: cannot start the keeper: .*; it waits| waits: the node could fork no keeper)' \
		'$T/launcher-n1.log'"
	ok $? "(setup) the part waits to fork its keeper" || diag "$(tail -5 "$T/launcher-n1.log")"
	[ -n "${5:-}" ] && { eval "$5"; sleep 3; }	# then a heartbeat (2 s)
	hold_scheduler_lock
	before=$(grep -c 'reset_node refused for now' "$T/launcher-n1.log")
	lost_before=$(grep -c 'no answer from the server' "$T/launcher-n1.log")
	leave_usr2
	is "$(( $(grep -c 'reset_node refused for now' "$T/launcher-n1.log") - before ))" 1 \
		"with mixdnn.lock_timeout $2, the hand-back waits out the lock and is refused for now (55P03)"
	is "$(( $(grep -c 'no answer from the server' "$T/launcher-n1.log") - lost_before ))" 0 \
		"... and the launcher does not take its connection for lost meanwhile" || diag "$(tail -5 "$T/launcher-n1.log")"
	release_scheduler_lock
	eval "$4"
	start_limited "$(ulimit -Hu)"
	wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
	ok $? "with the next launcher, the job runs and completes"
	stop_launcher n1
}

# mixdnn.lock_timeout (12 s) above the launcher's answer wait for its
# heartbeat alone (2 x 2 s, at least 10 s): the launcher reads the
# setting when it connects and waits 10 s + 3 x 12 s for an answer.
slow_hand_back usr2-slow-lock "12 s" \
	"q \"ALTER ROLE $E2E_LAUNCHER_ROLE SET mixdnn.lock_timeout = '12s'\" >/dev/null" \
	"q \"ALTER ROLE $E2E_LAUNCHER_ROLE RESET mixdnn.lock_timeout\" >/dev/null"
# mixdnn.lock_timeout raised to 20 s (above the 16 s the launcher computed
# when it connected) while the launcher runs: ALTER SYSTEM and a reload,
# which its session takes. The launcher reads the setting again after each
# heartbeat; before, it kept the bound of its connection and took the
# connection for lost after 16 s.
slow_hand_back usr2-reloaded-lock "raised to 20 s by a reload" : \
	"set_setting mixdnn.lock_timeout ''" "set_setting mixdnn.lock_timeout 20s"

stop_all_launchers
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node IN ('n2', 'n3')" >/dev/null
set_setting mixdnn.max_retries ''
psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" >/dev/null 2>&1
done_testing
