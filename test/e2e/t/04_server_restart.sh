#!/usr/bin/env bash
# PostgreSQL stops while jobs run (a clean restart, then a crash): launchers
# keep their jobs, reconnect, report what finished meanwhile and claim what
# they missed; the worker repairs and extends leases at start-up. No job is
# lost and none starts twice.
. "$(dirname "$0")/../lib.sh"
[ -n "${MIXDNN_E2E_PGDATA:-}" ] || skip_all "MIXDNN_E2E_PGDATA is not set: cannot restart the server"

reset_cluster
for n in n1 n2 n3; do start_launcher "$n"; done

submit_batch() {	# submit_batch TAG: 10 a100 and 3 v100 jobs of 3 s
	local i
	for i in $(seq 1 10); do submit "$1-a$i" hard a100 1 "$(job_cmd 3)" '3 s' >/dev/null; done
	for i in 1 2 3; do submit "$1-v$i" hard v100 1 "$(job_cmd 3)" '3 s' >/dev/null; done
}
started() { ls "$T/out"/*.env 2>/dev/null | wc -l; }

for mode in fast immediate; do
	before=$(started)
	submit_batch "$mode"
	wait_until 15 "[ \$(started) -ge $((before + 8)) ]"
	ok $? "$mode: jobs are running"
	server_ctl stop -m "$mode"
	ok $? "$mode: server stopped"
	# Long enough for running jobs to finish while nobody can report them.
	sleep 4
	server_ctl start
	ok $? "$mode: server started again"
	wait_until 60 '[ "$(unfinished)" = 0 ]'
	ok $? "$mode: every job finished after the restart"
done

is "$(q "SELECT count(*) FROM mixdnn.jobs")" 26 "26 jobs in all"
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE status = 'completed' AND exit_code = 0")" 26 "all completed"
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE attempt <> 1")" 0 "none was launched twice"
is "$(ls "$T/out"/*.env | wc -l)" 26 "26 processes ran, one per job"
is "$(gpu_overlaps)" "" "no GPU ran two jobs at the same time"
is "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" 0 "no GPU is held at the end"
ok "$([ "$(cat "$T"/launcher-*.log | grep -c 'disconnected')" -ge 6 ]; echo $?)" "every launcher noticed both restarts"
reported_late=$(cat "$T"/launcher-*.log | grep -c 'reported exit code 0')
is "$reported_late" 26 "every exit code was reported"
done_testing
