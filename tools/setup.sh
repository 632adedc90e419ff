#!/usr/bin/env bash
# tools/setup.sh — installs what MixDNN needs on a fresh Debian 12 machine
# (when run as root), then builds and installs the extension and programs.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES="postgresql-15 postgresql-server-dev-15 postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
          libglpk-dev libpq-dev gcc make gnuplot-nox python3 python3-scipy prometheus-postgres-exporter chromium
          gdb python3-yaml"
# gdb: e2e 54 holds a launcher's keeper at one instruction to make a race certain.
# python3-yaml: e2e 80 reads the exporter's query file to run each query as its role.
# PyTorch for the e2e suite's distributed training (test/e2e/t/13_pytorch.sh):
# 177 packages, 608 MB installed, about a minute; only when the e2e suite
# runs (test/run_tests.sh sets MIXDNN_SETUP_TORCH=1 then).
if [ "${MIXDNN_SETUP_TORCH:-}" = 1 ]; then
	PACKAGES="$PACKAGES python3-torch"
fi

if [ "$(id -u)" = 0 ] && [ -z "${MIXDNN_SKIP_APT:-}" ]; then
	missing=""
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "setup: installing$missing" >&2
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
fi

# MIXDNN_PG_BINDIR selects another PostgreSQL 15 installation (for example
# a relocated copy, so that two checkouts can be tested side by side).
PG_BINDIR=${MIXDNN_PG_BINDIR:-/usr/lib/postgresql/15/bin}
export PATH="$PG_BINDIR:$PATH"
make -s -j2 PG_CONFIG="$PG_BINDIR/pg_config" all
make -s PG_CONFIG="$PG_BINDIR/pg_config" install >/dev/null
