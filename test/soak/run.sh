#!/usr/bin/env bash
# test/soak/run.sh --minutes N — MixDNN under load and faults (docs/soak.md).
#
# On a throwaway cluster of its own (port MIXDNN_SOAK_PORT, default 5496,
# Unix socket only) it runs for N minutes: submitters (single and multi-row),
# a canceller, an admin draining, downing and re-adding nodes, plan_mode
# phases (commit, worker) switched with ALTER SYSTEM and a reload, one real
# bin/mixdnn-launcher per node running short jobs (some failing, some
# overrunning their estimate, some ignoring SIGTERM), and a fault injector
# (faults.sh). The invariants (check.sql, records.py) are checked every few
# seconds and after a drain at the end; it prints each one that broke and
# exits 1, else prints the figures (report.py) and exits 0.
# MIXDNN_SOAK_KEEP=1 keeps the scratch directory (logs, job records).
set -u
minutes=1
while [ $# -gt 0 ]; do
	case $1 in
		--minutes) minutes=$2; shift 2 ;;
		*) echo "usage: $0 --minutes N" >&2; exit 2 ;;
	esac
done
case $minutes in '' | *[!0-9]*) echo "soak: --minutes takes a whole number" >&2; exit 2 ;; esac

SOAK_DIR=$(cd "$(dirname "$0")" && pwd)
SOAK_ROOT=$(cd "$SOAK_DIR/../.." && pwd)
export PATH="${MIXDNN_PG_BINDIR:-/usr/lib/postgresql/15/bin}:$PATH"
[ -x "$SOAK_ROOT/bin/mixdnn-launcher" ] || { echo "soak: bin/mixdnn-launcher is not built (run make)" >&2; exit 2; }

SOAK_SECONDS=$((minutes * 60))
SOAK_NODES=4
SOAK_LEASE=6			# mixdnn.lease_timeout, s
SOAK_RETENTION=30		# purge_history's older_than, s (purged every 5 s)
SOAK_MAX_ATTEMPTS=4		# mixdnn.max_retries = 3, plus the first
SOAK_WC_BOUND=30		# work conservation bound, s (below)
SOAK_SOLVER_BOUND=120		# ... the round's choice to keep a job off free GPUs included (below)
SOAK_MAX_REQUESTS=$((SOAK_SECONDS * 10))
SOAK_LAUNCHER_ROLE=mixdnn_soak_launcher
SOAK_WORK=$(mktemp -d /tmp/mixdnn-soak.XXXXXX)
SOAK_LOG=$SOAK_WORK/log
SOAK_OUT=$SOAK_WORK/out
mkdir -p "$SOAK_LOG" "$SOAK_OUT"
chmod 755 "$SOAK_WORK"
chmod 777 "$SOAK_OUT"

. "$SOAK_ROOT/test/lib/cluster.sh"
. "$SOAK_DIR/clients.sh"
. "$SOAK_DIR/faults.sh"

cleanup() {
	touch "$SOAK_WORK/stop"
	kill $(jobs -p) 2>/dev/null
	stop_launchers
	cluster_stop
	[ -n "${MIXDNN_SOAK_KEEP:-}" ] && echo "soak: kept $SOAK_WORK" || rm -rf "$SOAK_WORK"
}
trap cleanup EXIT

CLUSTER_PORT=${MIXDNN_SOAK_PORT:-5496} cluster_start "$SOAK_WORK/pg" \
	"mixdnn.lease_timeout = '${SOAK_LEASE}s'" "mixdnn.worker_poll_interval = '1s'" \
	"mixdnn.max_retries = $((SOAK_MAX_ATTEMPTS - 1))" "restart_after_crash = on" || exit 1

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL || exit 1
	CREATE EXTENSION mixdnn;
	CREATE ROLE $SOAK_LAUNCHER_ROLE LOGIN IN ROLE mixdnn_launcher;
	INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('a100', 2.0), ('v100', 1.0);
	INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES
		('n1', 'a100', 4), ('n2', 'a100', 4), ('n3', 'v100', 2), ('n4', 'v100', 2);
	CREATE SCHEMA soak;
	CREATE TABLE soak.latency (job_id bigint PRIMARY KEY, submitted_at timestamptz, first_plan_at timestamptz);
	CREATE TABLE soak.launch (job_id bigint, attempt int, launching_at timestamptz, claimed_at timestamptz,
	                          PRIMARY KEY (job_id, attempt));
	CREATE TABLE soak.idle (job_id bigint PRIMARY KEY, since timestamptz, plain_since timestamptz);
SQL

# ---------- invariants, every 3 s ----------
check() {	# check FINAL: appends violations to violations.log, counts the checks
	psql -X -q -v ON_ERROR_STOP=1 -v max_attempts=$SOAK_MAX_ATTEMPTS \
		-v retention_s=$((SOAK_RETENTION + 5 + 60)) -v wc_bound_s=$SOAK_WC_BOUND \
		-v solver_bound_s=$SOAK_SOLVER_BOUND -v final="$1" \
		-f "$SOAK_DIR/check.sql" >"$SOAK_WORK/check.out" 2>>"$SOAK_LOG/check-errors.log" || return 1
	sed "s/^/$(date +%s) /" "$SOAK_WORK/check.out" >>"$SOAK_LOG/violations.log"
	echo "$(date +%s) $1" >>"$SOAK_LOG/checks.log"
}

sample() {	# server memory, history size, the longest idle-while-waiting streak (s), history rows,
		# the longest such streak, the round's choice to keep a job off free GPUs included (s)
	local rss hist
	rss=$(ps -u postgres -o rss= | sort -n | tail -1)
	hist=$(timeout 5 psql -X -A -t -F ' ' -c "SELECT pg_total_relation_size('mixdnn.plan_history')
		+ pg_total_relation_size('mixdnn.job_events') + pg_total_relation_size('mixdnn.rounds'),
		coalesce(round(extract(epoch FROM clock_timestamp() - min(plain_since)), 1), 0),
		(SELECT count(*) FROM mixdnn.plan_history) + (SELECT count(*) FROM mixdnn.job_events)
		+ (SELECT count(*) FROM mixdnn.rounds),
		coalesce(round(extract(epoch FROM clock_timestamp() - min(since)), 1), 0)
		FROM soak.idle" 2>/dev/null)
	[ -n "$hist" ] && echo "$(date +%s) ${rss:-0} $hist" >>"$SOAK_LOG/samples.log"
}

monitor() {
	local failed=0
	while [ ! -e "$SOAK_WORK/stop" ]; do
		# Idle time while the server was down is recovery, not waiting.
		[ "$failed" = 1 ] && timeout 5 psql -X -q -c "DELETE FROM soak.idle" >/dev/null 2>&1
		if check false; then failed=0; else failed=1; fi
		sample
		sleep 3
	done
}

start=$(date +%s)
SOAK_END=$((start + SOAK_SECONDS))
SOAK_FAULTS_END=$((SOAK_END - 5))
echo "soak: $minutes min on $PGHOST port $PGPORT, scratch $SOAK_WORK"
for ((i = 1; i <= SOAK_NODES; i++)); do start_launcher "n$i"; done
launcher_keeper &
monitor &
monitor_pid=$!
for id in 1 2 3; do submitter "$id" & done
canceller &
admin &
phaser $((SOAK_SECONDS / 4 > 15 ? SOAK_SECONDS / 4 : 15)) &
purger &
injector &
injector_pid=$!
sleep "$SOAK_SECONDS"

# ---------- the drain ----------
wait "$injector_pid"
echo "soak: load and faults over; draining"
sq "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE status <> 'up'" >/dev/null
drain_start=$(date +%s)
deadline=$((drain_start + 300))
while [ "$(date +%s)" -lt "$deadline" ]; do
	left=$(sq "SELECT count(*) FROM mixdnn.jobs WHERE status NOT IN ('completed', 'failed', 'cancelled')")
	[ "$left" = 0 ] && break
	sleep 1
done
echo "soak: drained in $(($(date +%s) - drain_start)) s"
touch "$SOAK_WORK/stop"
wait "$monitor_pid"
check true || echo "checks failed to run: $(tail -3 "$SOAK_LOG/check-errors.log")" >>"$SOAK_LOG/violations.log"
sq "SELECT job_id, attempt, status, coalesce(exit_code::text, ''),
           (SELECT count(*) FROM mixdnn.job_parts p WHERE p.job_id = j.job_id AND p.attempt = j.attempt),
           (SELECT string_agg(attempt || ':' || n, ' ') FROM (SELECT attempt, count(*) n FROM mixdnn.job_parts p
             WHERE p.job_id = j.job_id GROUP BY attempt) a)
    FROM mixdnn.jobs j" | tr '|' ',' >"$SOAK_WORK/jobs.csv"
python3 "$SOAK_DIR/records.py" "$SOAK_OUT" "$SOAK_WORK/jobs.csv" "$SOAK_LOG/faults.log" "$SOAK_LOG/admin.log" "$SOAK_MAX_ATTEMPTS" "$SOAK_LEASE" |
	sed "s/^/$(date +%s) /" >>"$SOAK_LOG/violations.log"

python3 "$SOAK_DIR/report.py" "$SOAK_WORK" "$SOAK_SECONDS" "$SOAK_WC_BOUND" "$SOAK_SOLVER_BOUND"
if [ -s "$SOAK_LOG/violations.log" ]; then
	echo "soak: FAILED, invariants broken:"
	cut -d' ' -f2- "$SOAK_LOG/violations.log" | sort | uniq -c | sort -rn | head -40
	MIXDNN_SOAK_KEEP=1
	exit 1
fi
echo "soak: ok"
