#!/usr/bin/env bash
# pg_upgrade of a cluster that preloads mixdnn, with jobs planned, launching
# and running. pg_upgrade runs the old and the new server in binary-upgrade
# mode (postgres -b), where no launch worker may run: before, the workers
# started in both, wrote rounds and could launch jobs and expire leases in
# the old cluster (whose launchers cannot connect: pg_upgrade's servers
# listen on a socket of their own), and met half-restored extensions in the
# new one ("relation mixdnn.gpus does not exist"). Two servers of its own,
# one after the other on the e2e port (pg_upgrade never runs both at once).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
command -v pg_upgrade >/dev/null || skip_all "no pg_upgrade"
PRELOAD="shared_preload_libraries = 'mixdnn'"
server2_init "$T/new" "$PRELOAD" || { ok 1 "initdb of the new cluster"; done_testing; }
NEW=$S2
server2_init "$T/old" "$PRELOAD" || { ok 1 "initdb of the old cluster"; done_testing; }
OLD=$S2
server2_ctl start
ok $? "the old cluster starts, preloading mixdnn"
trap 'S2=$OLD server2_stop; S2=$NEW server2_stop' EXIT
export PGHOST=$OLD PGDATABASE=up

psql -X -q -d postgres -c "CREATE DATABASE up" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 1), ('n2', 'v100', 1);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES
	('runs', 'hard', 'v100', 1, '1 hour', 'true'), ('launching', 'hard', 'v100', 1, '1 hour', 'true'),
	('waits', 'hard', 'v100', 1, '1 hour', 'true');
SQL
ok $? "a database with jobs"
wait_until 20 "[ \"\$(q \"SELECT count(*) FROM mixdnn.jobs WHERE status = 'launching'\")\" = 2 ]"
ok $? "its worker launches two of them"
is "$(q "SELECT count(*) FROM mixdnn.claim('n1')")" 1 "one is claimed (running)"
before=$(q "SELECT max(round_id) FROM mixdnn.rounds")
jobs_before=$(q "SELECT string_agg(job_id || ':' || status || ':' || attempt, ',' ORDER BY job_id) FROM mixdnn.jobs")
server2_ctl stop -m fast
ok $? "the old cluster stops"

bindir=$(dirname "$(command -v pg_upgrade)")
(cd "$T" && as_postgres pg_upgrade --retain -b "$bindir" -B "$bindir" -d "$OLD/data" -D "$NEW/data" \
	-p "$PGPORT" -P "$PGPORT" -s "$T" >"$T/pg_upgrade.out" 2>&1)
ok $? "pg_upgrade from the old cluster to the new" || diag "$(tail -20 "$T/pg_upgrade.out")"
log=$(cat "$NEW"/data/pg_upgrade_output.d/*/log/pg_upgrade_server.log 2>/dev/null)
ok "$([ -n "$log" ]; echo $?)" "pg_upgrade kept its servers' log"
is "$(grep -c 'mixdnn supervisor started\|mixdnn launch worker started' <<<"$log")" 0 \
	"no mixdnn supervisor or launch worker ran in pg_upgrade's servers" ||
	diag "$(grep 'mixdnn' <<<"$log" | head -5)"
is "$(grep -c 'mixdnn.*WARNING\|WARNING.*mixdnn' <<<"$log")" 0 "nor warned there"

S2=$NEW
started=$(date -u '+%Y-%m-%d %H:%M:%S.%N+00')
server2_ctl start
ok $? "the new cluster starts"
export PGHOST=$NEW
is "$(q "SELECT count(*) FROM mixdnn.rounds WHERE round_id > $before AND at < '$started'")" 0 \
	"no round was written between the old cluster's stop and the new one's start"
is "$(q "SELECT string_agg(job_id || ':' || status || ':' || attempt, ',' ORDER BY job_id) FROM mixdnn.jobs")" \
	"$jobs_before" "every job is as it was, in the same attempt"
wait_until 20 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE datname = 'up' AND backend_type = 'mixdnn launch worker'\")\" = 1 ]"
ok $? "the new cluster's supervisor starts a launch worker in the database"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'runs'" >/dev/null
wait_until 20 "[ \"\$(q \"SELECT status FROM mixdnn.jobs WHERE name = 'waits'\")\" = launching ]"
ok $? "which launches the waiting job once GPUs are free"
server2_stop
S2=$OLD
done_testing
