#!/usr/bin/env bash
# A launcher that dies after a part's command has exited, before the
# database took its exit code, loses nothing: the part's keeper waits to be
# adopted and the next launcher reports the code. Before, the keeper left
# with the code when its launcher's connection dropped; the next launcher
# found the part "claimed here but not running", gave it up, and a job that
# had exited 0 ran again. The report is held back by a transaction that
# holds the job's row (finish() is refused for now), so the crash falls
# between the exit and the report by construction, not by timing.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.lease_timeout 20s
start_launcher n3

job=$(submit once hard v100 2 "$(job_cmd 1 0)" '5 s')
wait_until 30 "[ \"\$(status_of $job)\" = running ]"
ok $? "the job runs" || diag "status $(status_of "$job")"

hold_job_row "$job"
ok $? "another transaction holds the job's row" || diag "$(cat "$T/locker.out")"
logs() { cat "$T"/launcher-n3.log; }
wait_until 30 "logs | grep -q 'finish.*refused for now'"
ok $? "the command exited 0 and its report is refused for now" || diag "$(logs | tail -5)"

kill9_launcher n3
release_job_row
start_launcher n3
wait_until 30 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the next launcher reports it: the job completes ($(status_of "$job"))" || diag "$(logs | tail -8)"
ok "$(logs | grep -q "job $job attempt 1: adopted its keeper"; echo $?)" "the finished part's keeper was adopted"
is "$(q "SELECT exit_code, attempt FROM mixdnn.jobs WHERE job_id = $job")" "0|1" "with attempt 1's exit code 0"
ok "$([ ! -e "$T/out/$job-2-0.env" ]; echo $?)" "and the job never ran again"

stop_all_launchers
set_setting mixdnn.lease_timeout ''
done_testing
