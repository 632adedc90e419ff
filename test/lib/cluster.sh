# test/lib/cluster.sh — a throwaway PostgreSQL 15 cluster for tests and the
# demo. Source it, then: cluster_start DIR [extra postgresql.conf lines];
# cluster_stop. Sets PGHOST, PGPORT, PGUSER, PGDATABASE for the callers.
#
# PostgreSQL refuses to run as root, so the cluster belongs to the postgres
# OS user and listens only on a Unix socket inside DIR.

PG_BIN=${PG_BIN:-$(pg_config --bindir)}

as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

cluster_start() {
	CLUSTER_DIR=$1
	shift
	mkdir -p "$CLUSTER_DIR"
	chmod 777 "$CLUSTER_DIR"
	[ "$(id -u)" = 0 ] && chown postgres "$CLUSTER_DIR"
	as_postgres "$PG_BIN/initdb" -D "$CLUSTER_DIR/data" -U postgres --auth=trust \
		--no-instructions -E UTF8 --locale=C.UTF-8 >"$CLUSTER_DIR/initdb.log" 2>&1 || {
		cat "$CLUSTER_DIR/initdb.log" >&2
		return 1
	}
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$CLUSTER_DIR'"
		echo "port = ${CLUSTER_PORT:-5499}"
		echo "shared_preload_libraries = 'mixdnn'"
		echo "fsync = off"
		echo "max_connections = 60"
		echo "log_min_messages = warning"
		for line in "$@"; do echo "$line"; done
	} >>"$CLUSTER_DIR/data/postgresql.conf"
	as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w -t 60 start >/dev/null || {
		cat "$CLUSTER_DIR/server.log" >&2
		return 1
	}
	export PGHOST=$CLUSTER_DIR PGPORT=${CLUSTER_PORT:-5499} PGUSER=postgres PGDATABASE=postgres
}

cluster_restart() {
	as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w -t 60 -m fast restart >/dev/null
}

cluster_stop() {
	[ -n "${CLUSTER_DIR:-}" ] && [ -d "$CLUSTER_DIR/data" ] &&
		as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -w -t 60 -m fast stop >/dev/null 2>&1
	return 0
}
