#!/usr/bin/env bash
# A server that accepts the launcher's connection and never answers (a
# stopped postmaster, a proxy whose backend is gone), with connect_timeout=0
# in --dsn (libpq's "no limit"): the connection attempt is waited for at
# most as long as a call's answer (two heartbeat intervals, at least 10 s:
# 10 s with --heartbeat-interval 2), then the launcher logs why and tries
# again with back-off. Before, it waited in libpq without bound, and
# SIGTERM did not end it.
#
# A listener on 127.0.0.1 that accepts and writes nothing
# stands in for the server (no cluster is needed).
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
trap 'kill $DEAF 2>/dev/null; wait $DEAF 2>/dev/null' EXIT
wait_until 10 "[ -s '$T/deaf.port' ]"
ok $? "(setup) a listener that never answers"
port=$(cat "$T/deaf.port")

start=$(date +%s)
"$MIXDNN_LAUNCHER" --node n1 --state-dir "$T/state-deaf" --heartbeat-interval 2 "${E2E_MIN_UID[@]}" \
	--dsn "host=127.0.0.1 port=$port dbname=mixdnn user=nobody connect_timeout=0 sslmode=disable" \
	>"$T/deaf.log" 2>&1 &
L=$!
# the bound is 10 s; a busy machine gets slack
wait_until 40 "grep -q 'cannot connect: no answer from the server within 10 s' '$T/deaf.log'"
ok $? "the connection attempt ends within its bound, saying why" || diag "$(cat "$T/deaf.log")"
took=$(($(date +%s) - start))
ok "$([ "$took" -ge 9 ]; echo $?)" "... not before it (${took} s)"
# the next attempt: SIGTERM ends the launcher within that bound too (+ slack)
sleep 1
start=$(date +%s)
kill -TERM "$L"
wait_until 30 "! kill -0 $L 2>/dev/null"
ok $? "SIGTERM during the next attempt ends the launcher ($(($(date +%s) - start)) s)" || diag "$(cat "$T/deaf.log")"
kill -KILL "$L" 2>/dev/null	# one that did not end: the test has failed, and must not hang
wait "$L" 2>/dev/null

done_testing
