# test/e2e/lib.sh — helpers for the end-to-end tests: TAP output, the
# database, launcher processes and bounded waits. Sourced by t/*.sh.
#
# Environment (test/e2e/run.sh sets it up):
#   PGHOST, PGPORT, PGDATABASE, PGUSER   a server with shared_preload_libraries = 'mixdnn'
#                                        (its launch worker serves PGDATABASE)
#   MIXDNN_LAUNCHER                      path of bin/mixdnn-launcher
#   MIXDNN_E2E_PGDATA                    its data directory, for tests that restart it
#                                        (they are skipped without it)
#   MIXDNN_E2E_WORK                      a scratch directory

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MIXDNN_LAUNCHER=${MIXDNN_LAUNCHER:-$E2E_DIR/../../bin/mixdnn-launcher}
E2E_TESTS=0
E2E_FAILED=0
E2E_LAUNCHER_ROLE=mixdnn_e2e_launcher

# A directory of this test's own, writable by the postgres user and the
# jobs' accounts too; sticky, as /tmp is, so that the launchers' state and
# output directories in it are their own (the launcher refuses a directory
# another account could swap).
T=$(mktemp -d "${MIXDNN_E2E_WORK:-/tmp}/$(basename "$0" .sh).XXXXXX")
chmod 1777 "$T"
mkdir -p "$T/out"
chmod 1777 "$T/out"

# ---------- TAP ----------

ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION: returns the status, so "ok $? ... || diag ..." shows a failure's details
	local status=$1
	shift
	E2E_TESTS=$((E2E_TESTS + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $E2E_TESTS - $*"
	else
		echo "not ok $E2E_TESTS - $*"
		E2E_FAILED=$((E2E_FAILED + 1))
	fi
	return "$status"
}

is() {	# is GOT EXPECTED DESCRIPTION
	local got=$1 expected=$2
	shift 2
	if [ "$got" = "$expected" ]; then
		ok 0 "$*"
	else
		ok 1 "$*"
		diag "got:      '$got'"
		diag "expected: '$expected'"
	fi
}

like() {	# like GOT REGEX DESCRIPTION
	local got=$1 re=$2
	shift 2
	if grep -Eq -- "$re" <<<"$got"; then
		ok 0 "$*"
	else
		ok 1 "$*"
		diag "got: '$got'"
	fi
}

diag() {
	echo "# $*" | sed '2,$s/^/# /'
}

skip() {	# skip N WHY: N tests that cannot run here
	local i
	for ((i = 0; i < $1; i++)); do
		E2E_TESTS=$((E2E_TESTS + 1))
		echo "ok $E2E_TESTS # SKIP $2"
	done
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

done_testing() {
	stop_all_launchers
	echo "1..$E2E_TESTS"
	if [ "$E2E_FAILED" -ne 0 ]; then
		diag "$E2E_FAILED of $E2E_TESTS failed; launcher logs and job output in $T"
		for f in "$T"/launcher-*.log; do
			[ -f "$f" ] || continue
			diag "--- $(basename "$f") (last 15 lines)"
			diag "$(tail -15 "$f")"
		done
		exit 1
	fi
	[ -n "${MIXDNN_E2E_KEEP:-}" ] || rm -rf "$T"
	exit 0
}

# ---------- database ----------

q() {	# q SQL: one value or rows, unaligned, no headers
	psql -X -q -A -t -v ON_ERROR_STOP=1 -c "$1"
}

# A clean extension with three nodes: n1 and n2 with 4 a100 each, n3 with
# 2 v100, and default settings. Everything of an earlier test goes with
# DROP EXTENSION.
reset_cluster() {
	psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<-SQL
		SET client_min_messages = error;
		SET mixdnn.force_drop = on;
		DROP EXTENSION IF EXISTS mixdnn CASCADE;
		CREATE EXTENSION mixdnn;
		DO \$\$ BEGIN
			IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$E2E_LAUNCHER_ROLE') THEN
				CREATE ROLE $E2E_LAUNCHER_ROLE LOGIN;
			END IF;
		END \$\$;
		GRANT mixdnn_launcher TO $E2E_LAUNCHER_ROLE;
		INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 2.0), ('v100', 1.0);
		INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES
			('n1', 'a100', 4), ('n2', 'a100', 4), ('n3', 'v100', 2);
		ALTER SYSTEM RESET mixdnn.lease_timeout;
		ALTER SYSTEM RESET mixdnn.max_retries;
		SELECT pg_reload_conf();
	SQL
}

# A role of a test, with what it owns and was granted, if it exists.
drop_role() {	# drop_role ROLE
	q "DO \$\$ BEGIN
		IF EXISTS (SELECT FROM pg_roles WHERE rolname = '$1') THEN
			EXECUTE 'DROP OWNED BY $1'; EXECUTE 'DROP ROLE $1';
		END IF;
	   END \$\$" >/dev/null
}

# ALTER SYSTEM + reload, and wait until a new session sees it.
set_setting() {	# set_setting NAME VALUE ('' resets)
	if [ -z "$2" ]; then
		q "ALTER SYSTEM RESET $1" >/dev/null
	else
		q "ALTER SYSTEM SET $1 = '$2'" >/dev/null
	fi
	q "SELECT pg_reload_conf()" >/dev/null
	sleep 0.3
}

# The command a test job runs: test/e2e/job.sh OUT SECONDS [EXIT_CODE].
job_cmd() {
	echo "sh $E2E_DIR/job.sh $T/out $1 ${2:-0}"
}

# job_cmd's, recording first, in OUT/JOB-ATTEMPT.previous, whether the
# attempt before is still alive ("alive" or "dead") when this one starts.
once() {	# once SECONDS
	echo "sh $E2E_DIR/once.sh $T/out $E2E_DIR/job.sh $1"
}

submit() {	# submit NAME CLASS TYPE GPUS COMMAND [DURATION] -> job_id
	local type=NULL
	[ -n "$3" ] && type="'$3'"
	q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	   VALUES ('$1', '$2', $type, $4, '${6:-2 s}', \$cmd\$$5\$cmd\$) RETURNING job_id"
}

status_of() {
	q "SELECT status FROM mixdnn.jobs WHERE job_id = $1"
}

# ---------- launchers ----------

# The tests' jobs are mostly the superuser's, run as the postgres OS account
# (uid 101 on Debian) by a root launcher: below the default --min-uid, so the
# tests lower it; 11_accounts empties this to check the default.
E2E_MIN_UID=(--min-uid 1)
start_launcher() {	# start_launcher NODE [OPTIONS...]
	local node=$1
	shift
	PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node "$node" --poll-interval 2 --kill-grace 2 \
		--state-dir "$T/state-$node" "${E2E_MIN_UID[@]}" "$@" \
		>>"$T/launcher-$node.log" 2>&1 &
	echo $! >"$T/launcher-$node.pid"
}

launcher_pid() {
	cat "$T/launcher-$1.pid" 2>/dev/null
}

stop_launcher() {	# stop_launcher NODE: SIGTERM, and wait for it
	local pid
	pid=$(launcher_pid "$1")
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	# one a test stopped (SIGSTOP) takes the SIGTERM only once continued
	kill -CONT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$T/launcher-$1.pid"
}

kill9_launcher() {
	local pid
	pid=$(launcher_pid "$1")
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$T/launcher-$1.pid"
}

stop_all_launchers() {
	local f
	for f in "$T"/launcher-*.pid; do
		[ -f "$f" ] || continue
		stop_launcher "$(basename "$f" .pid | sed 's/^launcher-//')"
	done
}
trap stop_all_launchers EXIT

# ---------- processes and the server ----------

# Running, not a zombie waiting to be reaped by init.
alive() {
	kill -0 "$1" 2>/dev/null && ! ps -o stat= -p "$1" | grep -q '^Z'
}

as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

server_ctl() {	# server_ctl start | stop [-m MODE]
	as_postgres pg_ctl -D "$MIXDNN_E2E_PGDATA" -l "$(dirname "$MIXDNN_E2E_PGDATA")/server.log" -w -t 60 "$@" >/dev/null
}

# ---------- a psql session kept open ----------

# session_open NAME [DB]: a psql session reading what session_send writes
# (through a FIFO), its output in $T/NAME.out, until session_close ends its
# input and waits for it. One at a time. A session that exits early (an
# error) must fail the caller's checks, not kill the script with SIGPIPE on
# its next write.
session_open() {
	trap '' PIPE
	E2E_SESSION=$1
	mkfifo "$T/$1.in"
	psql -X -q -v ON_ERROR_STOP=1 ${2:+-d "$2"} <"$T/$1.in" >"$T/$1.out" 2>&1 &
	E2E_SESSION_PID=$!
	exec 7>"$T/$1.in"
}

session_send() {	# session_send SQL
	echo "$1" >&7
}

session_close() {
	exec 7>&-
	wait "$E2E_SESSION_PID"
	trap - PIPE
	rm -f "$T/$E2E_SESSION.in"
}

# hold_job_row JOB: another session takes the job's row (FOR UPDATE) and
# keeps it until release_job_row; 0 once it holds it.
hold_job_row() {
	session_open locker
	session_send "BEGIN; SELECT 'locked' FROM mixdnn.jobs WHERE job_id = $1 FOR UPDATE;"
	wait_until 10 "grep -q locked '$T/locker.out'"
}

release_job_row() {
	session_send "COMMIT;"
	session_close
}

# ---------- the scheduler's and PostgreSQL's locks ----------

sched_locks_of() {	# sched_locks_of ROLE: how many scheduler locks (advisory, objsubid 19800) ROLE's backends hold
	q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
	   WHERE l.locktype = 'advisory' AND l.objsubid = 19800 AND l.granted AND a.usename = '$1'"
}

sched_locks_of_pid() {	# sched_locks_of_pid PID: how many scheduler locks backend PID holds
	q "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 19800 AND pid = $1 AND granted"
}

notify_locks_of() {	# notify_locks_of ROLE [waiting]: PostgreSQL's NOTIFY lock (object 0 of pg_database) held by ROLE's backends, or awaited with "waiting"
	local granted=l.granted
	[ "${2:-}" = waiting ] && granted="NOT l.granted"
	q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
	   WHERE l.locktype = 'object' AND l.classid = 'pg_database'::regclass AND l.objid = 0 AND $granted
	     AND a.usename = '$1'"
}

ghost_standby() {	# ghost_standby on | off: a synchronous standby that never answers, waited for only by sessions with synchronous_commit = on; off resets
	if [ "$1" = on ]; then
		set_setting synchronous_standby_names e2e_ghost_standby
		set_setting synchronous_commit local
	else
		set_setting synchronous_standby_names ''
		set_setting synchronous_commit ''
	fi
}

hold_notify_lock() {	# hold_notify_lock ROLE: (under ghost_standby on) ROLE's NOTIFY commit holds the NOTIFY lock until cancelled; psql's pid in E2E_NOTIFY_HOLDER; 0 once held (10 s at most)
	# (a temporary table: a commit that wrote WAL waits for the standby)
	PGUSER=$1 psql -X -q -c "SET synchronous_commit = on" \
		-c "BEGIN; CREATE TEMP TABLE e2e_t (); NOTIFY e2e_flood, 'x'; COMMIT" >"$T/$1-notify.log" 2>&1 &
	E2E_NOTIFY_HOLDER=$!
	wait_until 10 "[ \"\$(notify_locks_of $1)\" = 1 ]"
}

submits_at_once() {	# submits_at_once ROLE NAME: two tests: ROLE's one-GPU job NAME commits within 1.5 s without the busy notice, and is planned at once
	local t0 out ms j
	t0=$(date +%s%N)
	out=$(PGUSER=$1 timeout 20 psql -X -q -A -t -v ON_ERROR_STOP=1 \
		-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
			VALUES ('$2', 'hard', 'a100', 1, '1 hour', 'true') RETURNING job_id" 2>&1)
	ms=$((($(date +%s%N) - t0) / 1000000))
	j=$(tail -1 <<<"$out")
	ok "$([ "$ms" -lt 1500 ] && ! grep -q busy <<<"$out"; echo $?)" \
		"$2's submission commits in $ms ms, without the busy notice"
	like "$(status_of "$j")" '^(planned|launching)$' "$2's job is planned at once"
}

# ---------- roles and waiting ----------

login_roles() {	# login_roles ROLE...: login roles (made if missing), granted nothing here
	local r
	for r; do
		q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$r') THEN CREATE ROLE $r LOGIN; END IF; END \$\$" >/dev/null
	done
}

user_roles() {	# user_roles ROLE...: login roles, members of mixdnn_user (made if missing)
	local r
	for r; do
		login_roles "$r"
		q "GRANT mixdnn_user TO $r" >/dev/null
	done
}

wait_until() {	# wait_until SECONDS SHELL-CONDITION: 0 once it holds, 1 on time-out
	local deadline=$(($(date +%s) + $1))
	while [ "$(date +%s)" -le "$deadline" ]; do
		eval "$2" && return 0
		sleep 0.1
	done
	return 1
}

# Jobs not yet completed, failed or cancelled.
unfinished() {
	q "SELECT count(*) FROM mixdnn.jobs WHERE status NOT IN ('completed', 'failed', 'cancelled')"
}

# ---------- what the jobs wrote ----------

# The env file of a job part: OUT/JOB-ATTEMPT-RANK.env
env_of() {	# env_of JOB ATTEMPT RANK VAR
	sed -n "s/^$4=//p" "$T/out/$1-$2-$3.env" 2>/dev/null
}

# No GPU of any node ran two job processes at once, from OUT/gpu.log lines
# "node gpu start end job attempt". Prints the overlaps it finds.
gpu_overlaps() {
	sort -k1,1 -k2,2n -k3,3g "$T/out/gpu.log" 2>/dev/null | awk '
		{ key = $1 " " $2
		  if (key == last_key && $3 < last_end)
			  printf "GPU %s: job %s (until %s) overlaps job %s (from %s)\n", key, last_job, last_end, $5, $3
		  if (key != last_key || $4 > last_end) { last_end = $4; last_job = $5 }
		  last_key = key }'
}

# ---------- a launcher short of processes (RLIMIT_NPROC) ----------

# A launcher under RLIMIT_NPROC, which root is exempt from: it runs as
# NPROC_USER, an account of its own that runs no other process
# (--allow-same-user), one per test file (files run at once in shards).
# Only the soft limit is set, by the account itself: root here may lack
# CAP_SYS_RESOURCE, which changing another account's limits needs. Skips
# the file where that cannot be.
nproc_account() {	# nproc_account USER: NPROC_USER, created if missing
	NPROC_USER=$1
	[ "$(id -u)" = 0 ] || skip_all "needs root to create an OS user and run a launcher as it"
	command -v prlimit >/dev/null && command -v setpriv >/dev/null || skip_all "needs prlimit and setpriv (util-linux)"
	id -u "$NPROC_USER" >/dev/null 2>&1 || useradd -M -s /bin/sh "$NPROC_USER"
	# a keeper of an earlier run of the file may still be leaving
	wait_until 10 "[ -z \"\$(pgrep -u $NPROC_USER)\" ]" ||
		skip_all "the account $NPROC_USER already runs processes, which count against its limit"
}

# A clean cluster where only n1 is up (a re-queued job comes back to it)
# and a job is retried often.
nproc_cluster() {
	reset_cluster
	set_setting mixdnn.max_retries 100
	q "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node IN ('n2', 'n3')" >/dev/null
}

# start_limited NPROC [OPTION]...: n1's launcher as NPROC_USER, limited to NPROC processes
start_limited() {
	local n=$1
	shift
	# setpriv and prlimit exec: $! is the launcher itself (no function: that would be a subshell)
	PGUSER=$E2E_LAUNCHER_ROLE setpriv --reuid="$NPROC_USER" --regid="$NPROC_USER" --init-groups prlimit --nproc="$n": -- \
		"$MIXDNN_LAUNCHER" --node n1 --poll-interval 2 --kill-grace 2 --state-dir "$T/state-n1" --allow-same-user \
		"$@" >>"$T/launcher-n1.log" 2>&1 &
	echo $! >"$T/launcher-n1.pid"
}

cmd_tries() {	# cmd_tries JOB: n1's keeper's failed forks of JOB's command that it will try again
	grep -c "job $1 attempt [0-9]*: its keeper cannot fork the command: .*; it waits, the next try in" "$T/launcher-n1.log"
}
