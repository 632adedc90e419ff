#!/usr/bin/env bash
# Every database with the extension is served, with no setting to edit:
# jobs run at once in two databases of the cluster, each with its own
# launchers, and finish with their exit codes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"

q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$E2E_LAUNCHER_ROLE') THEN
	CREATE ROLE $E2E_LAUNCHER_ROLE LOGIN; END IF; END \$\$" >/dev/null
for db in mx_ops_a mx_ops_b; do
	fresh_db $db
	mkdir -p "$T/$db" && chmod 777 "$T/$db"
	psql -X -q -v ON_ERROR_STOP=1 -d $db >/dev/null <<-SQL
		SET client_min_messages = error;
		CREATE EXTENSION mixdnn;
		GRANT mixdnn_launcher TO $E2E_LAUNCHER_ROLE;
		INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
		INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('$db-n1', 'v100', 2);
	SQL
	PGDATABASE=$db start_launcher $db-n1
done
ok 0 "two databases with the extension and a launcher each"

# Each job runs 3 s and exits with its own code, so both must run at once
# for both to be done within the bound below.
ja=$(PGDATABASE=mx_ops_a submit a hard v100 2 "sh $E2E_DIR/job.sh $T/mx_ops_a 3 5" '3 s')
jb=$(PGDATABASE=mx_ops_b submit b hard v100 2 "sh $E2E_DIR/job.sh $T/mx_ops_b 3 6" '3 s')
wait_until 30 '[ "$(qd mx_ops_a "SELECT status FROM mixdnn.jobs WHERE job_id = $ja")" = failed ] &&
	[ "$(qd mx_ops_b "SELECT status FROM mixdnn.jobs WHERE job_id = $jb")" = failed ]'
ok $? "both jobs ran and finished"
is "$(qd mx_ops_a "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $ja")" 5 "database a recorded its job's exit code"
is "$(qd mx_ops_b "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $jb")" 6 "database b recorded its job's exit code"
sa=$(sed -n 's/^START=//p' "$T/mx_ops_a/$ja-1-0.env")
sb=$(sed -n 's/^START=//p' "$T/mx_ops_b/$jb-1-0.env")
awk -v a="$sa" -v b="$sb" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 3) }'
ok $? "they ran at the same time (starts $sa and $sb)"
is "$(workers_in mx_ops_a)|$(workers_in mx_ops_b)" "1|1" "one launch worker in each database"

# A database opted out keeps its rounds but its worker goes.
qd mx_ops_b "ALTER DATABASE mx_ops_b SET mixdnn.launch_worker = off" >/dev/null
wait_until 10 '[ "$(workers_in mx_ops_b)" = 0 ]'
ok $? "ALTER DATABASE ... SET mixdnn.launch_worker = off stops its worker"
jb=$(PGDATABASE=mx_ops_b submit b2 hard v100 2 "sh $E2E_DIR/job.sh $T/mx_ops_b 1 0" '1 s')
sleep 2
is "$(qd mx_ops_b "SELECT status FROM mixdnn.jobs WHERE job_id = $jb")" planned "its new job is planned and not launched"
qd mx_ops_b "ALTER DATABASE mx_ops_b RESET mixdnn.launch_worker" >/dev/null
wait_until 20 '[ "$(qd mx_ops_b "SELECT status FROM mixdnn.jobs WHERE job_id = $jb")" = completed ]'
ok $? "RESET brings the worker back, and it launches the job"

# Commands that need a database to themselves get it from its worker
# (the launchers, ordinary clients, must go as for any such command).
stop_all_launchers
wait_until 20 '[ "$(workers_in mx_ops_a)|$(workers_in mx_ops_b)" = "1|1" ]'
is "$(workers_in mx_ops_a)|$(workers_in mx_ops_b)" "1|1" "both workers run"

# ... but only for a role the command itself lets through: a refused one
# (42501) leaves the worker running, or any role that can connect could
# keep a database without launches, 10 s per statement.
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'e2e_dbguard') THEN
	CREATE ROLE e2e_dbguard LOGIN; END IF; END \$\$" >/dev/null
wpid() { q "SELECT pid FROM pg_stat_activity WHERE datname = 'mx_ops_a' AND backend_type = 'mixdnn launch worker'"; }
before=$(wpid)
refused=0
for cmd in "DROP DATABASE mx_ops_a" "ALTER DATABASE mx_ops_a RENAME TO mx_ops_x" \
	"ALTER DATABASE mx_ops_a SET work_mem = '8MB'" "ALTER DATABASE mx_ops_a SET TABLESPACE pg_default" \
	"CREATE DATABASE mx_ops_copy TEMPLATE mx_ops_a"; do
	out=$(psql -X -q -U e2e_dbguard -d postgres -v VERBOSITY=verbose -c "$cmd" 2>&1)
	case $out in *42501*) refused=$((refused + 1)) ;; *) echo "# $cmd: $out" ;; esac
done
is "$refused" 5 "a role without the rights is refused each command (42501)"
is "$(wpid)" "$before" "and the database's launch worker kept running throughout"
# The database's owner passes the ownership check but not the one after it:
# a tablespace it may not create in, an owner it is not a member of.
q "ALTER ROLE e2e_dbguard CREATEDB" >/dev/null && q "ALTER DATABASE mx_ops_a OWNER TO e2e_dbguard" >/dev/null
refused=0
for cmd in "ALTER DATABASE mx_ops_a SET TABLESPACE pg_default" \
	"CREATE DATABASE mx_ops_copy TEMPLATE mx_ops_a OWNER postgres"; do
	out=$(psql -X -q -U e2e_dbguard -d postgres -v VERBOSITY=verbose -c "$cmd" 2>&1)
	case $out in *42501*) refused=$((refused + 1)) ;; *) echo "# $cmd: $out" ;; esac
done
is "$refused" 2 "its owner is refused a tablespace and an owner it has no right to (42501)"
is "$(wpid)" "$before" "and the launch worker kept running"
q "ALTER DATABASE mx_ops_a OWNER TO postgres" >/dev/null
q "DROP ROLE e2e_dbguard" >/dev/null
q "ALTER DATABASE mx_ops_a RENAME TO mx_ops_a2" >/dev/null && q "ALTER DATABASE mx_ops_a2 RENAME TO mx_ops_a" >/dev/null
ok $? "ALTER DATABASE ... RENAME while its worker runs"
q "CREATE DATABASE mx_ops_copy TEMPLATE mx_ops_b" >/dev/null && q "DROP DATABASE mx_ops_copy" >/dev/null
ok $? "CREATE DATABASE ... TEMPLATE a database whose worker runs"

for db in mx_ops_a mx_ops_b; do
	psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null 2>&1
	ok $? "DROP DATABASE $db while its worker runs"
done
done_testing
