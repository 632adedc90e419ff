#!/usr/bin/env bash
# tools/bench/run_pgbench.sh — submissions under load (docs/performance.md,
# "Submission under load").
#
# Starts a throwaway cluster (test/lib/cluster.sh) unless PGHOST already
# points at one, and for every (GPUs, queue, script, clients) runs pgbench
# for $TIME seconds against a freshly created extension:
#   plain   the same INSERT into a plain table (no triggers): the base
#   submit  INSERT INTO mixdnn.jobs, one job per transaction (queue grows)
#   steady  submit one job and cancel the oldest waiting one (queue constant)
# and writes one line per run to $OUT/results.tsv: throughput, latency
# percentiles from pgbench's per-transaction log, the rounds the run caused
# (count, solve_ms p50/p95, waiting jobs), plan rows written per round, and
# how many committed jobs were left without a plan (must be 0).
#
#   tools/bench/run_pgbench.sh [OUT]       (default OUT=build/bench/pgbench)
#   env: TIME=60 CLIENTS="8 16" NODES="8 64" QUEUE="50 200" SCRIPTS="plain submit steady"
#        PORT=5434 DIR=/tmp/mx-bench KEEP=1 (leave the cluster running)
#        EXTRA_CONF="mixdnn.planning_window = 20"  (more postgresql.conf lines, ';'-separated)
#        RATE=500 (pgbench --rate: a fixed arrival rate over all clients; default: as fast as possible)
#        PROBE=0 (no probe client; by default one extra pgbench client runs probe.sql
#                 and reports how long after its commit each probe job's plan was visible)
#        PG_BIN=/path/to/bin (another PostgreSQL build, e.g. a prototype's private install)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/bench/pgbench}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TIME=${TIME:-60}
CLIENTS=${CLIENTS:-"8 16"}
NODES=${NODES:-"8 64"}
QUEUE=${QUEUE:-"50 200"}
SCRIPTS=${SCRIPTS:-"plain submit steady"}
PORT=${PORT:-5434}
DIR=${DIR:-/tmp/mx-bench}
mkdir -p "$OUT"
chmod 777 "$OUT" 2>/dev/null || true

# shellcheck source=../../test/lib/cluster.sh
source "$ROOT/test/lib/cluster.sh"
if [ -z "${PGHOST:-}" ]; then
	IFS=';' read -r -a extra <<<"${EXTRA_CONF:-}"
	rm -rf "$DIR"
	CLUSTER_PORT=$PORT cluster_start "$DIR" "mixdnn.lease_timeout = 86400" "${extra[@]}"
	[ -n "${KEEP:-}" ] || trap cluster_stop EXIT
fi
export PGHOST PGPORT PGUSER=${PGUSER:-postgres} PGDATABASE=${PGDATABASE:-postgres}

so=$("$PG_BIN/pg_config" --pkglibdir)/mixdnn.so
{
	echo "# $(date -u +%FT%TZ) $(uname -n) nproc=$(nproc) mixdnn.so md5=$(md5sum "$so" | cut -c1-12)"
	echo "# TIME=$TIME EXTRA_CONF=${EXTRA_CONF:-}"
} >"$OUT/env.txt"
[ -f "$OUT/results.tsv" ] ||
	printf 'rate\tscript\tgpus\tqueue0\tclients\ttps\tlat_p50_ms\tlat_p95_ms\tlat_p99_ms\ttxns\tfailed\trounds\tround_ms_p50\tround_ms_p95\twaiting_min\twaiting_max\trows_per_round\tunplanned\tprobes\tplan_delay_p50_ms\tplan_delay_p95_ms\tplan_delay_max_ms\n' >"$OUT/results.tsv"

# percentiles of pgbench -l logs (field 3 = latency in microseconds)
lat_stats() {
	cat "$@" | awk '{print $3 / 1000.0}' | sort -n | awk '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "NaN\tNaN\tNaN"; exit }
			i50 = int(0.50 * NR + 0.999999); i95 = int(0.95 * NR + 0.999999); i99 = int(0.99 * NR + 0.999999)
			printf "%.2f\t%.2f\t%.2f\n", v[i50], v[i95], v[i99]
		}'
}

run_one() {
	local script=$1 nodes=$2 queue=$3 clients=$4
	local tag="${script}_g$((nodes * 8))_q${queue}_c${clients}${RATE:+_r$RATE}"
	local logdir="$OUT/$tag"
	rm -rf "$logdir"
	mkdir -p "$logdir"
	chmod 777 "$logdir"
	psql -q -X -v nodes="$nodes" -v prefill="$queue" -f "$HERE/setup.sql" >"$logdir/setup.txt" 2>&1
	sleep 1
	local r0
	r0=$(psql -X -At -c "SELECT coalesce(max(round_id), 0) FROM mixdnn.rounds")
	local file=$script
	[ "$script" = steady ] && file=submit_steady
	local probe_pid=
	if [ "$script" != plain ] && [ "${PROBE:-1}" = 1 ]; then
		pgbench -n -f "$HERE/probe.sql" -c 1 -j 1 -T "$TIME" >"$logdir/probe.txt" 2>&1 &
		probe_pid=$!
	fi
	local rate=()
	[ -n "${RATE:-}" ] && [ "$script" != plain ] && rate=(-R "$RATE")
	(cd "$logdir" && pgbench -n -f "$HERE/$file.sql" -c "$clients" -j 2 -T "$TIME" -P 10 -l "${rate[@]}" \
		--log-prefix=pgb >"$logdir/pgbench.txt" 2>&1) || true
	[ -n "$probe_pid" ] && wait "$probe_pid" || true
	local tps txns failed
	tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$logdir/pgbench.txt")
	txns=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$logdir/pgbench.txt")
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$logdir/pgbench.txt")
	local lat
	lat=$(lat_stats "$logdir"/pgb.*)
	local rs
	rs=$(psql -X -At -F $'\t' -c "
		SELECT count(*),
			   coalesce(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY solve_ms)::numeric, 2), 0),
			   coalesce(round(percentile_cont(0.95) WITHIN GROUP (ORDER BY solve_ms)::numeric, 2), 0),
			   coalesce(min(waiting), 0), coalesce(max(waiting), 0),
			   coalesce(round((SELECT count(*) FROM mixdnn.plan_history h WHERE h.round_id > $r0)::numeric
							  / greatest(count(*), 1), 1), 0)
		FROM mixdnn.rounds WHERE round_id > $r0")
	# committed jobs still without a plan: wait for the worker to settle (plan_mode
	# worker plans after the commit); what is left then was missed
	local unplanned prev=-1 still=0 i
	for i in $(seq 1 30); do
		unplanned=$(psql -X -At -c "SELECT count(*) FROM mixdnn.jobs WHERE status = 'pending' AND reason IS NULL")
		[ "$unplanned" = 0 ] && break
		if [ "$unplanned" = "$prev" ]; then
			still=$((still + 1))
			[ "$still" -ge 5 ] && break
		else
			still=0
		fi
		prev=$unplanned
		sleep 1
	done
	psql -X -At -F $'\t' -c "SELECT round_id, event, solver, solve_ms, waiting, running, milp_jobs, milp_vars
							 FROM mixdnn.rounds WHERE round_id > $r0 ORDER BY round_id" >"$logdir/rounds.tsv"
	local probe
	probe=$(psql -X -At -F $'\t' -c "
		SELECT count(*),
			   coalesce(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY wait_ms)::numeric, 1), 0),
			   coalesce(round(percentile_cont(0.95) WITHIN GROUP (ORDER BY wait_ms)::numeric, 1), 0),
			   coalesce(round(max(wait_ms)::numeric, 1), 0)
		FROM public.probe_log")
	if [ "$script" = plain ]; then
		rs=$(printf '0\t0\t0\t0\t0\t0')
		unplanned=0
	fi
	printf '%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${RATE:-max}" "$script" $((nodes * 8)) "$queue" "$clients" \
		"${tps:-0}" "$lat" "${txns:-0}" "${failed:-0}" "$rs" "$unplanned" "$probe" | tee -a "$OUT/results.tsv"
	# the per-transaction logs are big; keep only the summary
	rm -f "$logdir"/pgb.*
}

for script in $SCRIPTS; do
	for clients in $CLIENTS; do
		if [ "$script" = plain ]; then
			run_one plain 8 0 "$clients"
			continue
		fi
		for nodes in $NODES; do
			for queue in $QUEUE; do
				run_one "$script" "$nodes" "$queue" "$clients"
			done
		done
	done
done
