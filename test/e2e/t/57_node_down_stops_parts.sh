#!/usr/bin/env bash
# A node set down re-queues its jobs at once, and its launcher stops their
# parts at once too. Before, only a cancel sent the launcher a notice: a
# re-queued job's part ran on until the launcher's next heartbeat (here 30
# s), while the job could start elsewhere, and if the admin deleted the
# node meanwhile (as the delete error's hint suggests: set it down first),
# until its lease ran out (an operator trial: 61 s).
. "$(dirname "$0")/../lib.sh"

# the part's process, by a marker of this run's (another e2e file or run may sleep too)
M=3117.$(( $$ % 90000 + 10000 ))
reset_cluster
start_launcher n1 --heartbeat-interval 30
job=$(submit down-me hard a100 4 "sleep $M" '1 hour')
wait_until 20 "[ \"\$(status_of $job)\" = running ] && pgrep -x -f 'sleep $M' >/dev/null"
ok $? "(setup) the job runs on n1 (sleep $M)"
[ "$(q "SELECT node FROM mixdnn.job_parts WHERE job_id = $job")" = n1 ]
ok $? "(setup) ... its part is n1's"
q "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = 'n1'" >/dev/null
is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE job_id = $job AND old_status = 'running' AND new_status = 'planned' AND reason LIKE 'node n1 went down%'")" 1 \
	"n1 goes down: the job is re-queued (and may start on n2 at once)"
wait_until 8 "! pgrep -x -f 'sleep $M' >/dev/null"
ok $? "... and its part's process is stopped within seconds, not at the heartbeat 30 s on" ||
	diag "$(tail -5 "$T/launcher-n1.log")"
stop_all_launchers
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = 'n1'" >/dev/null
psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" >/dev/null 2>&1
done_testing
