#!/usr/bin/env bash
# Failover: a hot standby of the database is promoted while a job runs.
# The worker starts scheduling on the new primary, the launcher, given both
# hosts with target_session_attrs=read-write, reconnects to it, and the
# running job finishes with its exit code recorded. Streaming replication
# over Unix sockets; the old primary is this suite's server, started again
# at the end (what the new primary did is then lost, as the tests after
# this one reset everything anyway).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
[ -n "${MIXDNN_E2E_PGDATA:-}" ] || skip_all "MIXDNN_E2E_PGDATA is not set: cannot stop the server"

reset_cluster
S2=$T/standby
mkdir -p "$S2" && chmod 777 "$S2"
# -c fast: the default spread checkpoint took 30 s alone, 150 s beside another shard
as_postgres pg_basebackup -D "$S2/data" -h "$PGHOST" -p "$PGPORT" -U postgres -R -X stream -c fast >"$T/basebackup.log" 2>&1
ok $? "pg_basebackup of the primary, with a standby's configuration" || diag "$(cat "$T/basebackup.log")"
server2_conf "hot_standby = on"
server2_ctl start
ok $? "the standby starts"
trap 'server2_stop; stop_all_launchers; server_ctl start 2>/dev/null' EXIT
is "$(PGHOST=$S2 q "SELECT pg_is_in_recovery()")" t "it is in recovery"
is "$(PGHOST=$S2 q "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'mixdnn%'")" 0 \
	"and runs no mixdnn worker"

dsn="host=$PGHOST,$S2 port=$PGPORT,$PGPORT dbname=$PGDATABASE target_session_attrs=read-write"
start_launcher n3 --dsn "$dsn"
job=$(submit survives hard v100 1 "$(job_cmd 12 7)" '12 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ] && [ \"\$(status_of $job)\" = running ]"
ok $? "the job runs"
pid=$(env_of "$job" 1 0 PID)
wait_until 10 '[ "$(q "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn >= pg_current_wal_lsn()")" = 1 ]'
ok $? "the standby has replayed everything"

server_ctl stop -m fast
ok $? "the primary stops"
server2_ctl promote
ok $? "the standby is promoted"
export PGHOST=$S2
is "$(q "SELECT pg_is_in_recovery()")" f "the new primary accepts writes"
wait_until 20 '[ "$(workers_in $PGDATABASE)" = 1 ]'
ok $? "its launch worker starts"

wait_until 60 "[ \"\$(status_of $job)\" = failed ]"
ok $? "the launcher reconnected and reported the job's end"
is "$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $job")" 7 "its exit code is recorded"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $job")" 1 "it ran once"
alive "$pid"
ok $((! $?)) "its process has exited"
grep -q "disconnected" "$T/launcher-n3.log"
ok $? "the launcher noticed the failover"

job2=$(submit after hard v100 1 "$(job_cmd 1)" '1 s')
wait_until 20 "[ \"\$(status_of $job2)\" = completed ]"
ok $? "a job submitted to the new primary is planned, launched and completed"

stop_all_launchers
server2_stop
server_ctl start
ok $? "the old primary starts again for the tests that follow"
trap stop_all_launchers EXIT
done_testing
