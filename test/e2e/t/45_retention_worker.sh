#!/usr/bin/env bash
# The launch worker purges the history of jobs finished longer ago than
# mixdnn.history_retention: at its start, then hourly. A job cancelled on
# a virtual clock years back loses its events and plan revisions once the
# database's worker has started; a recent job keeps them. The worker is
# kept out while the history is written, so that its start comes after.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"

fresh_db mx_ops_retention
q "ALTER DATABASE mx_ops_retention SET mixdnn.launch_worker = off" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d mx_ops_retention >/dev/null <<'SQL'
SET client_min_messages = error;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 1);
BEGIN;
SET LOCAL mixdnn.virtual_now = '2020-01-01 00:00+00';
INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('old', 1, '1 hour'), ('older', 1, '1 hour');
UPDATE mixdnn.jobs SET status = 'cancelled';
COMMIT;
INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('recent', 1, '1 hour');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'recent';
SQL
ok $? "a database with two jobs finished in 2020 and one just now"
is "$(qd mx_ops_retention "SELECT count(DISTINCT job_id) FROM mixdnn.job_events")" 3 "all three have their events"
q "ALTER DATABASE mx_ops_retention RESET mixdnn.launch_worker" >/dev/null
wait_until 30 '[ "$(qd mx_ops_retention "SELECT count(*) FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) WHERE j.name <> '"'recent'"'")" = 0 ]'
ok $? "the worker purged the events of the jobs finished in 2020"
is "$(qd mx_ops_retention "SELECT count(*) FROM mixdnn.jobs")" 3 "the jobs themselves stay"
is "$(qd mx_ops_retention "SELECT count(*) > 0 FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) WHERE j.name = 'recent'")" t \
	"the recent job keeps its events"
grep -q "purged .* history rows older than mixdnn.history_retention" "$(dirname "$MIXDNN_E2E_PGDATA")/server.log" 2>/dev/null ||
	[ -z "${MIXDNN_E2E_PGDATA:-}" ]
ok $? "and the server log says so"
psql -X -q -d postgres -c "DROP DATABASE mx_ops_retention" >/dev/null 2>&1
ok $? "DROP DATABASE while its worker runs"
done_testing
