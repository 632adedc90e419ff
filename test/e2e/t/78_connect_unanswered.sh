#!/usr/bin/env bash
# A server that accepts the launcher's connection and never answers (a
# stopped postmaster, a proxy whose backend is gone), with
# connect_timeout=0 in --dsn, libpq's "no limit": the launcher says so and
# connects with its own 10 s per host instead, so the attempt ends (and is
# tried again with back-off), SIGTERM ends the launcher, and a list of
# hosts goes on to the next one. Before, it waited in libpq without bound,
# deaf to SIGTERM. (A connection polled by the launcher itself had bounded
# the whole attempt but lost libpq's per-host timeout: the next host of a
# list was never tried. A review's finding; part 2.)
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
# 10 s per host; a busy machine gets slack
wait_until 40 "grep -q 'cannot connect: .*timeout expired' '$T/deaf.log'"
ok $? "the connection attempt ends, saying why" || diag "$(cat "$T/deaf.log")"
took=$(($(date +%s) - start))
ok "$([ "$took" -ge 9 ]; echo $?)" "... after the 10 s it takes instead (${took} s)"
is "$(grep -c "connect_timeout means no limit: 10 s per host instead" "$T/deaf.log")" 1 \
	"the launcher says it does not keep --dsn's connect_timeout=0, once"
# the next attempt: SIGTERM ends the launcher within that bound too (+ slack)
sleep 1
start=$(date +%s)
kill -TERM "$L"
wait_until 30 "! kill -0 $L 2>/dev/null"
ok $? "SIGTERM during the next attempt ends the launcher ($(($(date +%s) - start)) s)" || diag "$(cat "$T/deaf.log")"
kill -KILL "$L" 2>/dev/null	# one that did not end: the test has failed, and must not hang
wait "$L" 2>/dev/null

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

done_testing
