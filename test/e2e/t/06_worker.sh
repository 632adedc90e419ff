#!/usr/bin/env bash
# The background worker survives errors in its steps and is restarted by the
# postmaster when it exits; a restart renews no launcher's lease.
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

# Its restart renews no lease: only the first repair after the server
# started (or a data load) does. A part claimed by a launcher that then
# went silent (no launcher runs on n1 and n2: claimed here by hand) keeps
# its lease_until through the restart. Before, each restart renewed it,
# and restarts every 40 s kept a lost part alive for ever (a review).
set_setting mixdnn.lease_timeout 300s
job=$(submit silent hard a100 1 'sleep 600' '1 hour')
wait_until 15 "[ \"\$(status_of $job)\" = launching ]"
node=$(q "SELECT node FROM mixdnn.allocations WHERE job_id = $job LIMIT 1")
q "SELECT job_id FROM mixdnn.claim('$node')" >/dev/null
lease=$(q "SELECT lease_until FROM mixdnn.job_parts WHERE job_id = $job")
ok "$([ -n "$lease" ]; echo $?)" "a part is claimed on $node (lease until $lease)"
starts=$(q "SELECT count(*) FROM mixdnn.rounds WHERE event = 'start'")
pid=$(worker)
q "SELECT pg_terminate_backend($pid)" >/dev/null
wait_until 20 "[ \"\$(q \"SELECT count(*) FROM mixdnn.rounds WHERE event = 'start'\")\" -gt $starts ]"
ok $? "the restarted worker repaired and planned (its start round)"
is "$(q "SELECT lease_until FROM mixdnn.job_parts WHERE job_id = $job")" "$lease" "and left the silent part's lease as it was"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
set_setting mixdnn.lease_timeout ''

# A half-launched job (active, its parts gone: a data load can leave one)
# whose row another transaction holds while the worker repairs: left, and
# re-queued at a later cycle once the row is free. Before, it stayed
# half-launched until the worker's next start.
set_setting mixdnn.worker_poll_interval 1s
job=$(submit half hard a100 1 'sleep 600' '1 hour')
wait_until 15 "[ \"\$(status_of $job)\" = launching ]"
q "SET session_replication_role = replica; DELETE FROM mixdnn.job_parts WHERE job_id = $job" >/dev/null
is "$(q "SELECT status || ' ' || (SELECT count(*) FROM mixdnn.job_parts p WHERE p.job_id = j.job_id) FROM mixdnn.jobs j WHERE job_id = $job")" \
	"launching 0" "a job launching without its part"
# held until the test lets go (the holder's sleep is cancelled)
psql -X -q -c "BEGIN" -c "SELECT 1 FROM mixdnn.jobs WHERE job_id = $job FOR UPDATE" \
	-c "SELECT pg_sleep(300)" -c "COMMIT" >/dev/null 2>&1 &
holder=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(300)'\")\" = 1 ]"
ok $? "another transaction holds its row"
starts=$(q "SELECT count(*) FROM mixdnn.rounds WHERE event = 'start'")
pid=$(worker)
q "SELECT pg_terminate_backend($pid)" >/dev/null
wait_until 30 "[ \"\$(q \"SELECT count(*) FROM mixdnn.rounds WHERE event = 'start'\")\" -gt $starts ]"
ok $? "the restarted worker repaired and planned"
is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND reason LIKE 'found half-launched%'")" 0 \
	"the held job was left"
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(300)'" >/dev/null
wait "$holder"
wait_until 15 "[ \"\$(q \"SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND reason LIKE 'found half-launched%'\")\" = 1 ]"
ok $? "once the row is free, a later cycle re-queues it" || diag "$(q "SELECT status, reason FROM mixdnn.jobs WHERE job_id = $job")"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
set_setting mixdnn.worker_poll_interval ''
done_testing
