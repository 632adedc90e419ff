#!/usr/bin/env bash
# test/pgtap/run.sh — runs the pgTAP suite test/pgtap/*.sql against an
# existing cluster (PGHOST/PGPORT/PGUSER as usual; PGUSER must be a
# superuser). Creates a fresh database with pgtap and mixdnn, runs pg_prove
# on every test file, drops the database unless KEEP_DB=1, and exits non-zero
# when any test fails.
#
#   PGHOST=/tmp/mx-tests PGPORT=5433 test/pgtap/run.sh [test/pgtap/03_x.sql ...]
#
# Needs the extension installed (make install, or test/dev-install.sh), the
# cluster started with shared_preload_libraries = 'mixdnn' (test/lib/cluster.sh
# does that), postgresql-15-pgtap and pg_prove. No test depends on the
# background worker: the tests pin the clock with mixdnn.virtual_now and
# call mixdnn.launch_due() themselves.
set -u
here=$(cd "$(dirname "$0")" && pwd)
db=${MIXDNN_TAP_DB:-mixdnn_tap_$$}
export PGUSER=${PGUSER:-postgres}

if [ $# -gt 0 ]; then
	files=("$@")
else
	files=("$here"/[0-9]*.sql)
fi

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "SET client_min_messages = warning" \
	-c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" \
	-c "ALTER DATABASE $db SET mixdnn.launch_worker = off" || exit 2
cleanup() {
	if [ "${KEEP_DB:-0}" != 1 ]; then
		psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
	else
		echo "run.sh: kept database $db"
	fi
}
trap cleanup EXIT

psql -X -q -v ON_ERROR_STOP=1 -d "$db" \
	-c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION pgtap" \
	-c "CREATE EXTENSION mixdnn" || exit 2

pg_prove -d "$db" "${files[@]}"
rc=$?
exit $rc
