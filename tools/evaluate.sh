#!/bin/sh
# tools/evaluate.sh — regenerate docs/evaluation.md (docs/evaluation.md, "How to reproduce").
#
#   tools/evaluate.sh                 the full evaluation (docs/evaluation.md gives its run time)
#   tools/evaluate.sh --quick         fewer workloads and seeds (QUICK=1 does the same)
#   tools/evaluate.sh --report-only   rewrite docs/evaluation.md from build/eval
#
# Every cell (workload, soft share, estimate model) runs every policy on
# SEEDS traces that differ in their seeded draws (requested type, soft
# share, estimate noise, Pollux durations). static and backfill ignore the
# job class and run at soft share 0 only: their schedules at 50 % and 100 %
# are the same (the report reuses them). k8s and sjf ignore it too but run
# at every share: the report needs their JCT of each share's hard jobs.
#
# Cost: a job that outlives its estimate makes static and backfill plan a
# start at the end of the overrun grace (60 s), so a log-normal run has a
# round every simulated minute while a job overruns. On the Gavel traces
# (up to 479 days) that is 10^5 rounds per run (mixdnn, which assumes an
# overdue job needs as long again as it has overrun, has a few thousand);
# they get 3 seeds and one log-normal model (kept since, so that earlier
# comparator runs can be reused), and static (strict FIFO, never the best
# comparator) runs only with estimates that never overrun (exact,
# overestimate).
#
# Environment: MIXDNN_DATA (default ../shared/data), EVAL_DIR (default
# build/eval; never in git), EVAL_JOBS (parallel simulations, default 2),
# SIM_OPTS (bin/mixdnn-sim options for the mixdnn policy, default none:
# the extension's defaults), EVAL_NO_REPORT=1 (skip docs/evaluation.md),
# QUICK=1 (as --quick), EVAL_KEEP=1 (resume: keep the results in EVAL_DIR
# and run only the simulations without one; the inputs are drawn again,
# seeded, so they are the same traces).
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
# runs in the database.
SIM_OPTS=${SIM_OPTS-}
QUICK=${QUICK:-0}
[ "${1:-}" = "--quick" ] && QUICK=1
report() {
	python3 tools/eval_report.py --dir "$OUT" --out docs/evaluation.md \
		--elapsed "$(cat "$OUT/elapsed" 2>/dev/null || echo ?)" --sim-opts "$SIM_OPTS" \
		--commit "$(cat "$OUT/commit" 2>/dev/null)"
}
if [ "${1:-}" = "--report-only" ]; then
	report
	exit 0
fi

POLLUX="1 2 3 4 5 6 7 8"
GAVEL="7f04ca 2869ce e13805"
PHILLY_LOADS="0.5 1 2"
SEEDS="1 2 3 4 5"
GAVEL_SEEDS="1 2 3"
SHARES="0 0.5 1"
ESTIMATES="exact,lognormal:0.5,lognormal:1,overestimate"
GAVEL_ESTIMATES="exact,lognormal:1,overestimate"
NO_OVERRUN="exact over"		# estimate models under which static runs
POLICIES="mixdnn k8s static backfill sjf hgreedy hsjf k8s-any"
# Ablations: mixdnn with one part switched off, on every cell (not the large
# replay). mixdnn-noglpk = --no-milp: the guarded heuristic alone, which
# shows what GLPK decides (docs/evaluation.md, "Ablation: GLPK off").
ABLATIONS="mixdnn-noglpk"
SHARE_FREE="static backfill"
# The large replay: every Philly virtual cluster for 3 days at 4x load on 384 GPUs.
LARGE_POLICIES="mixdnn k8s sjf hgreedy hsjf k8s-any"
if [ "$QUICK" = 1 ]; then POLLUX="1 2 3"; GAVEL="2869ce"; PHILLY_LOADS="1"; SEEDS="1 2 3"; GAVEL_SEEDS="1 2"; fi

KEEP=${EVAL_KEEP:-0}
make -s bin/mixdnn-sim >/dev/null
if [ "$KEEP" = 1 ] && [ -d "$OUT/runs" ]; then
	rm -rf "$OUT/in"
	rm -f "$OUT"/runs/*.tmp
else
	KEEP=0
	rm -rf "$OUT/in" "$OUT/runs"
	rm -f "$OUT/commit" "$OUT/elapsed"
fi
mkdir -p "$OUT/in" "$OUT/runs"
# The trees the simulator was built from, for the report's first line: a
# resumed run adds its own when it differs.
tree=$(git describe --always --dirty 2>/dev/null || echo "an unknown tree")
if [ ! -s "$OUT/commit" ]; then
	echo "$tree" >"$OUT/commit"
else
	case ", $(cat "$OUT/commit"), " in
		*", $tree, "*) ;;
		*) echo "$(cat "$OUT/commit"), $tree" >"$OUT/commit.tmp" && mv "$OUT/commit.tmp" "$OUT/commit" ;;
	esac
fi
EARLIER=$(cat "$OUT/elapsed" 2>/dev/null || echo 0)
D="python3 tools/mixdnn_data.py --data $DATA"
START=$(date +%s)

echo "evaluate.sh: inputs in $OUT/in" >&2
$D types --out "$OUT/in/types.csv"
$D profiles --out "$OUT/in/profiles.csv"
$D nodes --preset gavel --out "$OUT/in/nodes-gavel.csv"
$D nodes --preset medium --out "$OUT/in/nodes-medium.csv"
$D nodes --per-type 128 --gpus-per-node 8 --out "$OUT/in/nodes-xl.csv"

: >"$OUT/runs.txt"
: >"$OUT/workloads.txt"
# est_tags MODELS: the file tags of comma-separated estimate models
est_tags() {
	for e in $(echo "$1" | tr , ' '); do
		case $e in
			exact) echo exact ;;
			overestimate) echo over ;;
			lognormal:*) echo "ln${e#lognormal:}" ;;
		esac
	done
}
# add_workload NAME CLUSTER IMPORTER-ARGS...: traces of every seed ($WL_SEEDS),
# share and estimate model ($WL_ESTIMATES), and the runs
add_workload() {
	name=$1; cluster=$2; shift 2
	tags=$(est_tags "$WL_ESTIMATES")
	for seed in $WL_SEEDS; do
		$D "$@" --nodes "$OUT/in/nodes-$cluster.csv" --soft-share "$(echo "$SHARES" | tr ' ' ,)" \
			--estimate "$WL_ESTIMATES" --seed "$seed" --out "$OUT/in/$name-r$seed-s{share}-{est}.csv" 2>/dev/null
		pcts=$(for share in $SHARES; do awk "BEGIN { print $share * 100 }"; done)
		# one stats process for the shares: one JSON line each, in order
		$D stats --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-$cluster.csv" --profiles "$OUT/in/profiles.csv" \
			$(for s in $pcts; do echo "--trace $OUT/in/$name-r$seed-s$s-exact.csv"; done) >"$OUT/in/stats.tmp"
		i=0
		for s in $pcts; do
			i=$((i + 1))
			sed -n "${i}p" "$OUT/in/stats.tmp" >"$OUT/runs/$name-r$seed-s$s.stats.json"
			for e in $tags; do
				for p in $POLICIES $ABLATIONS; do
					case " $SHARE_FREE " in *" $p "*) [ "$s" = 0 ] || continue ;; esac
					case " $NO_OVERRUN " in *" $e "*) ;; *) [ "$p" = static ] && continue ;; esac
					echo "$name $cluster $seed $s $e $p" >>"$OUT/runs.txt"
				done
			done
		done
	done
	rm -f "$OUT/in/stats.tmp"
	echo "$name $cluster" >>"$OUT/workloads.txt"
}
WL_SEEDS=$SEEDS WL_ESTIMATES=$ESTIMATES
for w in $POLLUX; do add_workload "pollux-$w" gavel pollux-trace --workload "$w"; done
WL_SEEDS=$GAVEL_SEEDS WL_ESTIMATES=$GAVEL_ESTIMATES
for g in $GAVEL; do add_workload "gavel-$g" gavel gavel-trace --trace "$g"; done
WL_SEEDS=$SEEDS WL_ESTIMATES=$ESTIMATES
for l in $PHILLY_LOADS; do add_workload "philly-x$l" medium philly-trace --vc 11cb48 --start 2017-11-15 --days 3 --max-duration 86400 --load "$l"; done

$D philly-trace --vc all --start 2017-11-15 --days 3 --max-duration 86400 --load 4 --nodes "$OUT/in/nodes-xl.csv" \
	--soft-share 0.5 --estimate exact,lognormal:1 --seed 1 --out "$OUT/in/large-r1-s{share}-{est}.csv" 2>/dev/null
$D stats --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-xl.csv" --profiles "$OUT/in/profiles.csv" \
	--trace "$OUT/in/large-r1-s50-exact.csv" >"$OUT/runs/large-r1-s50.stats.json"
for e in exact ln1; do
	for p in $LARGE_POLICIES; do echo "large xl 1 50 $e $p" >>"$OUT/runs.txt"; done
done
echo "evaluate.sh: inputs took $(( $(date +%s) - START )) s" >&2

n=$(wc -l <"$OUT/runs.txt")
echo "evaluate.sh: $n simulations, $JOBS at a time" >&2
export OUT SIM_OPTS ROOT
T1=$(date +%s)
# shellcheck disable=SC2016
export KEEP
xargs -P "$JOBS" -L 1 sh -c '
	name=$0; cluster=$1; seed=$2; s=$3; e=$4; p=$5
	base="$OUT/runs/$name-r$seed-s$s-$e-$p"
	[ "$KEEP" = 1 ] && [ -s "$base.json" ] && exit 0
	opts=""
	policy=$p
	[ "$p" = mixdnn ] && opts="$SIM_OPTS"
	[ "$p" = mixdnn-noglpk ] && { policy=mixdnn; opts="$SIM_OPTS --no-milp"; }
	# per-job results of mixdnn with exact estimates, for tools/variant_table.py
	[ "$p" = mixdnn ] && [ "$e" = exact ] && opts="$opts --out $base.jobs.csv"
	"$ROOT/bin/mixdnn-sim" --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-$cluster.csv" \
		--profiles "$OUT/in/profiles.csv" --trace "$OUT/in/$name-r$seed-s$s-$e.csv" --policy "$policy" \
		--json --quiet $opts >"$base.json.tmp" 2>"$base.err" || echo "evaluate.sh: $base failed (see $base.err)" >&2
	tail -n 1 "$base.json.tmp" >"$base.json"; rm -f "$base.json.tmp"
	[ -s "$base.err" ] || rm -f "$base.err"
' <"$OUT/runs.txt"
echo "evaluate.sh: simulations took $(( $(date +%s) - T1 )) s" >&2
echo "$(( EARLIER + $(date +%s) - START ))" >"$OUT/elapsed"
printf '%s\n' "$SEEDS" >"$OUT/seeds.txt"
est_tags "$ESTIMATES" >"$OUT/estimates.txt"
echo "$QUICK" >"$OUT/quick.txt"

if [ "${EVAL_NO_REPORT:-0}" = 1 ]; then
	exit 0
fi
report
echo "evaluate.sh: wrote docs/evaluation.md in $(( $(date +%s) - START )) s" >&2
