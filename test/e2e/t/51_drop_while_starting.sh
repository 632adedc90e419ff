#!/usr/bin/env bash
# DROP DATABASE succeeds when it comes while the database's launch worker
# is still connecting: dbguard finds no worker to stop yet and pauses the
# database, and the worker, once connected, sees the pause and steps
# aside. Before, it stayed, and the DROP failed with "database is being
# accessed by other users" (a review). The worker is held connecting by a
# rename left open in another session (new connections wait for it); the
# times are PostgreSQL's and dbguard's real ones (a 10 s pause), so a
# slower machine only makes the race less likely, never the test fail.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"

fresh_db mx_ops_race
qd mx_ops_race "SET client_min_messages = warning; CREATE EXTENSION mixdnn" >/dev/null
wait_until 40 '[ "$(workers_in mx_ops_race)" = 1 ]'
ok $? "the database has its launch worker"

# A rename held open: dbguard stops the worker and pauses the database for
# 10 s; the worker the supervisor starts after the pause waits to connect.
psql -X -q -d postgres -c "BEGIN" -c "ALTER DATABASE mx_ops_race RENAME TO mx_ops_race_x" \
	-c "SELECT pg_sleep(16)" -c "ROLLBACK" >"$T/rename.log" 2>&1 &
renamer=$!
wait_until 10 '[ "$(workers_in mx_ops_race)" = 0 ]'
ok $? "the rename stopped the worker"
sleep 12	# past the pause: the supervisor's new worker waits to connect behind the rename
out=$(psql -X -q -d postgres -c "DROP DATABASE mx_ops_race" 2>&1)
ok $? "DROP DATABASE, sent while the new worker was connecting, succeeds ($out)"
wait "$renamer"
is "$(q "SELECT count(*) FROM pg_database WHERE datname = 'mx_ops_race'")" 0 "the database is gone"
done_testing
