#!/usr/bin/env bash
# The background worker survives errors in its steps and is restarted by the
# postmaster when it exits.
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n3
worker() { q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'mixdnn launch worker'"; }

pid=$(worker)
ok "$([ -n "$pid" ]; echo $?)" "the worker runs (pid $pid)"
is "$(q "SELECT application_name FROM pg_stat_activity WHERE pid = $pid")" "mixdnn launch worker" \
	"and shows in pg_stat_activity"

# A launch step that fails: the worker logs it and goes on.
q "ALTER EXTENSION mixdnn DROP FUNCTION mixdnn._next_wakeup(); ALTER FUNCTION mixdnn._next_wakeup() RENAME TO _next_wakeup_away" >/dev/null
job=$(submit during-error hard v100 1 "$(job_cmd 0.2)" '1 s')
sleep 1
q "ALTER FUNCTION mixdnn._next_wakeup_away() RENAME TO _next_wakeup; ALTER EXTENSION mixdnn ADD FUNCTION mixdnn._next_wakeup()" >/dev/null
is "$(worker)" "$pid" "a failing step did not end the worker"
wait_until 15 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the job submitted meanwhile ran once the step succeeded again"

# The worker terminated: the postmaster starts a new one.
q "SELECT pg_terminate_backend($pid)" >/dev/null
wait_until 15 "[ -n \"\$(worker)\" ] && [ \"\$(worker)\" != $pid ]"
ok $? "a terminated worker is restarted"
job=$(submit after-restart hard v100 1 "$(job_cmd 0.2)" '1 s')
wait_until 15 "[ \"\$(status_of $job)\" = completed ]"
ok $? "and launches jobs again"
done_testing
