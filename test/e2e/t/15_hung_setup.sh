#!/usr/bin/env bash
# A part whose set-up hangs before its command execs (as root: the output
# file, the account switch, a home on a hung file system) is still stopped
# when its job is cancelled: the keeper reads the set-up's error pipe in
# its loop, so it hears the launcher and kills the part. The launcher here
# is the test build whose set-up sleeps and ignores SIGTERM (Makefile:
# TEST_LAUNCHERS), so the part ends only by the SIGKILL after the grace.
. "$(dirname "$0")/../lib.sh"

SLOW=$E2E_DIR/../../build/test/mixdnn-launcher-slow-setup
[ -x "$SLOW" ] || skip_all "$SLOW is not built (make all)"
reset_cluster
MIXDNN_LAUNCHER=$SLOW start_launcher n1
job=$(submit hung hard a100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "[ \"\$(q \"SELECT state FROM mixdnn.job_parts WHERE job_id = $job\")\" = running ]"
ok $? "the part runs, its set-up hanging before exec"
# the keeper from the launcher's own log, its one child the set-up
keeper=$(sed -n "s/.*job $job attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n1.log")
wait_until 5 "pgrep -P '$keeper' >/dev/null"
setup=$(pgrep -P "$keeper")
[ -n "$setup" ] && [ ! -f "$T/out/$job-1-0.env" ]
ok $? "its keeper ($keeper) has a child ($setup) that has not run the command"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job"
wait_until 8 "! kill -0 $setup 2>/dev/null"
ok $? "the cancel stops it: SIGTERM, then SIGKILL after the kill grace (2 s)"
wait_until 8 "! kill -0 $keeper 2>/dev/null"
ok $? "and its keeper ends"
grep -q "job $job attempt 1 exited with code 137" "$T/launcher-n1.log"
ok $? "the launcher hears that the part ended (137, SIGKILL)" || diag "$(tail -5 "$T/launcher-n1.log")"
kill -9 "$setup" 2>/dev/null

# The same hung set-up under a launcher that stops renewing: the keeper
# kills it when the lease runs out, as it would a running command.
set_setting mixdnn.lease_timeout 3s
sleep 1.5	# the launcher's session reads the setting after its next statement
job=$(submit hung2 hard a100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "grep -q 'job $job attempt 1 started: keeper' '$T/launcher-n1.log'"
keeper=$(sed -n "s/.*job $job attempt 1 started: keeper \([0-9]*\),.*/\1/p" "$T/launcher-n1.log")
wait_until 5 "pgrep -P '$keeper' >/dev/null"
setup=$(pgrep -P "$keeper")
ok "$([ -n "$setup" ] && [ ! -f "$T/out/$job-1-0.env" ]; echo $?)" "a second hung set-up ($setup)"
kill -STOP "$(launcher_pid n1)"
wait_until 8 "! kill -0 $setup 2>/dev/null"
ok $? "with its launcher stopped, the keeper kills the set-up when the 3 s lease runs out"
kill -CONT "$(launcher_pid n1)"
wait_until 10 "grep -q 'job $job attempt 1: given up, not reported as an exit: its lease ran out' '$T/launcher-n1.log'"
ok $? "the launcher, resumed, hears that the lease ended it" || diag "$(tail -5 "$T/launcher-n1.log")"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
set_setting mixdnn.lease_timeout ''
kill -9 "$setup" 2>/dev/null
done_testing
