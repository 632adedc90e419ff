#!/usr/bin/env bash
# DROP EXTENSION committed while the launch worker's step runs: the step
# began with the extension there and then met a dropped table. The worker
# leaves quietly at its next cycle; before, it logged a WARNING "mixdnn
# worker ... step failed: relation "mixdnn.…" does not exist" for
# an ordinary drop (seen once in six drops right after a cancel).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
[ -n "${MIXDNN_E2E_PGDATA:-}" ] || skip_all "MIXDNN_E2E_PGDATA is not set: cannot read the server log"
log=$(dirname "$MIXDNN_E2E_PGDATA")/server.log
DB=mx_ops_drop_step

fresh_db $DB
qd $DB "SET client_min_messages = warning; CREATE EXTENSION mixdnn" >/dev/null
wait_until 30 "[ \"\$(workers_in $DB)\" = 1 ]"
ok $? "a launch worker serves the database"
before=$(grep -c 'mixdnn worker .* step failed' "$log")

# Every table of the extension locked, so the worker's next step, begun
# with the extension there, waits at its first table; then the drop commits.
session_open drop $DB
session_send "BEGIN;
DO \$\$ DECLARE t regclass; BEGIN
	FOR t IN SELECT c.oid FROM pg_class c WHERE c.relnamespace = 'mixdnn'::regnamespace AND c.relkind = 'r' LOOP
		EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', t);
	END LOOP; END \$\$;"
wait_until 30 "[ \"\$(q \"SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
	WHERE a.backend_type = 'mixdnn launch worker' AND a.datname = '$DB' AND NOT l.granted\")\" = 1 ]"
ok $? "the worker's step waits for a table of the extension"
session_send "SET client_min_messages = warning; DROP EXTENSION mixdnn; COMMIT;"
session_close
wait_until 30 "[ \"\$(workers_in $DB)\" = 0 ]"
ok $? "the worker leaves once the extension is dropped"
is "$(grep -c 'mixdnn worker .* step failed' "$log")" "$before" "and logs no failed step" ||
	diag "$(grep 'mixdnn worker .* step failed' "$log" | tail -2)"
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null
done_testing
