#!/usr/bin/env bash
# mixdnn.launch_worker = off set for the whole server (postgresql.conf or
# ALTER SYSTEM) and reloaded stops the running launch workers: they read
# the setting again at the reload, as they read mixdnn.worker_poll_interval.
# Before, a worker read it only when it connected, so one already serving a
# database went on launching jobs until the server restarted (an audit).
# Reset and reloaded, the database is served again at the supervisor's next
# look (at most 30 s).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
DB=mx_ops_reload

fresh_db $DB
psql -X -q -v ON_ERROR_STOP=1 -d $DB >/dev/null <<'SQL'
SET client_min_messages = error;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2);
SQL
ok $? "a database with a node"
wait_until 40 "[ \"\$(workers_in $DB)\" = 1 ]"
ok $? "its launch worker runs"

q "ALTER SYSTEM SET mixdnn.launch_worker = off" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_until 15 "[ \"\$(workers_in $DB)\" = 0 ]"
ok $? "turned off for the server and reloaded, the worker stops serving the database"

qd $DB "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('j', 'hard', 'v100', 1, '1 hour', 'true')" >/dev/null
sleep 3
is "$(qd $DB "SELECT status FROM mixdnn.jobs WHERE name = 'j'"),$(workers_in $DB)" "planned,0" \
	"a job submitted then is planned at commit and not launched: no worker serves the database"

q "ALTER SYSTEM RESET mixdnn.launch_worker" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_until 45 "[ \"\$(qd $DB \"SELECT status FROM mixdnn.jobs WHERE name = 'j'\")\" = launching ]"
ok $? "reset and reloaded, the database is served again and the job launched"

# plan_mode = worker: a transaction that found the worker serving leaves its
# round to it; committed after the reload stopped the worker, its events
# waited in shared memory for the supervisor's next look (up to 30 s). The
# commit now has a worker started at once, which plans them as it exits.
q "ALTER SYSTEM SET mixdnn.plan_mode = worker" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait_until 45 "[ \"\$(workers_in $DB)\" = 1 ]"
ok $? "served again, with plan_mode = worker"
qd $DB "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('wide', 'hard', 'v100', 2, '1 hour', 'true')" >/dev/null
wait_until 15 "[ \"\$(qd $DB \"SELECT status FROM mixdnn.jobs WHERE name = 'wide'\")\" = planned ]"
like "$(qd $DB "SELECT reason FROM mixdnn.jobs WHERE name = 'wide'")" 'waiting for 2 v100 GPUs' \
	"a job wider than the GPUs left waits"
PGDATABASE=$DB psql -X -q -c "BEGIN" \
	-c "INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n2', 'v100', 2)" \
	-c "SELECT pg_sleep(4)" -c "COMMIT" >/dev/null 2>&1 &
adder=$!
sleep 1
q "ALTER SYSTEM SET mixdnn.launch_worker = off" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
wait $adder
ok $? "a node added in a transaction open across the reload commits"
wait_until 10 "[ \"\$(qd $DB \"SELECT (planned_start < mixdnn.now() + interval '5 min')::text FROM mixdnn.jobs WHERE name = 'wide'\")\" = true ]"
ok $? "... and its round runs soon after its commit, not at the supervisor's next look" ||
	diag "$(qd $DB "SELECT status, planned_start, reason FROM mixdnn.jobs WHERE name = 'wide'")"
wait_until 10 "[ \"\$(workers_in $DB)\" = 0 ]"
ok $? "... by a worker that does not stay"
q "ALTER SYSTEM RESET mixdnn.launch_worker" >/dev/null
q "ALTER SYSTEM RESET mixdnn.plan_mode" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null

# The tests after this one expect their own database served again too.
if [ "$(q "SELECT count(*) FROM pg_extension WHERE extname = 'mixdnn'")" = 1 ]; then
	wait_until 45 "[ \"\$(workers_in \"\$PGDATABASE\")\" = 1 ]"
	ok $? "and so is the test database"
else
	skip 1 "no extension in the test database"
fi
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null 2>&1
done_testing
