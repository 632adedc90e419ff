#!/usr/bin/env bash
# The launcher takes its password only from --password-file or a passfile,
# files it checks (mode 0600, its own account). A libpq service file
# (--dsn service=NAME, PGSERVICEFILE) is not one, and libpq reads it
# whoever else may: its jobs could read the password there. A password or
# sslpassword in the service is a configuration error, exit status 2, with
# --password-file too (the file still holds it); the same service without
# one connects, with a passfile as well.
. "$(dirname "$0")/../lib.sh"

reset_cluster
svc=$T/pg_service.conf
service() {	# service [EXTRA-LINE]: the service "mx" of this cluster, as the launcher's role
	printf '[mx]\nhost=%s\nport=%s\ndbname=%s\nuser=%s\n%s' "$PGHOST" "$PGPORT" "$PGDATABASE" \
		"$E2E_LAUNCHER_ROLE" "${1:+$1
}" >"$svc"
	chmod 644 "$svc"
}
launch() {	# launch LOG: the launcher of n1 through the service, at most 20 s
	PGSERVICEFILE=$svc timeout 20 "$MIXDNN_LAUNCHER" --node n1 --dsn service=mx --poll-interval 2 \
		--state-dir "$T/state-svc" "${E2E_MIN_UID[@]}" >"$1" 2>&1
}

for secret in password sslpassword; do
	service "$secret=not-for-jobs"
	launch "$T/$secret.log"
	is "$?" 2 "a $secret in a service file: exit status 2, a configuration error"
	grep -q "configuration error: the libpq service of --dsn holds a $secret" "$T/$secret.log"
	ok $? "... saying where it came from" || diag "$(tail -3 "$T/$secret.log")"
	! grep -q "not-for-jobs" "$T/$secret.log"
	ok $? "... without writing it to the log"
done

# connects LOG WHAT [ENV=VALUE... --] [OPTIONS...]: a launcher through the
# service connects (and is then stopped)
connects() {
	local log=$1 what=$2 pid
	shift 2
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ] && [[ $1 == *=* ]]; do envs+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	env PGSERVICEFILE="$svc" "${envs[@]}" "$MIXDNN_LAUNCHER" --node n1 --dsn service=mx --poll-interval 2 \
		--state-dir "$T/state-svc" "${E2E_MIN_UID[@]}" "$@" >"$log" 2>&1 &
	pid=$!
	wait_until 15 "grep -q 'connected to database' '$log'"
	ok $? "$what" || diag "$(tail -3 "$log")"
	! grep -q "configuration error" "$log"
	ok $? "... with no configuration error"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

printf 'from-the-password-file\n' >"$T/pw"
chmod 600 "$T/pw"
service "password=not-for-jobs"
PGSERVICEFILE=$svc timeout 20 "$MIXDNN_LAUNCHER" --node n1 --dsn service=mx --poll-interval 2 \
	--state-dir "$T/state-svc" "${E2E_MIN_UID[@]}" --password-file "$T/pw" >"$T/pwfile.log" 2>&1
is "$?" 2 "with --password-file too, a password in the service is a configuration error"
# A passfile's password libpq keeps apart from the service's: not refused.
service
printf '*:*:*:*:from-the-passfile\n' >"$T/pgpass"
chmod 600 "$T/pgpass"
connects "$T/passfile.log" "a service without a password and a passfile (PGPASSFILE) connects" PGPASSFILE="$T/pgpass" --
PGSERVICEFILE=$svc "$MIXDNN_LAUNCHER" --node n1 --dsn service=mx --poll-interval 2 \
	--state-dir "$T/state-svc" "${E2E_MIN_UID[@]}" >"$T/none.log" 2>&1 &
pid=$!
wait_until 15 "grep -q 'connected to database' '$T/none.log'"
ok $? "the same service without a password connects"
job=$(submit svc hard a100 1 "true" '1 min')
wait_until 20 "[ \"\$(status_of $job)\" = completed ]"
ok $? "... and runs a job"
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
done_testing
