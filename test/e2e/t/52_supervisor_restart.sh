#!/usr/bin/env bash
# A supervisor that exits while a worker it started is still connecting
# (SIGTERM, an error) takes that worker's handle with it. If the worker then
# fails before it attaches, no one learnt of it: the database's slot stayed
# "starting" and the database had no launch worker again until the server
# restarted (a review). The new supervisor now gives such slots back, and
# starts another worker. The worker is held connecting by a rename left
# open in another session (new connections wait for it), as in
# 51_drop_while_starting.sh; dbguard's pause (10 s) and the supervisor's
# restart (5 s) are their real times.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
DB=mx_ops_sup

fresh_db $DB
qd $DB "SET client_min_messages = warning; CREATE EXTENSION mixdnn" >/dev/null
wait_until 40 '[ "$(workers_in $DB)" = 1 ]'
ok $? "the database has its launch worker"
oid=$(q "SELECT oid FROM pg_database WHERE datname = '$DB'")
postmaster=$(head -1 "$MIXDNN_E2E_PGDATA/postmaster.pid")
connecting() {	# this cluster's workers for $DB, by process title (they are not in pg_stat_activity yet)
	pgrep -P "$postmaster" -f "mixdnn launch worker for database $oid([^0-9]|\$)"
}

# A rename held open: dbguard stops the worker and pauses the database for
# 10 s; the worker the supervisor starts after the pause waits to connect.
session_open renamer postgres
session_send "BEGIN; ALTER DATABASE $DB RENAME TO ${DB}_x; SELECT 'renamed';"
wait_until 10 "grep -q renamed '$T/renamer.out'"
ok $? "a rename of the database is held open" || diag "$(cat "$T/renamer.out")"
wait_until 30 "[ -n \"\$(connecting)\" ]"
ok $? "after the pause a new worker waits to connect" || diag "$(ps -ef | grep 'postgres:')"
orphan=$(connecting)

# Its supervisor exits (the postmaster restarts it after 5 s); the worker
# it started fails before it attaches.
sup=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'mixdnn supervisor'")
is "$(q "SELECT pg_terminate_backend($sup)")" t "the supervisor is terminated"
wait_until 20 "[ -n \"\$(q \"SELECT pid FROM pg_stat_activity WHERE backend_type = 'mixdnn supervisor' AND pid <> $sup\")\" ]"
ok $? "the postmaster starts another supervisor"
kill -TERM $orphan 2>/dev/null
wait_until 10 "! kill -0 $orphan 2>/dev/null"
ok $? "the worker the old supervisor started exits before it connects"
session_send "ROLLBACK;"
session_close

wait_until 40 '[ "$(workers_in $DB)" = 1 ]'
ok $? "the new supervisor starts the database's worker again"

# The same, but the old supervisor's worker lives on: once the rename ends
# it and the new supervisor's worker both connect, and only the first to
# attach serves (before, the second took the slot over and both served).
session_open renamer2 postgres
session_send "BEGIN; ALTER DATABASE $DB RENAME TO ${DB}_x; SELECT 'renamed';"
wait_until 10 "grep -q renamed '$T/renamer2.out'"
ok $? "the rename is held open again" || diag "$(cat "$T/renamer2.out")"
wait_until 30 "[ -n \"\$(connecting)\" ]"
sup=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'mixdnn supervisor'")
q "SELECT pg_terminate_backend($sup)" >/dev/null
wait_until 30 "[ \"\$(connecting | wc -l)\" = 2 ]"
ok $? "the old supervisor's worker and the new one's both wait to connect"
session_send "ROLLBACK;"
session_close
wait_until 20 "[ \"\$(connecting | wc -l)\" = 1 ] && [ \"\$(workers_in $DB)\" = 1 ]"
ok $? "once they connect, one serves and the other exits ($(connecting | wc -l) left, $(workers_in $DB) serving)"
psql -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null 2>&1
ok $? "DROP DATABASE $DB (its launch worker steps aside)"
done_testing
