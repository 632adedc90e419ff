#!/bin/sh
# tools/packaging/install-launcher.sh — installs bin/mixdnn-launcher alone on a GPU
# node: it needs libpq (Debian: libpq5 to run, libpq-dev and gcc to build),
# not the PostgreSQL server. Run as root from a checkout:
#
#   sh tools/packaging/install-launcher.sh [PREFIX]      (default /usr/local)
#
# Builds with plain cc (no PGXS), installs PREFIX/bin/mixdnn-launcher, the
# systemd template unit, and /etc/mixdnn/ with a launcher.env to fill in and
# an empty launcher.password readable by root only. docs/launcher.md says
# what to put there and how to start an instance per node.
set -eu
cd "$(dirname "$0")/../.."
prefix=${1:-/usr/local}
incdir=$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
libdir=$(pg_config --libdir 2>/dev/null || echo /usr/lib)

mkdir -p build/launcher-only
cc -O2 -Wall -o build/launcher-only/mixdnn-launcher src/launcher/*.c -I"$incdir" -L"$libdir" -lpq
install -D -m 755 build/launcher-only/mixdnn-launcher "$prefix/bin/mixdnn-launcher"
if [ -d /etc/systemd/system ]; then
	sed "s|/usr/local/bin/mixdnn-launcher|$prefix/bin/mixdnn-launcher|" tools/packaging/mixdnn-launcher@.service \
		>/etc/systemd/system/mixdnn-launcher@.service
	command -v systemctl >/dev/null && systemctl daemon-reload 2>/dev/null || true
fi
install -d -m 755 /etc/mixdnn
[ -f /etc/mixdnn/launcher.env ] || printf '%s\n' '# libpq settings of the launchers on this node (no password here)' \
	'PGHOST=db.example.org' 'PGPORT=5432' 'PGDATABASE=mixdnn' 'PGUSER=launcher_node' \
	'PGSSLMODE=verify-full' >/etc/mixdnn/launcher.env
[ -f /etc/mixdnn/launcher.password ] || install -m 600 /dev/null /etc/mixdnn/launcher.password
echo "installed $prefix/bin/mixdnn-launcher; edit /etc/mixdnn/launcher.env and launcher.password," \
	"then: systemctl enable --now mixdnn-launcher@NODE"
