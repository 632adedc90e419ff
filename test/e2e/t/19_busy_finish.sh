#!/usr/bin/env bash
# A finish the database refuses for now, because another transaction holds
# the job's row (its owner typing a cancel), is logged as refused, not as failed, and is reported
# again within a second once the row is free, not a heartbeat later. The
# lock is held by this test until the launcher has met it, so the race is
# forced, not timed.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.lease_timeout 300s
# A heartbeat far longer than the bound below: a retry left to the next
# heartbeat (the launcher before dd2640c) cannot pass.
HB=60
start_launcher n1 --heartbeat-interval $HB
start_launcher n2 --heartbeat-interval $HB

job=$(submit held hard a100 1 "sh -c 'while [ ! -e $T/out/go ]; do sleep 0.1; done'" '60 s')
wait_until 30 "[ \"\$(status_of $job)\" = running ]"
ok $? "the job runs" || diag "status $(status_of "$job")"

# Another transaction takes the job's row and keeps it until told.
hold_job_row "$job"
ok $? "another transaction holds the job's row" || diag "$(cat "$T/locker.out")"

# The job ends; its launcher's finish() meets the lock.
touch "$T/out/go"
logs() { cat "$T"/launcher-n*.log; }
wait_until 30 "logs | grep -q 'finish.*refused for now (SQLSTATE 55P03)'"
ok $? "the launcher's finish() is refused for now (55P03)" || diag "$(logs | tail -5)"
is "$(logs | grep -c 'finish.*failed')" 0 "a refusal is not logged as a failure"
is "$(status_of "$job")" running "the job stays running while its row is held"

# The row is free again: the next report lands within a few seconds.
release_job_row
t0=$(date +%s)
wait_until 20 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the job completes within 20 s of the lock's end (took $(($(date +%s) - t0)) s; the heartbeat is $HB s)" ||
	diag "status $(status_of "$job")"
is "$(logs | grep -c "job $job attempt 1: reported exit code 0")" 1 "reported once, with exit code 0"

stop_all_launchers
set_setting mixdnn.lease_timeout ''
done_testing
