#!/usr/bin/env bash
# A fork that fails for want of processes (EAGAIN: the node's PIDs taken by
# a neighbour, or the launcher's account at its RLIMIT_NPROC) is the node's
# failure, not the job's. A part whose keeper cannot be forked waits and is
# tried again for --fork-retry seconds; past that, or when the keeper cannot
# fork the command, the part is given up and the job re-queued, as a part
# its keeper lost the lease of is, not failed with exit code 126 ("exited
# with code 126 on node n1: cannot start the keeper: Resource temporarily
# unavailable"). The job's reason names the cause the launcher passes to
# reset_node ("node n1 handed it back: cannot start the keeper: ..."), not
# a guess ("node n1 no longer runs it (its launcher restarted or ...)").
#
# Made deterministic with RLIMIT_NPROC, which root is exempt from: the
# launcher runs as an account of its own (--allow-same-user) that runs no
# other process, limited to 1 process (the launcher alone: its fork of a
# keeper fails), then 2 (the keeper's fork of the command fails), then none;
# the job is the node's one placement, so a re-queued job comes back to it.
# Only the soft limit changes, by the account itself: root here may lack
# CAP_SYS_RESOURCE, which changing another account's limits needs.
. "$(dirname "$0")/../lib.sh"

nproc_account mxe2e_nproc
U=$NPROC_USER

nproc_cluster

as_launcher_account() {
	setpriv --reuid="$U" --regid="$U" --init-groups "$@"
}

requeued() {	# requeued JOB: how many times the part was given up and the job re-queued
	q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $1 AND old_status = 'running'
	   AND new_status = 'planned' AND reason LIKE 'node n1 handed it back: %'"
}
reasons() {	# reasons JOB: the reasons of its re-queues, one a line
	q "SELECT reason FROM mixdnn.job_events WHERE job_id = $1 AND old_status = 'running'
	   AND new_status = 'planned' ORDER BY event_id"
}
tries() {	# tries JOB: the launcher's failed forks of the job's keeper that it will try again
	grep -c "job $1 attempt [0-9]*: cannot start the keeper: .*; it waits, the next try in" "$T/launcher-n1.log"
}

# A shortage of processes that passes: the part waits and is tried again
# (with a back-off), and runs in its first attempt, no retry spent.
start_limited 1
lpid=$(launcher_pid n1)
job=$(submit waits hard a100 1 "$(job_cmd 0.5)")
wait_until 30 "[ \"\$(tries $job)\" -ge 2 ]"
ok $? "the launcher cannot fork a keeper (RLIMIT_NPROC 1): the part waits and is tried again" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
is "$(requeued "$job")/$(status_of "$job")" "0/running" "... still the node's, not handed back"
as_launcher_account prlimit --pid "$lpid" --nproc="$(ulimit -Hu):"
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "with processes to spare again, it runs and completes"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 1 "... in its first attempt"
stop_launcher n1

# Two parts waiting for a fork: the back-off is the node's, so a pass that
# tries them again stops at the first fork that fails (before, it forked
# every waiting part at once, each failure doubling the gap: 0.25 s to 8 s
# in three passes, not six).
start_limited 1
lpid=$(launcher_pid n1)
j1=$(submit waits1 hard a100 1 "$(job_cmd 0.5)")
j2=$(submit waits2 hard a100 1 "$(job_cmd 0.5)")
wait_until 30 "[ \"\$(( \$(tries $j1) + \$(tries $j2) ))\" -ge 4 ]"
ok $? "two parts wait for a fork and are tried again" || diag "$(tail -5 "$T/launcher-n1.log")"
# the milliseconds between one failed try and the next (at least the first gap, 250)
gaps=$(grep -E "job ($j1|$j2) attempt [0-9]+: cannot start the keeper: .*; it waits" "$T/launcher-n1.log" |
	awk '{ split(substr($1, 12, 12), t, ":"); ms = (t[1] * 3600 + t[2] * 60 + t[3]) * 1000
		if (NR > 1) printf "%d ", ms - last; last = ms }')
ok "$(echo "$gaps" | awk '{ for (i = 1; i <= NF; i++) if ($i < 200) exit 1 }'; echo $?)" \
	"... one at a time: no try follows another within the back-off" || diag "gaps (ms): $gaps"
as_launcher_account prlimit --pid "$lpid" --nproc="$(ulimit -Hu):"
wait_until 30 "[ \"\$(status_of $j1)/\$(status_of $j2)\" = completed/completed ]"
ok $? "... and both run and complete"
stop_launcher n1

# The keeper's fork of the command is tried again too (RLIMIT_NPROC 2: the
# launcher and its keeper), with the same back-off, for --fork-retry: a
# shortage that passes costs the part the wait, not an attempt (before,
# the part was handed back at once and the job re-queued). The limit is
# the keeper's own, inherited: lifted in the keeper too.
keeper_of_account() {
	pgrep -u "$U" -x mixdnn-keeper
}
start_limited 2
lpid=$(launcher_pid n1)
job=$(submit cmd-waits hard a100 1 "$(job_cmd 0.5)")
wait_until 30 "[ \"\$(cmd_tries $job)\" -ge 2 ]"
ok $? "the keeper cannot fork the command (RLIMIT_NPROC 2): it waits and tries again" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
is "$(requeued "$job")/$(status_of "$job")" "0/running" "... the part still the node's, not handed back"
kpid=$(keeper_of_account)
as_launcher_account prlimit --pid "$kpid" --nproc="$(ulimit -Hu):"
as_launcher_account prlimit --pid "$lpid" --nproc="$(ulimit -Hu):"
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "with processes to spare again, the command runs and the job completes"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 1 "... in its first attempt"
stop_launcher n1

# Cancelled while its keeper waits to fork the command: no command runs,
# and the keeper ends the part and leaves (no part left waiting for ever).
start_limited 2
job=$(submit cmd-cancelled hard a100 1 "$(job_cmd 30)")
wait_until 30 "[ \"\$(cmd_tries $job)\" -ge 1 ]"
ok $? "(setup) the keeper waits to fork the command" || diag "$(tail -5 "$T/launcher-n1.log")"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
wait_until 15 "[ -z \"\$(keeper_of_account)\" ]"
ok $? "cancelled while it waits, the part ends and its keeper leaves" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
is "$(status_of "$job")/$(ls "$T/out/$job-"* 2>/dev/null | wc -l)" "cancelled/0" "... the job cancelled, its command never run"
stop_launcher n1

# A shortage that lasts (--fork-retry 0: at once) gives the part back.
start_limited 1 --fork-retry 0
lpid=$(launcher_pid n1)
job=$(submit nproc hard a100 1 "$(job_cmd 0.5)")
wait_until 20 "grep -q 'given up, not reported as an exit: cannot start the keeper' '$T/launcher-n1.log' &&
	[ \"\$(requeued $job)\" -ge 1 ]"
ok $? "past --fork-retry, the part is given up and the job re-queued" ||
	diag "$(q "SELECT old_status, new_status, reason FROM mixdnn.job_events WHERE job_id = $job ORDER BY at")"
like "$(grep -m1 "job $job attempt [0-9]*: given up, not reported" "$T/launcher-n1.log")" \
	'job [0-9]+ attempt [0-9]+: given up, not reported as an exit: cannot start the keeper: Resource temporarily unavailable' \
	"... the launcher's log says why"
# the job's reason too (reset_node's cause): before, a guess ("node n1 no
# longer runs it (its launcher restarted or lost the answer to its claim,
# or the part's lease ran out)")
like "$(reasons "$job" | head -1)" \
	'^node n1 handed it back: cannot start the keeper: Resource temporarily unavailable; re-queued after attempt [0-9]+$' \
	"... and so does the job's reason" || diag "$(reasons "$job")"
before=$(requeued "$job")
as_launcher_account prlimit --pid "$lpid" --nproc=2:
wait_until 20 "grep -q 'given up, not reported as an exit: cannot fork the command' '$T/launcher-n1.log' &&
	[ \"\$(requeued $job)\" -gt $before ]"
ok $? "the keeper cannot fork the command (RLIMIT_NPROC 2): given up and re-queued too" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
reasons "$job" | grep -q '^node n1 handed it back: cannot fork the command: Resource temporarily unavailable; re-queued after attempt [0-9]*$'
ok $? "... the job's reason says the keeper could not fork the command" || diag "$(reasons "$job")"
as_launcher_account prlimit --pid "$lpid" --nproc="$(ulimit -Hu):"
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "with processes to spare, the job runs and completes"
is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND new_status = 'failed'")" 0 \
	"... and it never failed on the way"
[ "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" -ge 3 ]
ok $? "... in a later attempt (each fork failure re-queued it)"
stop_launcher n1

# Given up after waiting (--fork-retry 1): the reason says how long.
start_limited 1 --fork-retry 1
lpid=$(launcher_pid n1)
job=$(submit waits_long hard a100 1 "$(job_cmd 0.5)")
wait_until 20 "[ \"\$(requeued $job)\" -ge 1 ]"
ok $? "past --fork-retry 1, the part is given up and the job re-queued" || diag "$(tail -5 "$T/launcher-n1.log")"
like "$(reasons "$job" | head -1)" \
	'^node n1 handed it back: cannot start the keeper: Resource temporarily unavailable \(after waiting [0-9]+ s\); re-queued after attempt 1$' \
	"... the job's reason says how long the part waited" || diag "$(reasons "$job")"
as_launcher_account prlimit --pid "$lpid" --nproc="$(ulimit -Hu):"
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "... and with processes to spare it completes"

stop_all_launchers
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node IN ('n2', 'n3')" >/dev/null
set_setting mixdnn.max_retries ''
psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" >/dev/null 2>&1
done_testing
