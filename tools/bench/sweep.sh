#!/usr/bin/env bash
# tools/bench/sweep.sh — the solver scaling table and plot of
# docs/performance.md: bin/mixdnn-bench over W waiting jobs x G GPUs.
#
#   tools/bench/sweep.sh [OUT]        (default OUT=build/bench/sweep)
#   env: WS="25 50 100 200 500 1000 2000"  GS="64 512 4096"  DISTS="philly heavy"
#        SEEDS="1"  ROUNDS=20  BOUND_MAX_W=2000 (whole-instance LP bound up to this W)
#        BENCH_ARGS="--window 40"  (extra bin/mixdnn-bench options, e.g. planner options)
#        PLOT=docs/img/solver-scaling.svg (empty: no plot)  TITLE="..." (plot title)
#        BENCH=path/to/mixdnn-bench (another build, e.g. a prototype of the core)
# Writes OUT/sweep.tsv (one line per run), OUT/sweep.jsonl (the raw JSON)
# and, with gnuplot, the SVG plot of solve-time p95 against W per G.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/build/bench/sweep}
WS=${WS:-"25 50 100 200 500 1000 2000"}
GS=${GS:-"64 512 4096"}
DISTS=${DISTS:-"philly heavy"}
SEEDS=${SEEDS:-1}
ROUNDS=${ROUNDS:-20}
BOUND_MAX_W=${BOUND_MAX_W:-2000}
BENCH_ARGS=${BENCH_ARGS:-}
PLOT=${PLOT-$ROOT/docs/img/solver-scaling.svg}
BENCH=${BENCH:-$ROOT/bin/mixdnn-bench}
mkdir -p "$OUT"
[ -x "$BENCH" ] || make -C "$ROOT" -s bin/mixdnn-bench
{
	echo "# $(date -u +%FT%TZ) $(uname -n) nproc=$(nproc) bench=$BENCH"
	echo "# BENCH_ARGS=$BENCH_ARGS ROUNDS=$ROUNDS SEEDS=$SEEDS"
	env | grep '^MXP_' | sed 's/^/# env /' || true
} >"$OUT/env.txt"

: >"$OUT/sweep.jsonl"
printf 'dist\tW\tG\tseed\tcpu_p50_ms\tcpu_p95_ms\twall_p50_ms\twall_p95_ms\twall_max_ms\tobjective\tcore_bound\tcore_gap_pct\theuristic_objective\twhole_bound\twhole_gap_pct\tdelay_gap_pct\theur_delay_gap_pct\tsolver\tmilp_vars\tbound_ms\n' >"$OUT/sweep.tsv"
for dist in $DISTS; do
	for G in $GS; do
		for W in $WS; do
			for seed in $SEEDS; do
				bound=none
				[ "$W" -le "$BOUND_MAX_W" ] && bound=lp
				rounds=$ROUNDS
				[ "$W" -ge 1000 ] && [ "$rounds" -gt 10 ] && rounds=10
				# shellcheck disable=SC2086
				"$BENCH" --waiting "$W" --gpus "$G" --dist "$dist" --seed "$seed" --rounds "$rounds" \
					--bound "$bound" --bound-ratio 1.1 --quiet --json $BENCH_ARGS | tail -1 >"$OUT/last.json"
				cat "$OUT/last.json" >>"$OUT/sweep.jsonl"
				python3 - "$OUT/last.json" "$dist" <<'EOF' | tee -a "$OUT/sweep.tsv"
import json, sys
d = json.load(open(sys.argv[1]))
def f(x, n=3, scale=1.0):
    return "NaN" if x is None else ("%.*f" % (n, x * scale))
print("\t".join([sys.argv[2], str(d["waiting"]), str(d["gpus"]), str(d["seed"]),
    f(d["cpu_ms_p50"], 2), f(d["cpu_ms_p95"], 2), f(d["solve_ms_p50"], 2), f(d["solve_ms_p95"], 2), f(d["solve_ms_max"], 2),
    f(d["objective"], 4), f(d["bound"], 4), f(d["gap"], 4, 100), f(d["heuristic_objective"], 4),
    f(d["whole_bound"], 4), f(d["whole_gap"], 3, 100), f(d["wct_gap"], 2, 100), f(d["heuristic_wct_gap"], 2, 100),
    d["solver"].replace(" ", "_"), str(d["milp_vars"]), f(d["bound_ms"], 0)]))
EOF
			done
		done
	done
done
rm -f "$OUT/last.json"

if [ -n "$PLOT" ] && command -v gnuplot >/dev/null; then
	mkdir -p "$(dirname "$PLOT")"
	gnuplot -e "tsv='$OUT/sweep.tsv'; out='$PLOT'; ttl='${TITLE:-mixdnn-bench: one scheduling round}'" "$HERE/sweep.gp"
	echo "plot: $PLOT"
fi
