#!/usr/bin/env bash
# tools/bench/memory.sh — memory of the scheduler (docs/performance.md, "Memory").
#
#   tools/bench/memory.sh valgrind [OUT]   valgrind --leak-check=full on bin/mixdnn-bench,
#                                         ROUNDS rounds (10000; ROUNDS_SLOW=300 for --reserve-all)
#                                         of W=50/G=64 and W=200/G=512
#   tools/bench/memory.sh rss [OUT]        RSS of the backends over a long pgbench run:
#                                         CLIENTS (8) clients of SCRIPT (steady) for TIME (600) s,
#                                         /proc/PID/status of every backend sampled every 10 s
# env: PORT=5434 DIR=/tmp/mx-bench NODES=8 QUEUE=200 PG_BIN=... (as run_pgbench.sh)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
what=${1:-}
OUT=${2:-$ROOT/build/bench/memory}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

case "$what" in
valgrind)
	# 10,000 rounds where a round takes well under a millisecond natively;
	# the time-grid model (--reserve-all) runs into its wall-clock limit
	# under valgrind, so it gets ROUNDS_SLOW.
	ROUNDS=${ROUNDS:-10000}
	ROUNDS_SLOW=${ROUNDS_SLOW:-300}
	[ -x "$ROOT/bin/mixdnn-bench" ] || make -C "$ROOT" -s bin/mixdnn-bench
	for inst in "--waiting 50 --gpus 64" "--waiting 50 --gpus 64 --dist heavy --drain-margin 0" \
		"--waiting 200 --gpus 512 --dist heavy" "--waiting 50 --gpus 64 --no-milp" "--waiting 50 --gpus 64 --reserve-all"; do
		tag=$(echo "$inst" | tr -d '-' | tr ' ' '_')
		rounds=$ROUNDS
		case "$inst" in *reserve-all*) rounds=$ROUNDS_SLOW ;; esac
		# shellcheck disable=SC2086
		valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
			--error-exitcode=9 --log-file="$OUT/valgrind_$tag.log" \
			"$ROOT/bin/mixdnn-bench" $inst --rounds "$rounds" --quiet --bound none >"$OUT/valgrind_$tag.out" 2>&1 &&
			rc=0 || rc=$?
		printf '%s\trounds %s\texit %s\t%s\t%s\n' "$inst" "$rounds" "$rc" \
			"$(grep -E 'ERROR SUMMARY' "$OUT/valgrind_$tag.log" | sed 's/^==[0-9]*== //')" \
			"$(grep -E 'definitely lost|indirectly lost|possibly lost|in use at exit' "$OUT/valgrind_$tag.log" | sed 's/^==[0-9]*== //' | tr '\n' ';')" |
			tee -a "$OUT/valgrind.tsv"
	done
	;;
rss)
	TIME=${TIME:-600}
	CLIENTS=${CLIENTS:-8}
	SCRIPT=${SCRIPT:-submit_steady}
	NODES=${NODES:-8}
	QUEUE=${QUEUE:-200}
	PORT=${PORT:-5434}
	DIR=${DIR:-/tmp/mx-bench}
	# shellcheck source=../../test/lib/cluster.sh
	source "$ROOT/test/lib/cluster.sh"
	if [ -z "${PGHOST:-}" ]; then
		rm -rf "$DIR"
		CLUSTER_PORT=$PORT cluster_start "$DIR" "mixdnn.lease_timeout = 86400"
		trap cluster_stop EXIT
	fi
	export PGHOST PGPORT PGUSER=${PGUSER:-postgres} PGDATABASE=${PGDATABASE:-postgres}
	psql -q -X -v nodes="$NODES" -v prefill="$QUEUE" -f "$HERE/setup.sql" >"$OUT/setup.txt" 2>&1
	pgbench -n -f "$HERE/$SCRIPT.sql" -c "$CLIENTS" -j 2 -T "$TIME" -P 60 >"$OUT/rss_pgbench.txt" 2>&1 &
	bench=$!
	sleep 2
	printf 't_s\tpid\tbackend\tVmRSS_kB\tRssAnon_kB\tVmHWM_kB\n' >"$OUT/rss.tsv"
	t0=$SECONDS
	while kill -0 "$bench" 2>/dev/null; do
		t=$((SECONDS - t0))
		psql -X -At -F ' ' -c "SELECT pid, coalesce(nullif(backend_type, 'client backend'), application_name)
							  FROM pg_stat_activity WHERE pid <> pg_backend_pid()
							  AND (backend_type = 'client backend' OR backend_type LIKE 'mixdnn%')" |
			while read -r pid name; do
				[ -r "/proc/$pid/status" ] || continue
				awk -v t="$t" -v pid="$pid" -v name="${name// /_}" '
					/^VmRSS:/ { rss = $2 } /^RssAnon:/ { anon = $2 } /^VmHWM:/ { hwm = $2 }
					END { printf "%s\t%s\t%s\t%s\t%s\t%s\n", t, pid, name, rss, anon, hwm }' "/proc/$pid/status"
			done >>"$OUT/rss.tsv"
		sleep 10
	done
	wait "$bench" || true
	# first and last sample of every backend
	awk -F'\t' 'NR > 1 { if (!($2 in first)) first[$2] = $5; last[$2] = $5; name[$2] = $3; hwm[$2] = $6 }
		END { for (p in first) printf "pid %s (%s): RssAnon %s kB -> %s kB, VmHWM %s kB\n", p, name[p], first[p], last[p], hwm[p] }' \
		"$OUT/rss.tsv" | sort | tee "$OUT/rss_summary.txt"
	psql -X -At -c "SELECT 'rounds: ' || count(*) || ', waiting max ' || max(waiting) FROM mixdnn.rounds" | tee -a "$OUT/rss_summary.txt"
	;;
*)
	echo "usage: $0 valgrind|rss [OUT]" >&2
	exit 2
	;;
esac
