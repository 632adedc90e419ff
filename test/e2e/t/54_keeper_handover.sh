#!/usr/bin/env bash
# A part's keeper and the launchers around it, where one could take a
# killed part for the job's result or free GPUs a part still runs on. A
# process slow to die (in the GPU driver's teardown, say) is played by the
# part's command frozen in a cgroup v1 freezer: SIGKILL waits until it is
# thawed, as it waits for a process in uninterruptible sleep.
#  1. a detached keeper that nobody adopted in time kills its part; a
#     launcher that connects while it dies holds its GPU, then re-queues the
#     job (before, it reported the SIGKILL as the job's exit 137: failed);
#  2. a launcher killed while its part runs: the next launcher holds the
#     part's GPU until the part is gone, then re-queues the job (before, the
#     keeper refused it, and it gave the GPU up after at most 2 s);
#  3. a launcher that connects as the keeper leaves (gdb holds the keeper
#     at its socket's unlink()) is answered, not reset (before, it took the
#     reset for a dead keeper and failed the job with 137; skipped where gdb
#     cannot attach);
#  4. a launcher that cannot connect to a keeper's socket starts no keeper:
#     the job fails with the reason and no command runs. (It used to fork
#     the keeper first and connect after, and a connection failing there
#     left the command running on GPUs its report of 126 freed; running
#     out of descriptors cannot make that connection fail, since the fork's
#     closing of the listening socket frees one, so this checks the new
#     order's own failure path: without it, the command ran with the
#     launcher's exhausted limit and failed on its own.)
. "$(dirname "$0")/../lib.sh"

reset_cluster
# long enough that a launcher started on a busy machine renews the database's
# lease in time, and that the keeper's adoption deadline (6 s) comes well
# before its own lease's (8.1 s)
set_setting mixdnn.lease_timeout 9s
kill_pending() {	# kill_pending PID: SIGKILL sent to it and not yet taken
	[ $((0x$(sed -n 's/^ShdPnd:\t*//p' "/proc/$1/status" 2>/dev/null || echo 0) & 0x100)) != 0 ] ||
		[ $((0x$(sed -n 's/^SigPnd:\t*//p' "/proc/$1/status" 2>/dev/null || echo 0) & 0x100)) != 0 ]
}
freezer=/sys/fs/cgroup/freezer
ice=$freezer/mixdnn-e2e-54-$$
freeze() {	# freeze PID
	mkdir -p "$ice" && echo "$1" >"$ice/cgroup.procs" && echo FROZEN >"$ice/freezer.state"
}
thaw() {
	echo THAWED >"$ice/freezer.state" 2>/dev/null
}
trap 'thaw; rmdir "$ice" 2>/dev/null; stop_all_launchers' EXIT
started() {	# started JOB: its keeper's pid and its command's, once it runs on n3
	wait_until 15 "[ -f '$T/out/$1-1-0.env' ]"
	ok $? "job $1 runs on n3"
	pid=$(env_of "$1" 1 0 PID)
	keeper=$(sed -n "s/.*: job $1 attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n3.log" | tail -1)
	ok "$([ -n "$keeper" ] && [ "$keeper" -gt 1 ] && alive "$keeper"; echo $?)" "its keeper is found ($keeper)"
}
# held: attempt 1 still running and never re-queued or failed, seconds after the kill
held() {	# held JOB WHAT
	is "$(q "SELECT status || ' ' || attempt FROM mixdnn.jobs WHERE job_id = $1")
$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $1 AND old_status = 'running'")" "running 1
0" "$2"
}
requeued() {	# requeued JOB: re-queued after the frozen part was thawed and gone
	wait_until 20 "[ -f '$T/out/$1-2.previous' ]"
	ok $? "the job was re-queued and started again" || diag "status $(status_of "$1"): $(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $1")"
	is "$(cat "$T/out/$1-2.previous" 2>/dev/null)" dead "when attempt 2 started, attempt 1's process was gone"
	is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $1 AND new_status = 'failed'")" 0 "the job never failed"
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $1" >/dev/null
	wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
	ok $? "cancelled, it lets go of its GPUs"
}

if [ ! -d "$freezer" ] || ! mkdir -p "$ice" 2>/dev/null; then
	skip 19 "no cgroup v1 freezer to hold a process in the kernel"
else
	# --- 1. adopted while it dies of the adoption deadline (2/3 of the lease)
	start_launcher n3
	job=$(submit orphan hard v100 1 "$(once 30)" '30 s')
	started "$job"
	usr2=$(launcher_pid n3)
	kill -USR2 "$usr2"
	wait "$usr2"
	rm -f "$T/launcher-n3.pid"
	freeze "$pid"
	wait_until 15 "kill_pending $pid"
	ok $? "no launcher came: the keeper killed the part, which is slow to die"
	start_launcher n3
	wait_until 10 "grep -q 'job $job attempt 1: adopted its keeper' '$T/launcher-n3.log'"
	ok $? "a new launcher adopts the dying part"
	sleep 3		# a lower bound: the dying part must hold its GPU meanwhile
	held "$job" "three seconds later its GPU is still held, the job neither failed nor re-queued"
	thaw
	wait_until 10 "grep -q 'job $job attempt 1: given up, not reported as an exit: no launcher adopted it in time' '$T/launcher-n3.log'"
	ok $? "thawed and gone, it is not reported as the job's exit" || diag "$(grep "job $job" "$T/launcher-n3.log" | tail -3)"
	requeued "$job"

	# --- 2. the launcher killed while its part runs
	job=$(submit crash hard v100 1 "$(once 30)" '30 s')
	started "$job"
	freeze "$pid"
	kill9_launcher n3
	wait_until 10 "kill_pending $pid"
	ok $? "its launcher killed, the keeper killed the part, which is slow to die"
	start_launcher n3
	sleep 3		# a lower bound, as above
	held "$job" "three seconds after the next launcher started, its GPU is still held"
	thaw
	wait_until 10 "grep -q 'job $job attempt 1: given up, not reported as an exit: its launcher died while it ran' '$T/launcher-n3.log'"
	ok $? "thawed and gone, it is given up, not reported as the job's exit" || diag "$(grep "job $job" "$T/launcher-n3.log" | tail -3)"
	requeued "$job"
fi

# --- 3. a launcher that connects as the keeper leaves: gdb holds the
# leaving keeper at its socket's unlink() while a new launcher's connection
# lands in its backlog (before, the keeper exited without a word, and the
# launcher took the reset for a keeper that died: 137, the job failed)
if [ -z "$(launcher_pid n3)" ]; then
	start_launcher n3
	wait_until 10 "grep -q 'listening' '$T/launcher-n3.log'"
fi
job=$(submit backlog hard v100 1 "$(once 30)" '30 s')
started "$job"
gdb -p "$keeper" -batch -ex 'set pagination off' -ex "shell touch '$T/attached'" -ex 'break unlink' -ex continue \
	-ex "shell touch '$T/at-unlink'; while [ ! -f '$T/go' ]; do sleep 0.05; done" -ex detach \
	>"$T/gdb.log" 2>&1 &
gdb_pid=$!
if ! wait_until 20 "[ -f '$T/attached' ] && grep -q '^Breakpoint 1 at' '$T/gdb.log'"; then
	kill "$gdb_pid" 2>/dev/null
	skip 5 "gdb cannot attach to a process here: $(tail -1 "$T/gdb.log")"
else
	kill9_launcher n3
	wait_until 15 "[ -f '$T/at-unlink' ]"
	ok $? "its launcher killed, the keeper ends the part and stops, held, as it leaves" || diag "$(tail -5 "$T/gdb.log")"
	start_launcher n3
	wait_until 10 "grep -q 'job $job attempt 1: adopted its keeper' '$T/launcher-n3.log'"
	ok $? "a new launcher's connection waits in the leaving keeper's backlog"
	touch "$T/go"
	wait "$gdb_pid"
	wait_until 10 "grep -q 'job $job attempt 1: given up, not reported as an exit: its launcher died while it ran' '$T/launcher-n3.log'"
	ok $? "the keeper answers it before it exits: given up, not the job's exit" || diag "$(grep "job $job" "$T/launcher-n3.log" | tail -3)"
	wait_until 20 "[ -f '$T/out/$job-2.previous' ]"
	ok $? "the job was re-queued and started again" || diag "status $(status_of "$job"): $(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $job")"
	is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND new_status = 'failed'")" 0 "the job never failed"
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
	wait_until 15 '[ "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" = 0 ]'
fi

# --- 4. no descriptor left for the connection to a new keeper
set_setting mixdnn.lease_timeout ''
lpid=$(launcher_pid n3)
# a descriptor limit that leaves one free number: the keeper's listening socket takes it, the connection finds none
free=0
while [ -e "/proc/$lpid/fd/$free" ]; do free=$((free + 1)); done
soft=$(prlimit --pid "$lpid" --nofile --noheadings --output SOFT | tr -d " ")
prlimit --pid "$lpid" --nofile=$((free + 1)):
is "$(prlimit --pid "$lpid" --nofile --noheadings --output SOFT | tr -d " ")" $((free + 1)) "the launcher may open descriptor $free, none above"
job=$(submit no-fd hard v100 1 "$(job_cmd 2)" '2 s')
wait_until 15 "[ \"\$(status_of $job)\" = failed ]"
ok $? "the part cannot start: the job fails" || diag "status $(status_of "$job")"
like "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $job")" "cannot connect to the keeper's socket" "with the reason"
# a lower bound: a command that ran would have written its file by then
sleep 3
ok "$([ ! -e "$T/out/$job-1-0.env" ]; echo $?)" "its command never ran"
is "$(pgrep -c -f "$E2E_DIR/job.sh $T/out 2\$")" 0 "no process of it runs"
prlimit --pid "$lpid" --nofile="$soft":

done_testing
