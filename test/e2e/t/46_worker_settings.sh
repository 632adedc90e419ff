#!/usr/bin/env bash
# The launch worker's transactions are its own, whatever the database or
# role defaults: with default_transaction_isolation = serializable and
# default_transaction_read_only = on set for the database, it still plans,
# launches and expires leases, and logs no failed step. Before, every step
# failed for ever (read-only) or dozens of times a minute (serializable),
# each failure a WARNING (a review). A failure that repeats is logged once a
# minute.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
[ -n "${MIXDNN_E2E_PGDATA:-}" ] || skip_all "MIXDNN_E2E_PGDATA is not set: cannot read the server log"
log=$(dirname "$MIXDNN_E2E_PGDATA")/server.log

fresh_db mx_ops_settings
q "ALTER DATABASE mx_ops_settings SET mixdnn.launch_worker = off" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d mx_ops_settings >/dev/null <<'SQL'
SET client_min_messages = error;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2);
SQL
ok $? "a database with a node, its worker off"
q "ALTER DATABASE mx_ops_settings SET default_transaction_isolation = 'serializable'" >/dev/null
q "ALTER DATABASE mx_ops_settings SET default_transaction_read_only = on" >/dev/null
before=$(grep -c 'mixdnn worker .* step failed' "$log")
# The submitting session overrides the read-only default for itself; its
# serializable transaction hands the round to the worker.
PGOPTIONS="-c default_transaction_read_only=off" qd mx_ops_settings \
	"INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES ('j', 'hard', 'v100', 1, '1 hour', 'true')" >/dev/null
ok $? "a job submitted"
q "ALTER DATABASE mx_ops_settings RESET mixdnn.launch_worker" >/dev/null
wait_until 40 "[ \"\$(qd mx_ops_settings \"SELECT status FROM mixdnn.jobs WHERE name = 'j'\")\" = launching ]"
ok $? "the worker, under serializable and read-only defaults, planned and launched the job"
is "$(grep -c 'mixdnn worker .* step failed' "$log")" "$before" "and logged no failed step"
psql -X -q -d postgres -c "DROP DATABASE mx_ops_settings" >/dev/null 2>&1
ok $? "DROP DATABASE while its worker runs"
done_testing
