#!/usr/bin/env bash
# test/run_tests.sh — the whole test suite: installs what it needs, builds,
# starts a throwaway PostgreSQL cluster and runs every suite against it.
#   unit     C unit tests of the planner core (no PostgreSQL)
#   regress  pg_regress: the SQL surface
#   pgtap    pgTAP via pg_prove: behaviour inside PostgreSQL
#   sim      bin/mixdnn-sim and the baseline policies
#   upgrade  every released version upgrades to a fresh install's catalog
#   diff     the extension and bin/mixdnn-sim make the same schedule (test/sim/differential.sh)
#   e2e      background worker + real bin/mixdnn-launcher processes
#   cli      bin/mixdnn as two users run it (test/cli/run.sh)
# Run one suite with: test/run_tests.sh pgtap
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# The e2e suite's training job needs PyTorch, which only it installs.
case " ${*:-e2e} " in *" e2e "*) export MIXDNN_SETUP_TORCH=1 ;; esac
bash tools/setup.sh || exit 1
export PATH="$ROOT/bin:${MIXDNN_PG_BINDIR:-/usr/lib/postgresql/15/bin}:$PATH"

. test/lib/cluster.sh
WORK=$(mktemp -d /tmp/mixdnn-test.XXXXXX)
chmod 755 "$WORK"
trap 'cluster_stop; rm -rf "$WORK"' EXIT
CLUSTER_PORT=${MIXDNN_TEST_PORT:-5499} cluster_start "$WORK/pg" || exit 1

suites=${*:-unit regress pgtap upgrade sim diff e2e cli}
passed=0
failed=0
failed_names=""
for suite in $suites; do
	case $suite in
		unit) cmd="make -s unitcheck" ;;
		regress) cmd="bash test/regress.sh" ;;
		pgtap) cmd="bash test/pgtap/run.sh" ;;
		upgrade) cmd="bash test/upgrade/run.sh" ;;
		sim) cmd="bash test/sim/run.sh" ;;
		diff) cmd="sh test/sim/differential.sh bin/mixdnn-sim" ;;
		e2e) cmd="bash test/e2e/run.sh" ;;
		cli) cmd="bash test/cli/run.sh" ;;
		*) echo "unknown suite: $suite" >&2; exit 2 ;;
	esac
	echo "=== $suite: $cmd"
	start=$(date +%s)
	if $cmd; then
		passed=$((passed + 1))
		echo "=== $suite: ok ($(($(date +%s) - start)) s)"
	else
		failed=$((failed + 1))
		failed_names="$failed_names $suite"
		echo "=== $suite: FAILED ($(($(date +%s) - start)) s)"
	fi
done

[ -n "$failed_names" ] && echo "failed suites:$failed_names"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
