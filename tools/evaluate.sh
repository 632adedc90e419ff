#!/bin/sh
# tools/evaluate.sh — regenerate docs/evaluation.md (docs/evaluation.md, "How to reproduce").
#
#   tools/evaluate.sh            the full evaluation (about 10 minutes on 2 cores)
#   tools/evaluate.sh --quick    Pollux workloads 1-2 only, no report (a smoke test)
#   tools/evaluate.sh --report-only   rewrite docs/evaluation.md from build/eval
#
# Environment: MIXDNN_DATA (default ../shared/data), EVAL_DIR (default
# build/eval; never in git), EVAL_JOBS (parallel simulations, default 2),
# SIM_OPTS (bin/mixdnn-sim options for the mixdnn policy, default none:
# the extension's defaults), EVAL_NO_REPORT=1 (skip docs/ and docs/img/).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DATA=${MIXDNN_DATA:-}
if [ -z "$DATA" ]; then
	for d in "$ROOT/../shared/data" "$ROOT/../../shared/data" /work/shared/data; do
		if [ -d "$d/gavel" ]; then DATA=$d; break; fi
	done
fi
[ -n "$DATA" ] && [ -d "$DATA/gavel" ] || { echo "evaluate.sh: shared data not found (set MIXDNN_DATA)" >&2; exit 2; }
OUT=${EVAL_DIR:-$ROOT/build/eval}
JOBS=${EVAL_JOBS:-2}
# The mixdnn runs use the extension's defaults: what is measured is what
# runs in the database (rounds take well under a millisecond, docs/model.md).
SIM_OPTS=${SIM_OPTS-}
QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
if [ "${1:-}" = "--report-only" ]; then
	python3 tools/eval_report.py --dir "$OUT" --out docs/evaluation.md --img docs/img \
		--elapsed "$(cat "$OUT/elapsed" 2>/dev/null || echo ?)" --sim-opts "$SIM_OPTS"
	exit 0
fi

POLLUX="1 2 3 4 5 6 7 8"
GAVEL="7f04ca 2869ce e13805"
PHILLY_LOADS="0.5 1 2"
SHARES="0 50 100"
POLICIES="mixdnn k8s static backfill"
if [ $QUICK = 1 ]; then POLLUX="1 2"; GAVEL=""; PHILLY_LOADS=""; fi

make -s bin/mixdnn-sim >/dev/null
mkdir -p "$OUT/in" "$OUT/runs"
D="python3 tools/mixdnn_data.py --data $DATA"

echo "evaluate.sh: inputs in $OUT/in" >&2
$D types --out "$OUT/in/types.csv"
$D profiles --out "$OUT/in/profiles.csv"
$D nodes --preset gavel --out "$OUT/in/nodes-gavel.csv"
$D nodes --preset medium --out "$OUT/in/nodes-medium.csv"

: >"$OUT/runs.txt"
: >"$OUT/workloads.txt"
add_workload() {	# name cluster importer-args...
	name=$1; cluster=$2; shift 2
	for s in $SHARES; do
		share=$(awk "BEGIN { print $s / 100 }")
		$D "$@" --nodes "$OUT/in/nodes-$cluster.csv" --soft-share "$share" --seed 1 \
			--out "$OUT/in/$name-s$s.csv" 2>/dev/null
		for p in $POLICIES; do
			echo "$name $cluster $s $p" >>"$OUT/runs.txt"
		done
	done
	echo "$name $cluster" >>"$OUT/workloads.txt"
}
for w in $POLLUX; do add_workload "pollux-$w" gavel pollux-trace --workload "$w"; done
for g in $GAVEL; do add_workload "gavel-$g" gavel gavel-trace --trace "$g"; done
for l in $PHILLY_LOADS; do add_workload "philly-x$l" medium philly-trace --vc 11cb48 --start 2017-11-15 --days 3 --max-duration 86400 --load "$l"; done

# lower bounds (per workload and soft share)
while read -r name cluster; do
	for s in $SHARES; do
		$D stats --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-$cluster.csv" \
			--profiles "$OUT/in/profiles.csv" --trace "$OUT/in/$name-s$s.csv" >"$OUT/runs/$name-s$s.stats.json"
	done
done <"$OUT/workloads.txt"

n=$(wc -l <"$OUT/runs.txt")
echo "evaluate.sh: $n simulations, $JOBS at a time" >&2
export OUT SIM_OPTS ROOT
START=$(date +%s)
# shellcheck disable=SC2016
xargs -P "$JOBS" -L 1 sh -c '
	name=$0; cluster=$1; s=$2; p=$3
	base="$OUT/runs/$name-s$s-$p"
	opts=""
	[ "$p" = mixdnn ] && opts="$SIM_OPTS"
	"$ROOT/bin/mixdnn-sim" --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-$cluster.csv" \
		--profiles "$OUT/in/profiles.csv" --trace "$OUT/in/$name-s$s.csv" --policy "$p" \
		--json --quiet --out "$base.jobs.csv" --util-out "$base.util.csv" $opts \
		>"$base.json.tmp" 2>"$base.err" || echo "evaluate.sh: $name s$s $p failed (see $base.err)" >&2
	tail -n 1 "$base.json.tmp" >"$base.json"; rm -f "$base.json.tmp"
	echo "  done $name soft $s% $p" >&2
' <"$OUT/runs.txt"
echo "evaluate.sh: simulations took $(( $(date +%s) - START )) s" >&2
echo "$(( $(date +%s) - START ))" >"$OUT/elapsed"

if [ $QUICK = 1 ] || [ "${EVAL_NO_REPORT:-0}" = 1 ]; then
	python3 tools/eval_report.py --dir "$OUT" --summary
	exit 0
fi
python3 tools/eval_report.py --dir "$OUT" --out docs/evaluation.md --img docs/img \
	--elapsed "$(( $(date +%s) - START ))" --sim-opts "$SIM_OPTS"
echo "evaluate.sh: wrote docs/evaluation.md and docs/img/" >&2
