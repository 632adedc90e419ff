#!/usr/bin/env bash
# test/e2e/run.sh — the end-to-end suite: the background worker and real
# bin/mixdnn-launcher processes on a PostgreSQL cluster preloaded with
# mixdnn. Prints each test's TAP and a last line "e2e: N passed, N failed,
# N skipped"; exits non-zero on any failure. A file fails unless it prints
# exactly one TAP plan (1..N) matching the tests it ran; "1..0 # SKIP why"
# counts the file as skipped, and "ok N # SKIP why" a test as skipped.
#
#   test/e2e/run.sh                  all of test/e2e/t/*.sh on a throwaway cluster
#   test/e2e/run.sh t/02_cancel.sh   some of them
#
# It starts its own cluster (port MIXDNN_E2E_PORT, default 5497) because
# the tests restart the server and change settings; given more than one
# file, it runs them in MIXDNN_E2E_JOBS shards at once (default 4), one
# cluster each from port 5500 (shards.sh). To use a running server
# instead, set MIXDNN_E2E_USE_ENV=1 with PGHOST/PGPORT/PGDATABASE/PGUSER (a
# superuser; mixdnn.launch_worker must be on in PGDATABASE) and, for the restart
# test, MIXDNN_E2E_PGDATA. MIXDNN_LAUNCHER overrides bin/mixdnn-launcher;
# MIXDNN_E2E_KEEP=1 keeps the scratch directory (logs, job output).
set -u
cd "$(dirname "$0")" || exit 2
E2E=$PWD
ROOT=$(cd ../.. && pwd)
export PATH="${MIXDNN_PG_BINDIR:-/usr/lib/postgresql/15/bin}:$PATH"
export MIXDNN_LAUNCHER=${MIXDNN_LAUNCHER:-$ROOT/bin/mixdnn-launcher}
if [ ! -x "$MIXDNN_LAUNCHER" ]; then
	echo "e2e: $MIXDNN_LAUNCHER is not built (run make)" >&2
	exit 2
fi

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=(t/*.sh)
fi

# Most of a file's time is waiting on real processes (leases, heartbeats,
# restarts), not CPU: without MIXDNN_E2E_USE_ENV the files run in
# MIXDNN_E2E_JOBS shards (default 4), each on its own cluster; see shards.sh.
if [ -z "${MIXDNN_E2E_SHARD:-}" ] && [ "${MIXDNN_E2E_USE_ENV:-}" != 1 ] &&
	[ "${MIXDNN_E2E_JOBS:-4}" -gt 1 ] && [ "${#tests[@]}" -gt 1 ]; then
	exec bash "$E2E/shards.sh" "${tests[@]}"
fi

WORK=$(mktemp -d /tmp/mixdnn-e2e.XXXXXX)
chmod 1777 "$WORK"	# sticky: the launchers' directories below stay their own
export MIXDNN_E2E_WORK=$WORK
if [ "${MIXDNN_E2E_USE_ENV:-}" != 1 ]; then
	. "$ROOT/test/lib/cluster.sh"
	trap 'cluster_stop; [ -n "${MIXDNN_E2E_KEEP:-}" ] || rm -rf "$WORK"' EXIT
	# prepared transactions: 20_bounded_waits.sh checks that none holds the scheduler
	CLUSTER_PORT=${MIXDNN_E2E_PORT:-5497} cluster_start "$WORK/pg" "max_prepared_transactions = 4" || exit 1
	export MIXDNN_E2E_PGDATA=$WORK/pg/data
else
	trap '[ -n "${MIXDNN_E2E_KEEP:-}" ] || rm -rf "$WORK"' EXIT
fi

passed=0
failed=0
skipped=0
for t in "${tests[@]}"; do
	echo "# --- $t"
	start=$(date +%s)
	out=$(bash "$t" 2>&1)
	rc=$?
	echo "$out"
	p=$(grep -cE '^ok [0-9]+' <<<"$out")
	s=$(grep -cE '^ok [0-9]+.*# *(SKIP|skip)' <<<"$out")
	f=$(grep -cE '^not ok [0-9]+' <<<"$out")
	p=$((p - s))
	# The plan: exactly one "1..N" whose N is the number of test lines, or
	# "1..0 # SKIP why" with none. No plan means the file stopped early.
	plans=$(grep -E '^1\.\.[0-9]+' <<<"$out")
	nplans=$(grep -c . <<<"$plans")
	planned=$(sed -n '1s/^1\.\.\([0-9]*\).*/\1/p' <<<"$plans")
	if [ "$nplans" -ne 1 ]; then
		echo "not ok - $t printed $nplans TAP plans (1..N), expected one"
		f=$((f + 1))
	elif [ "$planned" -ne $((p + s + f)) ]; then
		echo "not ok - $t planned $planned tests but ran $((p + s + f))"
		f=$((f + 1))
	elif [ "$planned" -eq 0 ]; then
		grep -qE '^1\.\.0 *# *(SKIP|skip)' <<<"$plans" || { echo "not ok - $t ran no test"; f=$((f + 1)); }
		s=$((s + 1))
		echo "# $t skipped: $(sed -n 's/^1\.\.0 *# *[Ss][Kk][Ii][Pp] *//p' <<<"$plans")"
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	echo "# $t: $p passed, $f failed, $s skipped ($(($(date +%s) - start)) s)"
done
echo "e2e: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
