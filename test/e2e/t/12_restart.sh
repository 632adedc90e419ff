#!/usr/bin/env bash
# SIGUSR2: the launcher exits and leaves its jobs running; the next launcher
# of the node adopts them. Restarted twice under a running job, the job
# completes once with its exit code; a job cancelled while no launcher runs
# is stopped by the next one; a job that ends while none runs is reported by
# the next; with no launcher back, the parts end before their lease does.
. "$(dirname "$0")/../lib.sh"

usr2_launcher() {	# usr2_launcher NODE: SIGUSR2; its exit status in $usr2_status
	local pid
	pid=$(launcher_pid "$1")
	kill -USR2 "$pid"
	wait "$pid"
	usr2_status=$?
	rm -f "$T/launcher-$1.pid"
}

reset_cluster
start_launcher n3
start_launcher n1
long=$(submit long hard v100 1 "$(job_cmd 10 5)" '10 s')
cancelled=$(submit cancelled hard a100 1 "$(job_cmd 60)" '1 min')
gap=$(submit gap hard v100 1 "$(job_cmd 5 4)" '5 s')
wait_until 10 "[ -f '$T/out/$long-1-0.env' ] && [ -f '$T/out/$cancelled-1-0.env' ] && [ -f '$T/out/$gap-1-0.env' ]"
ok $? "three jobs run on n3 and n1"
lpid=$(env_of "$long" 1 0 PID)
gpid=$(env_of "$gap" 1 0 PID)

usr2_launcher n3
is "$usr2_status" 0 "SIGUSR2: the launcher of n3 exits with 0"
alive "$lpid"
ok $? "its job keeps running"
start_launcher n3
wait_until 5 "grep -q 'adopted 2 running job parts' '$T/launcher-n3.log'"
ok $? "a new launcher of n3 adopts both parts"
sleep 0.5
usr2_launcher n3
is "$usr2_status" 0 "restarted a second time"
wait_until 15 "! alive $gpid"
ok $? "one job ends while no launcher runs"
start_launcher n3
wait_until 20 "[ \"\$(status_of $long)\" = failed ] || [ \"\$(status_of $long)\" = completed ]"
is "$(status_of "$long"),$(q "SELECT exit_code || ',' || attempt FROM mixdnn.jobs WHERE job_id = $long")" "failed,5,1" \
	"the job ran once (attempt 1) and its exit code 5 was reported"
is "$(grep -h "job $long attempt 1: reported exit code" "$T"/launcher-n3.log* | grep -c -v stale)" 1 "exactly once"
is "$(status_of "$gap"),$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $gap")" "failed,4" \
	"a job that ended while no launcher ran was reported by the next one"
is "$(q "SELECT count(*) FROM mixdnn.job_parts WHERE job_id IN ($long, $gap) AND state = 'lost'")" 0 "no part was lost"

cpid=$(env_of "$cancelled" 1 0 PID)
usr2_launcher n1
is "$usr2_status" 0 "the launcher of n1 leaves"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $cancelled" >/dev/null
alive "$cpid"
ok $? "a job cancelled while no launcher runs keeps running for now"
start_launcher n1
wait_until 10 "! alive $cpid"
ok $? "the next launcher stops it"
stop_launcher n1

# A keeper killed while no launcher runs (cgroup mode): the next launcher
# finds its socket dead and kills what the part's cgroup still runs before
# giving the part up; before, the part ran on beside its next attempt.
if grep -q 'each job part gets a cgroup' "$T/launcher-n1.log"; then
	start_launcher n1
	kk=$(submit keeperless hard a100 1 "$(job_cmd 60)" '1 min')
	wait_until 10 "[ -f '$T/out/$kk-1-0.env' ]"
	kpid=$(env_of "$kk" 1 0 PID)
	usr2_launcher n1
	keeper=$(sed -n "s/.*: job $kk attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n1.log" | tail -1)
	ok "$([ -n "$keeper" ] && [ "$keeper" -gt 1 ] && alive "$keeper"; echo $?)" "the part's keeper is found ($keeper)"
	[ -n "$keeper" ] && [ "$keeper" -gt 1 ] && kill -KILL "$keeper"
	sleep 0.5
	alive "$kpid"
	ok $? "with its keeper killed, the part runs on"
	start_launcher n1
	wait_until 10 "! alive $kpid"
	ok $? "the next launcher kills it through its cgroup"
	wait_until 10 "grep -q 'job $kk attempt 1: its keeper was gone; killed what its cgroup' '$T/launcher-n1.log'"
	ok $? "and says so"
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $kk" >/dev/null
	stop_launcher n1
else
	skip 4 "no cgroups for the launcher here"
fi

# Nobody comes back: the part ends before its lease (lease 6 s: at 4 s).
set_setting mixdnn.lease_timeout 6s
start_launcher n1
orphan=$(submit orphan hard a100 1 "$(job_cmd 60)" '1 min')
wait_until 10 "[ -f '$T/out/$orphan-1-0.env' ]"
opid=$(env_of "$orphan" 1 0 PID)
ended=$(submit ended hard a100 1 "$(job_cmd 3)" '3 s')
wait_until 10 "[ -f '$T/out/$ended-1-0.env' ]"
ekeeper=$(sed -n "s/.*: job $ended attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n1.log" | tail -1)
sleep 1
usr2_launcher n1
wait_until 10 "! alive $opid"
ok $? "an orphaned part ends when no launcher adopts it"
# A part that ended while no launcher ran: its keeper leaves too (it waited
# for a launcher for ever, once its command had ended).
wait_until 15 "[ -n \"$ekeeper\" ] && ! alive $ekeeper"
ok $? "the keeper of a part that ended leaves when no launcher comes ($ekeeper)"
wait_until 15 "[ \"\$(status_of $orphan)\" = planned ] || [ \"\$(status_of $orphan)\" = failed ]"
gone=$(q "SELECT finished_at FROM mixdnn.job_parts WHERE job_id = $orphan AND attempt = 1")
ok "$([ -n "$gone" ]; echo $?)" "its lease expired and the job was re-queued ($(status_of "$orphan"))"
set_setting mixdnn.lease_timeout ''
done_testing
