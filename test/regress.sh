#!/usr/bin/env bash
# test/regress.sh — runs the pg_regress suite (sql/[0-9]*.sql against
# expected/*.out) with `make installcheck` on an existing cluster given by
# PGHOST/PGPORT (PGUSER a superuser). On failure prints regression.diffs and
# exits non-zero.
#
#   PGHOST=/tmp/mx-tests PGPORT=5433 test/regress.sh
set -u
cd "$(dirname "$0")/.." || exit 2
export PGUSER=${PGUSER:-postgres}
mkdir -p build/regress
rm -f build/regress/regression.diffs build/regress/regression.out
make -s installcheck "$@"
rc=$?
if [ $rc -ne 0 ]; then
	if [ -f build/regress/regression.diffs ]; then
		echo "==== build/regress/regression.diffs ===="
		cat build/regress/regression.diffs
	fi
	exit $rc
fi
exit 0
