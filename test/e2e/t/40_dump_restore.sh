#!/usr/bin/env bash
# pg_dump saves every table and sequence of the scheduler; a plain dump
# restored with psql -f and a custom one with pg_restore give the same rows,
# the restored database goes on scheduling, and what lets a restore through
# the validation triggers lets nothing else through.
# (As the other operations tests, it works in databases of its own.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
W=$T
SRC=mx_ops_dump

fresh_db $SRC
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mx_ops_waiter') THEN
	CREATE ROLE mx_ops_waiter; END IF; END \$\$" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d $SRC >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
SET mixdnn.virtual_now = '2040-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed, memory_gb) VALUES ('a100', 2.0, 80), ('v100', 1.0, 32), ('k80', 0.3, 12);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'a100', 4), ('n2', 'a100', 4), ('n3', 'v100', 2), ('n4', 'k80', 2);
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput)
	SELECT 'm', t, g, g * s FROM (VALUES ('a100', 2.0), ('v100', 1.0), ('k80', 0.3)) v(t, s), generate_series(1, 3) g;
-- Quotas and shares, one row naming a GPU type deleted since (it binds
-- nothing, and the restore must keep it as it was).
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('gone', 1.0);
INSERT INTO mixdnn.quotas (role, gpu_type, max_gpus) VALUES ('postgres', 'k80', 8), ('postgres', 'gone', 4),
	('postgres', NULL, 100);
DELETE FROM mixdnn.gpu_types WHERE gpu_type = 'gone';
INSERT INTO mixdnn.shares (role, shares) VALUES ('postgres', 2);
-- Two hard jobs on n1 and n2 (launched), one on v100 (launched, then failed),
-- one that completes, one cancelled, one planned behind them, one pending (k80 is down).
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES
	('run-a', 'hard', 'a100', 4, '1 hour', 'true'), ('run-b', 'hard', 'a100', 4, '1 hour', 'true'),
	('fail', 'hard', 'v100', 2, '1 hour', 'false');
SELECT mixdnn.launch_due();
SELECT count(*) FROM mixdnn.claim('n1');
SELECT count(*) FROM mixdnn.claim('n3');
SELECT mixdnn.finish(job_id, 3, 'n3') FROM mixdnn.jobs WHERE name = 'fail';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES
	('done', 'hard', 'v100', 1, '1 minute', 'true'), ('waits', 'hard', 'a100', 8, '1 hour', 'true'),
	('cancel', 'hard', 'a100', 8, '1 hour', 'true');
SELECT mixdnn.launch_due();
SELECT count(*) FROM mixdnn.claim('n3');
SELECT mixdnn.finish(job_id, 0, 'n3') FROM mixdnn.jobs WHERE name = 'done';
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'cancel';
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = 'n4';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES ('pends', 'hard', 'k80', 2, '1 hour', 'true');
-- A user whose quota allows more waiting jobs than the restoring session's
-- mixdnn.max_waiting_jobs (2, below): the restore must load them all.
GRANT mixdnn_user TO mx_ops_waiter;
INSERT INTO mixdnn.quotas (role, max_waiting_jobs) VALUES ('mx_ops_waiter', 10);
INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration, command)
	SELECT 'waiter-' || i, 'mx_ops_waiter', 'hard', 'k80', 2, '1 hour', 'true' FROM generate_series(1, 3) i;
-- A row that fails today's launch checks, as an upgraded 0.1.0 database may hold
-- (commands had no bound there; the relative workdir stands for any other value).
ALTER TABLE mixdnn.jobs DISABLE TRIGGER jobs_check_env;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, workdir)
	VALUES ('old', 'hard', 'k80', 2, '1 hour', repeat('x', 70000), 'relative/dir');
ALTER TABLE mixdnn.jobs ENABLE TRIGGER jobs_check_env;
SQL
ok $? "a database with jobs, nodes, types, profiles, quotas, shares and history"
is "$(qd $SRC "SELECT string_agg(DISTINCT status, ',' ORDER BY status) FROM mixdnn.jobs")" \
	"cancelled,completed,failed,launching,pending,planned,running" "it has a job in every status"

pg_dump -d $SRC -f "$W/plain.sql"
ok $? "pg_dump, plain format"
pg_dump -d $SRC -Fc -f "$W/custom.dump"
ok $? "pg_dump, custom format"
# A backup role that only reads cannot dump (row-level security; pg_dump
# runs with row_security off); with BYPASSRLS it can (docs/operations.md).
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mx_ops_backup') THEN
	CREATE ROLE mx_ops_backup LOGIN IN ROLE pg_read_all_data; END IF; END \$\$" >/dev/null
q "ALTER ROLE mx_ops_backup NOBYPASSRLS" >/dev/null
like "$(pg_dump -U mx_ops_backup -d $SRC -f /dev/null 2>&1)" 'row-level security policy for table "jobs"' \
	"a reading role (pg_read_all_data) cannot dump: row-level security"
q "ALTER ROLE mx_ops_backup BYPASSRLS" >/dev/null
pg_dump -U mx_ops_backup -d $SRC -f "$W/backup.sql"
is "$?,$(grep -c '^COPY mixdnn\.' "$W/backup.sql")" "0,12" "with BYPASSRLS it dumps the 12 tables' rows"
is "$(grep -c '^COPY mixdnn\.' "$W/plain.sql")" 12 "the dump has the rows of the 12 tables registered for it"
# The extension alone, as docs/operations.md says to dump it; not the
# schema, which belongs to the extension and so is left out with its rows.
pg_dump -d $SRC -e mixdnn -f "$W/ext.sql" && pg_dump -d $SRC -n mixdnn -f "$W/schema.sql"
ok $? "pg_dump --extension=mixdnn, and -n mixdnn"
is "$(grep -c '^CREATE EXTENSION IF NOT EXISTS mixdnn\|^COPY mixdnn\.' "$W/ext.sql") $(grep -c '^COPY \|^CREATE ' "$W/schema.sql")" \
	"13 0" "--extension=mixdnn dumps the extension and its 12 tables' rows; -n mixdnn dumps none of it"

# The rows are compared before the launch worker may serve the copies: once
# a load ends the worker repairs and runs a "restore" round there, which
# writes rounds of its own.
for db in mx_ops_plain mx_ops_custom; do
	fresh_db $db
	qd postgres "ALTER DATABASE $db SET mixdnn.launch_worker = off" >/dev/null
done
export PGOPTIONS="-c mixdnn.max_waiting_jobs=2"
psql -X -q -v ON_ERROR_STOP=1 -d mx_ops_plain -f "$W/plain.sql" >"$W/plain.log" 2>&1
ok $? "psql -f restores the plain dump (a user's 3 waiting jobs above the session's limit of 2)" ||
	sed 's/^/# /' "$W/plain.log"
pg_restore -e -d mx_ops_custom "$W/custom.dump" >"$W/custom.log" 2>&1
ok $? "pg_restore restores the custom dump" || sed 's/^/# /' "$W/custom.log"
unset PGOPTIONS

table_rows $SRC >"$W/src.txt"
for db in mx_ops_plain mx_ops_custom; do
	table_rows $db >"$W/$db.txt"
	diff -u "$W/src.txt" "$W/$db.txt" >"$W/$db.diff"
	ok $? "$db has the same rows and sequence values as the original" || head -40 "$W/$db.diff" | sed 's/^/# /'
	# The next commit there that wants a worker has the supervisor start one
	# (mx_ops_custom's, below).
	[ "$db" = mx_ops_custom ] || qd postgres "ALTER DATABASE $db RESET mixdnn.launch_worker" >/dev/null
done

# mx_ops_custom is restored with its worker off. A commit there that asks for
# a worker gets one that finds the database opted out: it leaves the load's
# repair and round to a worker that serves it (before, it planned and took
# the load's event, even while the load ran: a round id taken then collides
# with the rounds still to load, and the worker that served it later never
# repaired after the load).
qd mx_ops_custom "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('wake', 'hard', 'v100', 1, '1 hour', 'true')" >/dev/null
wait_until 30 "grep -q 'mixdnn launch worker is off for database \"mx_ops_custom\": a data load there is repaired' \
	'$(dirname "$MIXDNN_E2E_PGDATA")/server.log'"
ok $? "a worker that finds the restored database opted out leaves the load's round to a worker that serves it"
is "$(qd mx_ops_custom "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%restore%'")" 0 "... and ran none"
# The supervisor looks at an opted-out database every 30 s; each look logged
# the load left pending again, for as long as the database stayed off.
sleep 42
is "$(grep -c 'mixdnn launch worker is off for database "mx_ops_custom"' "$(dirname "$MIXDNN_E2E_PGDATA")/server.log")" 1 \
	"... and says so once, not at each of the supervisor's looks"
qd postgres "ALTER DATABASE mx_ops_custom RESET mixdnn.launch_worker" >/dev/null
qd mx_ops_custom "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('wake-2', 'hard', 'v100', 1, '1 hour', 'true')" >/dev/null
wait_until 30 "[ \"\$(qd mx_ops_custom \"SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%restore%'\")\" = 1 ]"
ok $? "turned on, its worker runs the load's restore round"

# Keeps scheduling: a new job gets the next id and a plan, a running job's
# launcher goes on with it.
got=$(psql -X -q -A -t -v ON_ERROR_STOP=1 -d mx_ops_plain <<'SQL'
SET mixdnn.virtual_now = '2040-01-01 00:10+00';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES ('new', 'hard', 'v100', 2, '1 hour', 'true');
SELECT job_id > (SELECT max(job_id) FROM mixdnn.jobs WHERE name <> 'new'), status FROM mixdnn.jobs WHERE name = 'new';
SQL
)
is "$got" "t|planned" "a submission after the restore gets a new id and a plan"
is "$(qd mx_ops_plain "SET mixdnn.virtual_now = '2040-01-01 00:10+00'; SELECT mixdnn.heartbeat('n1')")" 1 \
	"the launcher of a running job heartbeats it in the restored database"
is "$(qd mx_ops_plain "SET mixdnn.virtual_now = '2040-01-01 00:20+00';
	SELECT mixdnn.finish(job_id, 0, 'n1') FROM mixdnn.jobs WHERE name = 'run-a';
	SELECT status FROM mixdnn.jobs WHERE name = 'run-a'" | tail -1)" completed "and reports it finished"

# On the real clock, a launcher of the restored database runs a new job.
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$E2E_LAUNCHER_ROLE') THEN
	CREATE ROLE $E2E_LAUNCHER_ROLE LOGIN; END IF; END \$\$" >/dev/null
qd mx_ops_plain "GRANT mixdnn_launcher TO $E2E_LAUNCHER_ROLE;
	INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('h100', 3.0);
	INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n5', 'h100', 2)" >/dev/null
PGDATABASE=mx_ops_plain start_launcher n5
job=$(PGDATABASE=mx_ops_plain submit now hard h100 2 "$(job_cmd 1 4)" '1 s')
wait_until 30 "[ \"\$(qd mx_ops_plain 'SELECT status FROM mixdnn.jobs WHERE job_id = $job')\" = failed ]"
ok $? "a job submitted to the restored database is launched by its worker and run by a launcher"
is "$(qd mx_ops_plain "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $job")" 4 "its exit code is recorded"
stop_launcher n5

# The door a restore uses is closed to everyone else.
out=$(printf 'x\t100\t1 hour\n' | psql -X -q -d mx_ops_plain -c "COPY mixdnn.jobs (name, gpus, duration) FROM STDIN" 2>&1)
like "$out" "no configuration of the cluster can run this job" "a superuser's COPY with row_security on is validated"
qd mx_ops_plain "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mx_ops_admin') THEN
	CREATE ROLE mx_ops_admin LOGIN IN ROLE mixdnn_admin; END IF; END \$\$" >/dev/null
out=$(printf 'x\t100\t1 hour\n' | PGUSER=mx_ops_admin psql -X -q -d mx_ops_plain \
	-c "SET row_security = off" -c "COPY mixdnn.jobs (name, gpus, duration) FROM STDIN" 2>&1)
like "$out" "no configuration of the cluster can run this job|row-level security" \
	"an admin's COPY with row_security off, as pg_dump loads, is refused"
out=$(printf 'y\t1\t1 hour\tcompleted\n' | psql -X -q -d mx_ops_plain \
	-c "SET row_security = off" -c "INSERT INTO mixdnn.jobs (name, gpus, duration, status) VALUES ('y', 1, '1 hour', 'completed')" 2>&1)
like "$out" "a new job must have status pending" "a superuser's INSERT with row_security off is validated"

# A superuser's COPY with row_security off is a load too: the node trigger
# that keeps mixdnn.gpus does not run. The worker's repair after the load
# gives the node its GPUs (before, none: every launch of the database then
# failed on the missing GPU's foreign key).
printf 'n9\th100\t2\n' | psql -X -q -d mx_ops_plain -c "SET row_security = off" \
	-c "COPY mixdnn.gpu_nodes (node, gpu_type, gpus) FROM STDIN" >/dev/null 2>&1
ok $? "a superuser's COPY of node n9 with row_security off"
wait_until 40 "[ \"\$(qd mx_ops_plain \"SELECT string_agg(gpu_index::text, ',' ORDER BY gpu_index) FROM mixdnn.gpus WHERE node = 'n9'\")\" = '0,1' ]"
ok $? "once the load ends the worker's repair gives n9 its GPUs 0 and 1"

# A data-only restore into a database whose launch worker already runs
# (its start cycle ran on the empty tables) loads every round and every
# plan revision. Before, that cycle recorded a round on the empty cluster,
# took round_id 1, and the load's rounds and plan history failed (a review).
fresh_db mx_ops_data
qd mx_ops_data "SET client_min_messages = warning; CREATE EXTENSION mixdnn" >/dev/null
wait_until 40 "[ \"\$(qd postgres \"SELECT count(*) FROM pg_stat_activity WHERE datname = 'mx_ops_data'
	AND backend_type = 'mixdnn launch worker' AND state = 'idle'\")\" = 1 ]"
ok $? "the empty target's worker has run its start cycle"
is "$(qd mx_ops_data "SELECT count(*) FROM mixdnn.rounds")" 0 "it recorded no round on an empty cluster"
pg_dump --data-only -d $SRC -f "$W/data.sql"
psql -X -q -v ON_ERROR_STOP=1 -d mx_ops_data -f "$W/data.sql" >"$W/data.log" 2>&1
ok $? "the data-only dump loads" || diag "$(tail -5 "$W/data.log")"
last=$(qd $SRC "SELECT max(round_id) FROM mixdnn.rounds")
is "$(qd mx_ops_data "SELECT count(*) FROM mixdnn.rounds WHERE round_id <= $last"),$(qd mx_ops_data "SELECT count(*) FROM mixdnn.plan_history WHERE round_id <= $last")" \
	"$(qd $SRC "SELECT count(*) FROM mixdnn.rounds"),$(qd $SRC "SELECT count(*) FROM mixdnn.plan_history")" \
	"with every round and plan revision of the source"
psql -X -q -d postgres -c "DROP DATABASE mx_ops_data" >/dev/null 2>&1

# pg_dump --disable-triggers: each table's triggers are off while it loads,
# so no trigger sees the load. The COPY itself takes the load lock as it
# starts (before, nothing did, and the worker repaired and planned the
# half-loaded tables between two COPYs, and never learnt of the load: no
# restore round, no renewed leases). The loading session stays connected
# here: the worker waits for it, then repairs and plans.
fresh_db mx_ops_dt
qd mx_ops_dt "SET client_min_messages = warning; CREATE EXTENSION mixdnn" >/dev/null
wait_until 40 "[ \"\$(qd postgres \"SELECT count(*) FROM pg_stat_activity WHERE datname = 'mx_ops_dt'
	AND backend_type = 'mixdnn launch worker' AND state = 'idle'\")\" = 1 ]"
ok $? "the empty target's worker has run its start cycle"
pg_dump --data-only --disable-triggers -d $SRC -f "$W/dt.sql"
is "$(grep -c '^ALTER TABLE .*DISABLE TRIGGER ALL;' "$W/dt.sql")" "$(grep -c '^COPY mixdnn\.' "$W/dt.sql")" \
	"pg_dump --data-only --disable-triggers turns each table's triggers off around its COPY"
session_open loader mx_ops_dt
# in one transaction, as pg_restore -1 loads: the table locks its ALTER
# TABLEs take are kept until the end, after the load lock
session_send "BEGIN;"
session_send "\i $W/dt.sql"
session_send "SELECT 'loaded';"
wait_until 30 "grep -q loaded '$T/loader.out'"
ok $? "the dump loads in one transaction of a session that stays connected" || diag "$(tail -5 "$T/loader.out")"
load_lock="SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database
	WHERE datname = 'mx_ops_dt') AND classid = x'4d495844'::int::oid AND objid = x'4c4f4144'::int::oid
	AND objsubid = x'4d5a'::int AND mode = 'ShareLock' AND granted"
is "$(qd postgres "$load_lock")" 1 "its ALTER TABLEs and COPYs took the load lock, with every trigger off"
session_send "COMMIT;"
session_close
wait_until 40 "[ \"\$(qd mx_ops_dt \"SELECT count(*) FROM mixdnn.rounds WHERE event = 'restore'\")\" = 1 ]"
ok $? "once it disconnects the worker runs its restore round"
psql -X -q -d postgres -c "DROP DATABASE mx_ops_dt" >/dev/null 2>&1

# A plain DROP DATABASE needs the database to itself; its worker steps aside.
wait_until 20 '[ "$(workers_in mx_ops_plain)" = 1 ]'
is "$(workers_in mx_ops_plain)" 1 \
	"the restored database has its launch worker"
for db in $SRC mx_ops_plain mx_ops_custom; do
	psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null 2>&1
	ok $? "DROP DATABASE $db (its launch worker steps aside)"
done
done_testing
