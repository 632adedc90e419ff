#!/usr/bin/env bash
# A server that accepts the launcher's connection and never answers (a
# stopped postmaster, a proxy whose backend is gone), with
# connect_timeout=0 in --dsn, libpq's "no limit": the launcher says so and
# connects with its own 10 s per host instead, so the attempt ends (and is
# tried again with back-off), SIGTERM ends the launcher, and a list of
# hosts goes on to the next one (part 2: libpq applies connect_timeout per
# host only when it waits itself, so a launcher that polled the attempt
# with one deadline of its own would never reach the second host).
#
# A listener on 127.0.0.1 that accepts and writes nothing stands in for
# the server that does not answer.
. "$(dirname "$0")/../lib.sh"

python3 - "$T/deaf.port" <<'PY' &
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
conns = []
s.settimeout(120)
try:
    while True:
        c, _ = s.accept()
        conns.append(c)		# kept open, never answered
except socket.timeout:
    pass
PY
DEAF=$!
# the listener first: a launcher stuck on it is then freed, and stopped
trap 'kill $DEAF 2>/dev/null; wait $DEAF 2>/dev/null; stop_all_launchers' EXIT
wait_until 10 "[ -s '$T/deaf.port' ]"
ok $? "(setup) a listener that never answers"
port=$(cat "$T/deaf.port")

reset_cluster
deaf_dsn="host=127.0.0.1 port=$port dbname=mixdnn user=nobody connect_timeout=0 sslmode=disable"

# 1. the only host does not answer
start=$(date +%s)
"$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/state-deaf" "${E2E_MIN_UID[@]}" --dsn "$deaf_dsn" \
	>"$T/deaf.log" 2>&1 &
L=$!
echo "$L" >"$T/launcher-deaf.pid"	# stopped at exit (stop_all_launchers) if a check fails
# 10 s per host; a busy machine gets slack
wait_until 40 "grep -q 'cannot connect: .*timeout expired' '$T/deaf.log'"
ok $? "the connection attempt ends, saying why" || diag "$(cat "$T/deaf.log")"
took=$(($(date +%s) - start))
ok "$([ "$took" -ge 9 ]; echo $?)" "... after the 10 s it takes instead (${took} s)"
# the next attempt: SIGTERM ends the launcher within that bound too (+ slack)
sleep 1
is "$(grep -c "connect_timeout means no limit: 10 s per host instead" "$T/deaf.log")" 1 \
	"the launcher says it does not keep --dsn's connect_timeout=0, once (the next attempt under way)"
start=$(date +%s)
kill -TERM "$L"
wait_until 30 "! kill -0 $L 2>/dev/null"
ok $? "SIGTERM during the next attempt ends the launcher ($(($(date +%s) - start)) s)" || diag "$(cat "$T/deaf.log")"
kill -KILL "$L" 2>/dev/null	# one that did not end: the test has failed, and must not hang
wait "$L" 2>/dev/null
rm -f "$T/launcher-deaf.pid"

# 2. the first host of two does not answer: the second, the cluster, serves
"$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/state-n1" "${E2E_MIN_UID[@]}" \
	--dsn "host=127.0.0.1,$PGHOST port=$port,$PGPORT dbname=$PGDATABASE user=$E2E_LAUNCHER_ROLE connect_timeout=0 sslmode=disable" \
	>"$T/launcher-n1.log" 2>&1 &
echo $! >"$T/launcher-n1.pid"
wait_until 40 "grep -q 'connected to database' '$T/launcher-n1.log'"
ok $? "a list of hosts: past the one that does not answer, the next one serves" || diag "$(cat "$T/launcher-n1.log")"
id=$(submit two-hosts hard a100 1 "true")
wait_until 30 "[ \"\$(status_of $id)\" = completed ]"
ok $? "... and runs its jobs"

# the listener goes before the launcher is stopped: one stuck on it (the
# check above failed) then ends at once, not when the listener gives up
kill "$DEAF" 2>/dev/null
done_testing
