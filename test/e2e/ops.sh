# test/e2e/ops.sh — helpers of the operations tests (t/4*.sh), sourced
# after lib.sh: other databases, a second server, comparing rows.

qd() {	# qd DB SQL: q in another database
	PGDATABASE=$1 q "$2"
}

fresh_db() {	# fresh_db NAME: an empty database (a plain DROP: its worker steps aside)
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
}

# Every table of schema mixdnn and its sequences, as sorted text.
# Every table and sequence but those a dump leaves out on purpose: the
# submitters' lock rows (made again at a role's next submission) and the
# launchers' notices (sent, or for launchers that poll anyway).
table_rows() {	# table_rows DB
	local t
	for t in $(qd "$1" "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	                    WHERE n.nspname = 'mixdnn' AND c.relkind = 'r'
	                      AND c.relname NOT IN ('submitters', 'notices') ORDER BY 1"); do
		echo "== $t"
		qd "$1" "SELECT x::text FROM mixdnn.$t x ORDER BY 1"
	done
	echo "== sequences"
	qd "$1" "SELECT sequencename, last_value FROM pg_sequences
	         WHERE schemaname = 'mixdnn' AND sequencename <> 'notices_notice_id_seq' ORDER BY 1"
}

# The launch workers connected to database DB.
workers_in() {
	q "SELECT count(*) FROM pg_stat_activity WHERE datname = '$1' AND backend_type = 'mixdnn launch worker'"
}

# A second server of our own (no preload, standby, ...), on the e2e port
# in a socket directory of its own: server2_init DIR [postgresql.conf lines].
server2_init() {
	S2=$1
	shift
	mkdir -p "$S2" && chmod 777 "$S2"
	as_postgres initdb -D "$S2/data" -U postgres --auth=trust --no-instructions -E UTF8 --locale=C.UTF-8 \
		>"$S2/initdb.log" 2>&1 || return 1
	server2_conf "$@"
}

server2_conf() {
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$S2'"
		echo "port = $PGPORT"
		echo "fsync = off"
		for line in "$@"; do echo "$line"; done
	} >>"$S2/data/postgresql.conf"
}

server2_ctl() {	# server2_ctl start | stop | promote
	as_postgres pg_ctl -D "$S2/data" -l "$S2/server.log" -w -t 60 "$@" >/dev/null
}

# Stops the second server, if it runs; before done_testing, which removes $T.
server2_stop() {
	[ -n "${S2:-}" ] && [ -f "$S2/data/postmaster.pid" ] && server2_ctl stop -m fast
	return 0
}
