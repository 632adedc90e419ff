#!/usr/bin/env bash
# test/e2e/run.sh — the end-to-end suite: the background worker and real
# bin/mixdnn-launcher processes on a PostgreSQL cluster preloaded with
# mixdnn. Prints each test's TAP and a last line "e2e: N passed, N failed";
# exits non-zero on any failure.
#
#   test/e2e/run.sh                  all of test/e2e/t/*.sh on a throwaway cluster
#   test/e2e/run.sh t/02_cancel.sh   some of them
#
# It starts its own cluster (port MIXDNN_E2E_PORT, default 5497) because
# the tests restart the server and change settings. To use a running server
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

WORK=$(mktemp -d /tmp/mixdnn-e2e.XXXXXX)
chmod 777 "$WORK"
export MIXDNN_E2E_WORK=$WORK
if [ "${MIXDNN_E2E_USE_ENV:-}" != 1 ]; then
	. "$ROOT/test/lib/cluster.sh"
	trap 'cluster_stop; [ -n "${MIXDNN_E2E_KEEP:-}" ] || rm -rf "$WORK"' EXIT
	CLUSTER_PORT=${MIXDNN_E2E_PORT:-5497} cluster_start "$WORK/pg" || exit 1
	export MIXDNN_E2E_PGDATA=$WORK/pg/data
else
	trap '[ -n "${MIXDNN_E2E_KEEP:-}" ] || rm -rf "$WORK"' EXIT
fi

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=(t/*.sh)
fi
passed=0
failed=0
for t in "${tests[@]}"; do
	echo "# --- $t"
	start=$(date +%s)
	out=$(bash "$t" 2>&1)
	rc=$?
	echo "$out"
	p=$(grep -c '^ok ' <<<"$out")
	f=$(grep -c '^not ok ' <<<"$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	echo "# $t: $p passed, $f failed ($(($(date +%s) - start)) s)"
done
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
