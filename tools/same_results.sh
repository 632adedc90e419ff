#!/bin/sh
# tools/same_results.sh — record what the simulator and the benchmark decide
# on a fixed set of inputs, so that a change meant to keep behaviour (a
# refactoring) can be shown to keep it.
#
#   tools/same_results.sh record DIR     run everything, write DIR/
#   tools/same_results.sh compare A B    exit 0 when A and B hold the same results
#
# Inputs: the differential test's traces (test/sim/diff) and, when the shared
# data is found (MIXDNN_DATA, as tools/evaluate.sh), the first Pollux workload
# and Gavel trace 2869ce of evaluate.sh --quick at soft shares 0 and 50 with
# exact and lognormal:1 estimates. Every policy of bin/mixdnn-sim runs on every
# trace (its --json, --out, --util-out and --rounds-out), and mixdnn with
# each model of src/core/milp.c; bin/mixdnn-bench
# runs three seeded instances with the whole-instance LP bound. Wall-clock fields
# (solve_ms_*, wall_s, *_ms timings of the benchmark) are dropped: they differ
# between any two runs. A MILP round that hits its time limit could decide
# differently on a loaded machine; the traces here solve far inside it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
POLICIES="mixdnn k8s static backfill sjf hgreedy hsjf k8s-any"

usage() {
	echo "usage: tools/same_results.sh record DIR | compare DIR-A DIR-B" >&2
	exit 2
}

# strip FILE: the JSON line without wall-clock fields, keys sorted
strip() {
	tail -n 1 "$1" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
for k in list(d):
	if k.startswith("solve_ms") or k == "wall_s" or k.endswith("_ms") and k != "time_limit_ms" \
			or k.endswith("_ms_p50") or k.endswith("_ms_p95") or k.endswith("_ms_max"):
		del d[k]
# Fields of the tenancy summary that say nothing for a trace without owners
# (a tree before issue #15 does not print them).
if not d.get("owners"):
	for k in ("fair_share", "fairness_jain", "owners"):
		d.pop(k, None)
print(json.dumps(d, sort_keys=True, indent=1))'
}

# The mixdnn policy's other models: the start-now MILP and the time-grid
# MILP (--reserve-all), so that src/core/milp.c is exercised as well.
VARIANTS="start-now-milp reserve-all"

# sim NAME TYPES NODES PROFILES TRACE: every policy on one trace
sim() {
	name=$1; types=$2; nodes=$3; profiles=$4; trace=$5
	for p in $POLICIES $(for v in $VARIANTS; do echo "mixdnn:$v"; done); do
		base="$OUT/sim/$name-$(echo "$p" | tr : -)"
		opt=""
		case $p in mixdnn:*) opt="--${p#mixdnn:}"; p=mixdnn ;; esac
		# shellcheck disable=SC2086
		"$ROOT/bin/mixdnn-sim" --types "$types" --nodes "$nodes" --profiles "$profiles" \
			--trace "$trace" --policy "$p" $opt --json --quiet --out "$base.jobs.csv" \
			--util-out "$base.util.csv" --rounds-out "$base.rounds.raw" \
			>"$base.raw" 2>"$base.err" || echo "exit $?" >>"$base.err"
		strip "$base.raw" >"$base.json" 2>>"$base.err" || true
		# every column of --rounds-out but solve_ms (the 5th)
		cut -d, -f1-4,6- "$base.rounds.raw" >"$base.rounds.csv"
		rm -f "$base.raw" "$base.rounds.raw"
		[ -s "$base.err" ] || rm -f "$base.err"
	done
}

record() {
	OUT=$1
	rm -rf "$OUT"
	mkdir -p "$OUT/sim" "$OUT/bench" "$OUT/in"
	(cd "$ROOT" && make -s bin/mixdnn-sim bin/mixdnn-bench >/dev/null)
	D=$ROOT/test/sim/diff
	sim diff "$D/types.csv" "$D/nodes.csv" "$D/profiles.csv" "$D/trace.csv"
	sim diff-exact "$D/types.csv" "$D/nodes.csv" "$D/profiles.csv" "$D/trace-exact.csv"

	DATA=${MIXDNN_DATA:-}
	for d in "$ROOT/../shared/data" "$ROOT/../../shared/data" /work/shared/data; do
		[ -z "$DATA" ] && [ -d "$d/gavel" ] && DATA=$d
	done
	if [ -n "$DATA" ] && [ -d "$DATA/gavel" ]; then
		I=$OUT/in
		M="python3 $ROOT/tools/mixdnn_data.py --data $DATA"
		$M types --out "$I/types.csv"
		$M profiles --out "$I/profiles.csv"
		$M nodes --preset gavel --out "$I/nodes.csv"
		$M pollux-trace --workload 1 --nodes "$I/nodes.csv" --soft-share 0,0.5 \
			--estimate exact,lognormal:1 --seed 1 --out "$I/pollux-s{share}-{est}.csv" 2>/dev/null
		$M gavel-trace --trace 2869ce --nodes "$I/nodes.csv" --soft-share 0,0.5 \
			--estimate exact,lognormal:1 --seed 1 --out "$I/gavel-s{share}-{est}.csv" 2>/dev/null
		for t in "$I"/pollux-*.csv "$I"/gavel-*.csv; do
			sim "$(basename "$t" .csv)" "$I/types.csv" "$I/nodes.csv" "$I/profiles.csv" "$t"
		done
	else
		echo "same_results.sh: shared data not found; the differential traces only" >&2
	fi
	rm -rf "$OUT/in"

	for seed in 1 2 3; do
		"$ROOT/bin/mixdnn-bench" --waiting 40 --gpus 64 --seed "$seed" --rounds 3 --bound lp \
			--json --quiet >"$OUT/bench/seed$seed.raw" 2>"$OUT/bench/seed$seed.err" || true
		strip "$OUT/bench/seed$seed.raw" >"$OUT/bench/seed$seed.json" 2>>"$OUT/bench/seed$seed.err" || true
		rm -f "$OUT/bench/seed$seed.raw"
		[ -s "$OUT/bench/seed$seed.err" ] || rm -f "$OUT/bench/seed$seed.err"
	done
	echo "same_results.sh: $(find "$OUT" -type f | wc -l) files in $OUT" >&2
}

compare() {
	if diff -r "$1" "$2" >/dev/null; then
		echo "same_results.sh: same results ($(find "$1" -type f | wc -l) files)"
	else
		diff -r "$1" "$2" | head -40
		echo "same_results.sh: results differ" >&2
		exit 1
	fi
}

case ${1:-} in
	record) [ $# -eq 2 ] || usage; record "$2" ;;
	compare) [ $# -eq 3 ] || usage; compare "$2" "$3" ;;
	*) usage ;;
esac
