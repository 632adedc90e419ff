#!/usr/bin/env bash
# A job is its whole process tree: cancelling a job whose processes escaped
# its process group (GNU timeout, setsid, a double fork, nohup ... &, one
# ignoring SIGTERM) ends every one of them, with a cgroup per part and with
# the subreaper fallback (--no-cgroups); a command that exits leaves nothing;
# a launcher stopped with SIGTERM, or a keeper killed, ends the part too.
. "$(dirname "$0")/../lib.sh"

# Each command leaves a process running "sleep N.S" with a marker N and
# this run's S, so that another run on the machine (two e2e suites at once)
# neither counts nor kills this one's processes.
S=$(( $$ % 90000 + 10000 ))
escapes=(
	"exec timeout 40 sleep 3017.$S"
	"setsid sleep 3018.$S & sleep 3019.$S"
	"(sh -c 'sleep 3020.$S &' &); sleep 3021.$S"
	"nohup sleep 3022.$S >/dev/null 2>&1 & sleep 3023.$S"
)
markers=$(for m in $(seq 3017 3028); do echo "$m.$S"; done)

running() {	# how many processes of the markers are alive
	local n=0 m
	for m in $markers; do n=$((n + $(pgrep -c -x -f "sleep $m" 2>/dev/null || true))); done
	echo "$n"
}

for mode in cgroup subreaper; do
	reset_cluster
	pkill -x -f "sleep 30(1[7-9]|2[0-6])\.$S" 2>/dev/null
	opts=()
	[ "$mode" = subreaper ] && opts=(--no-cgroups)
	start_launcher n1 "${opts[@]}"
	ids=()
	for cmd in "${escapes[@]}"; do ids+=("$(submit "escape" hard a100 1 "$cmd" '1 h')"); done
	wait_until 15 '[ "$(running)" -ge 7 ]'
	ok $? "$mode: four jobs started, with processes outside their process groups ($(running) running)"
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id IN ($(IFS=,; echo "${ids[*]}"))" >/dev/null
	wait_until 10 '[ "$(running)" = 0 ]'
	ok $? "$mode: cancelling them ended every process (left: $(pgrep -a -f "sleep 30[12][0-9]\.$S" | tr '\n' ';'))"
	wait_until 5 "grep -c 'reported exit code' '$T/launcher-n1.log' | grep -qx 4"
	ok $? "$mode: the launcher reported the four parts once they were gone"

	# Ignores SIGTERM in a new session: ends at SIGKILL, after the grace period.
	job=$(submit stubborn hard a100 1 "setsid sh -c 'trap \"\" TERM; sleep 3024.$S' & trap '' TERM; sleep 3025.$S" '1 h')
	wait_until 10 '[ "$(running)" -ge 2 ]'
	ok $? "$mode: a job ignoring SIGTERM runs"
	# A lower bound only, which no load can break: SIGKILL comes 2 s after the stop.
	cancelled_at=$(date +%s.%N)
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
	wait_until 15 '[ "$(running)" = 0 ]'
	ok $? "$mode: SIGKILL after the grace period ended all of it"
	took=$(awk -v a="$cancelled_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	ok "$(awk -v t="$took" 'BEGIN { exit !(t >= 2) }'; echo $?)" "$mode: not before the grace period of 2 s ($took s)"

	# Forks and exits over and over, ignoring SIGTERM, so its pid never stays
	# long; it rewrites a file every 50 forks. Without a cgroup one pass over
	# /proc missed it, and it outlived its cancel and the launcher.
	beat=$T/out/mover-$mode
	job=$(submit mover hard a100 1 "perl -e '\$SIG{TERM} = q(IGNORE); for (\$i = 0;; \$i++) { exit if fork; if (\$i % 50 == 0) { open(my \$h, q(>), q($beat)); print \$h \$i; close(\$h) } }' & sleep 3027.$S" '1 h')
	wait_until 10 "[ -s '$beat' ]"
	ok $? "$mode: a job that forks and exits without end runs"
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
	wait_until 15 "grep -q 'n1: job $job attempt 1 exited' '$T/launcher-n1.log'"
	ok $? "$mode: its keeper reports it ended"
	b1=$(cat "$beat" 2>/dev/null)
	sleep 1
	b2=$(cat "$beat" 2>/dev/null)
	is "$b2" "$b1" "$mode: ... and it did: its file no longer changes"

	# A command that exits leaves nothing behind, and only then is it reported.
	job=$(submit leaves hard a100 1 "setsid sleep 3026.$S & sleep 0.5; exit 3" '1 h')
	wait_until 10 "[ \"\$(status_of $job)\" = failed ]"
	ok $? "$mode: a command that exits with 3 fails its job"
	is "$(running)" 0 "$mode: the process it left in another session is gone"
	is "$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $job")" 3 "$mode: the job's exit code is the command's"
	if [ "$mode" = cgroup ]; then
		job=$(submit where hard a100 1 "grep '^0::' /proc/self/cgroup > $T/out/cgroup-$mode" '1 h')
		wait_until 10 "[ \"\$(status_of $job)\" = completed ]"
		ok "$(grep -Eq -- "^0::.*/mixdnn-postgres-.*-n1-j$job-a1-t[0-9a-f]{32}\$" "$T/out/cgroup-$mode"; echo $?)" \
			"cgroup: a job's process is born in its part's cgroup ($(cat "$T/out/cgroup-$mode" 2>/dev/null))"
	fi
	stop_launcher n1
	[ "$mode" = cgroup ] && {
		grep -q "gets a cgroup under" "$T/launcher-n1.log"
		ok $? "cgroup: the launcher used a cgroup per part"
		# Only this installation's (other clusters on the machine have their own).
		mine=$(sed -n 's|^0::.*/\(mixdnn-.*\)-n1-j.*|\1|p' "$T/out/cgroup-cgroup" 2>/dev/null)
		is "$(ls -d /sys/fs/cgroup/unified/"${mine:-mixdnn-}"* 2>/dev/null | grep -c -- "-n1-j" )" 0 "cgroup: and removed them"
	}
	mv "$T/launcher-n1.log" "$T/launcher-n1-$mode.log.old"
done

# stubborn NAME A B: a job on n3's two GPUs ignoring SIGTERM (sleeps A and B)
stubborn() {
	job=$(submit "$1" hard v100 2 "trap '' TERM; setsid sh -c 'trap \"\" TERM; sleep $2' & sleep $3" '1 h')
	wait_until 10 "[ \"\$(pgrep -c -x -f 'sleep ($2|$3)')\" -ge 2 ]"
	ok $? "$1: a job ignoring SIGTERM runs on n3's two GPUs"
}
# next_after_cancel NAME A B: cancel $job, a job on its GPUs; it saw none of A and B
next_after_cancel() {
	next=$(submit "$1" hard v100 2 "echo \$(pgrep -c -x -f 'sleep ($2|$3)') > $T/out/$1-saw; $(job_cmd 0.1)" '1 s')
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
	wait_until 15 "[ \"\$(status_of $next)\" = completed ]"
	ok $? "$1: the next job on those GPUs ran"
	is "$(cat "$T/out/$1-saw" 2>/dev/null)" 0 "$1: it started only once no process of the cancelled job was left"
}

# The database frees a cancelled job's GPUs at once; the launcher starts the
# next job on them only once the cancelled one's processes are gone.
start_launcher n3 --kill-grace 3
stubborn stubborn 3024.$S 3025.$S
next_after_cancel next 3024.$S 3025.$S
ok "$(grep -q "job $next attempt 1 waits: GPUs 0,1 still run processes of job $job" "$T/launcher-n3.log"; echo $?)" \
	"the launcher said why it waited"

# The same after a restart (SIGUSR2): the launcher that adopts the part
# learns its GPUs from its keeper. Before, an adopted part held none, and
# the next job started on GPUs its processes still used.
stubborn stubborn2 3027.$S 3028.$S
pid=$(launcher_pid n3)
kill -USR2 "$pid"
wait "$pid"
adopted=$(grep -c "adopted 1 running job parts" "$T/launcher-n3.log")
start_launcher n3 --kill-grace 3
wait_until 10 "[ \"\$(grep -c 'adopted 1 running job parts' '$T/launcher-n3.log')\" -gt $adopted ]"
ok $? "a new launcher of n3 adopts it"
next_after_cancel next2 3027.$S 3028.$S

# An adopted part whose keeper does not answer (stopped here) holds the
# GPUs the database says, not all of the node's: a job on n3's other GPU
# starts at once.
one=$(submit one hard v100 1 "$(job_cmd 60)" '1 min')
wait_until 10 "grep -q 'job $one attempt 1 started: keeper' '$T/launcher-n3.log'"
keeper=$(sed -n "s/.*job $one attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n3.log")
kill -STOP "$keeper"
pid=$(launcher_pid n3)
kill -USR2 "$pid"
wait "$pid"
start_launcher n3 --kill-grace 3
other=$(submit other hard v100 1 "$(job_cmd 1)" '1 s')
wait_until 10 "[ \"\$(status_of $other)\" = completed ]"
ok $? "with the keeper of an adopted part stopped, a job on the node's other GPU runs" \
	|| diag "$(grep -E "job ($one|$other)" "$T/launcher-n3.log" | tail -4)"
kill -CONT "$keeper"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $one" >/dev/null
wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
ok $? "cancelled, it lets go of its GPUs"

# A launcher stopped with SIGTERM ends what escaped too.
q "UPDATE mixdnn.gpu_nodes SET status = 'draining' WHERE node = 'n1'" >/dev/null
start_launcher n2
job=$(submit escaped hard a100 1 "setsid sleep 3018.$S & sleep 3019.$S" '1 h')
wait_until 10 '[ "$(running)" -ge 2 ]'
ok $? "a job with a process in another session runs on n2"
stop_launcher n2
is "$(running)" 0 "SIGTERM to the launcher ended all of it before it exited"
is "$(status_of "$job")" failed "and the job was reported failed"

# A keeper killed with SIGKILL: the launcher ends the part through its cgroup.
start_launcher n2
job=$(submit keeperless hard a100 1 "setsid sleep 3018.$S & sleep 3019.$S" '1 h')
wait_until 10 '[ "$(running)" -ge 2 ]'
keeper=$(sed -n "s/.*job $job attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n2.log")
kill -KILL "$keeper"
wait_until 10 '[ "$(running)" = 0 ]'
ok $? "killing the keeper: the launcher killed the part's cgroup"
wait_until 10 "[ \"\$(status_of $job)\" = failed ]"
is "$(q "SELECT exit_code || ' ' || reason FROM mixdnn.jobs WHERE job_id = $job")" \
	"137 exited with code 137 on node n2: its keeper process died" "and reported 137 with the reason"
done_testing
