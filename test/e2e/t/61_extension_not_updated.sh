#!/usr/bin/env bash
# A launcher of this version against a database whose extension is not
# updated yet (0.1.0: no mixdnn.claim_parts, no job_parts.launch_token)
# gives up at once, as for any configuration error: exit status 2, and a
# message that says to update the extension first (docs/operations.md,
# "Versions and upgrades": the extension first, then the launchers).
# Before, its first node_parts call failed with SQLSTATE 42703, which it
# retried without end and without a hint, and it never adopted the keepers
# left to it. Once the extension is updated, a launcher connects.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"

q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$E2E_LAUNCHER_ROLE') THEN
	CREATE ROLE $E2E_LAUNCHER_ROLE LOGIN; END IF; END \$\$" >/dev/null
fresh_db mx_old
psql -X -q -v ON_ERROR_STOP=1 -d mx_old >/dev/null <<-SQL
	SET client_min_messages = error;
	CREATE EXTENSION mixdnn VERSION '0.1.0';
	GRANT mixdnn_launcher TO $E2E_LAUNCHER_ROLE;
	INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
	INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('old-n1', 'v100', 2);
SQL
ok $? "(setup) a database with the extension at 0.1.0"

PGDATABASE=mx_old start_launcher old-n1
pid=$(launcher_pid old-n1)
wait_until 15 "! kill -0 $pid 2>/dev/null"
ok $? "the launcher gives up" || diag "$(tail -5 "$T/launcher-old-n1.log")"
kill -0 "$pid" 2>/dev/null && kill -TERM "$pid"	# still retrying: stopped, not waited for
wait "$pid"
is "$?" 2 "with exit status 2, a configuration error"
rm -f "$T/launcher-old-n1.pid"
grep -q 'has no launch tokens (mixdnn.claim_parts), which this launcher needs: update the extension first: ALTER EXTENSION mixdnn UPDATE' \
	"$T/launcher-old-n1.log"
ok $? "and says to update the extension first" || diag "$(tail -5 "$T/launcher-old-n1.log")"
! grep -q "42703" "$T/launcher-old-n1.log"
ok $? "no call failed for a missing column"

qd mx_old "ALTER EXTENSION mixdnn UPDATE" >/dev/null
ok $? "(setup) the extension is updated"
PGDATABASE=mx_old start_launcher old-n1
wait_until 15 "grep -q 'connected to database \"mx_old\"' '$T/launcher-old-n1.log'"
ok $? "then a launcher connects" || diag "$(tail -5 "$T/launcher-old-n1.log")"
stop_launcher old-n1
done_testing
