#!/bin/sh
# tools/opt_bench.sh — the configuration LP against every comparator on the
# generated workloads of docs/model.md ("Configuration LP: measured").
#
#   tools/opt_bench.sh                  every workload, every policy and variant
#   OPT_VARIANTS="lp=" tools/opt_bench.sh     only the default mixdnn
#
# Environment: MIXDNN_DATA (default ../shared/data), OPT_DIR (default
# build/opt; never in git), OPT_SEED (the workloads' seed, default 1), OPT_POLICIES (comparators, default the six of issue #13 that the simulator
# knows), OPT_VARIANTS (space-separated name=mixdnn-sim-options pairs; the
# options use ',' for spaces), OPT_KEEP=1 (keep a run whose result file
# exists: comparators run once per OPT_DIR, new variants get new names),
# OPT_BOUNDS=0 (skip the headroom runs below), OPT_WORKLOADS (a file of
# workload lines, as below, instead of the 16 of docs/model.md),
# OPT_LPBOUND=1 (also the online optimum bound of table O, which needs the
# headroom runs). Then tools/opt_table.py writes the tables.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# a relative OPT_WORKLOADS is the caller's, read before the cd
if [ -n "${OPT_WORKLOADS:-}" ]; then
	[ -r "$OPT_WORKLOADS" ] || { echo "opt_bench.sh: cannot read OPT_WORKLOADS=$OPT_WORKLOADS" >&2; exit 2; }
	OPT_WORKLOADS=$(cd "$(dirname "$OPT_WORKLOADS")" && pwd)/$(basename "$OPT_WORKLOADS")
fi
cd "$ROOT"
if [ "${OPT_LPBOUND:-0}" = 1 ] && [ "${OPT_BOUNDS:-1}" = 0 ]; then
	echo "opt_bench.sh: OPT_LPBOUND=1 needs the headroom runs (not OPT_BOUNDS=0)" >&2
	exit 2
fi
DATA=${MIXDNN_DATA:-$ROOT/../shared/data}
[ -d "$DATA/gavel" ] || DATA=/work/shared/data
[ -d "$DATA/gavel" ] || { echo "opt_bench.sh: no shared data in $DATA (set MIXDNN_DATA)" >&2; exit 2; }
OUT=${OPT_DIR:-$ROOT/build/opt}
SIM=bin/mixdnn-sim
ALL="k8s backfill sjf hgreedy hsjf k8s-any"
if [ -z "${OPT_POLICIES:-}" ]; then
	OPT_POLICIES=
	for p in $ALL; do
		# only the comparators this simulator has (the others come with issue #12)
		if $SIM --help 2>&1 | grep -q -- "$p"; then OPT_POLICIES="$OPT_POLICIES $p"; fi
	done
fi
VARIANTS=${OPT_VARIANTS:-"lp= nolp=--start-now-milp noglpk=--no-milp"}
# Debian's Python, whose python3-scipy (tools/setup.sh) solves the batch
# bound's assignment; checked before hours of simulations, not after
SCIPY=/usr/bin/python3
if [ "${OPT_BOUNDS:-1}" != 0 ] && ! $SCIPY -c 'import scipy.optimize' 2>/dev/null; then
	echo "opt_bench.sh: $SCIPY cannot import scipy (Debian package python3-scipy; tools/setup.sh installs it), or set OPT_BOUNDS=0" >&2
	exit 2
fi

make -s "$SIM" >/dev/null
mkdir -p "$OUT/in" "$OUT/runs"
D="python3 tools/mixdnn_data.py --data $DATA"
$D types --out "$OUT/in/types.csv"
$D profiles --out "$OUT/in/profiles.csv"
$D nodes --preset gavel --out "$OUT/in/nodes-gavel.csv"
$D nodes --preset medium --out "$OUT/in/nodes-medium.csv"

# name cluster arrivals load soft sigma jobs (OPT_WORKLOADS: a file of such
# lines instead, e.g. lighter loads or other soft shares)
if [ -n "${OPT_WORKLOADS:-}" ]; then
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$OPT_WORKLOADS" >"$OUT/workloads.txt"
	[ -s "$OUT/workloads.txt" ] || { echo "opt_bench.sh: no workload line in $OPT_WORKLOADS" >&2; exit 2; }
	# seven fields and a cluster written above, before minutes of simulations
	awk 'NF != 7 || ($2 != "gavel" && $2 != "medium") { print "opt_bench.sh: bad workload line (name gavel|medium arrivals load soft sigma jobs): " $0; bad = 1 }
		END { exit bad }' "$OUT/workloads.txt" >&2 || exit 2
else
	cat >"$OUT/workloads.txt" <<'EOF'
g-on3-s30-x gavel online 3.0 0.3 0 300
g-on3-s80-n gavel online 3.0 0.8 0.5 300
g-on5-s50-x gavel online 5.0 0.5 0 300
g-on5-s80-x gavel online 5.0 0.8 0 300
g-on5-s30-n gavel online 5.0 0.3 0.5 300
g-on3-s50-n gavel online 3.0 0.5 0.5 300
g-bat-s50-x gavel batch 1 0.5 0 400
g-bat-s80-n gavel batch 1 0.8 0.5 400
g-bat-s30-n gavel batch 1 0.3 0.5 400
m-on3-s50-x medium online 3.0 0.5 0 200
m-on3-s80-n medium online 3.0 0.8 0.5 200
m-on5-s30-n medium online 5.0 0.3 0.5 200
m-bat-s80-x medium batch 1 0.8 0 200
m-bat-s30-x medium batch 1 0.3 0 200
m-on5-s80-x medium online 5.0 0.8 0 200
m-bat-s50-n medium batch 1 0.5 0.5 200
EOF
fi

: >"$OUT/runs.txt"
while read -r name cluster arr load soft sigma jobs; do
	python3 tools/opt_workloads.py --data "$DATA" --profiles "$OUT/in/profiles.csv" \
		--nodes "$OUT/in/nodes-$cluster.csv" --arrivals "$arr" --load "$load" \
		--soft-share "$soft" --sigma "$sigma" --jobs "$jobs" --seed "${OPT_SEED:-1}" --out "$OUT/in/$name.csv"
	for p in $OPT_POLICIES; do echo "$name $cluster $p $p" >>"$OUT/runs.txt"; done
	for v in $VARIANTS; do echo "$name $cluster ${v%%=*} mixdnn ${v#*=}" >>"$OUT/runs.txt"; done
done <"$OUT/workloads.txt"

run_one() {	# name cluster label policy [options with ',' for spaces]
	opts=$(echo "${5:-}" | tr ',' ' ')
	# shellcheck disable=SC2086
	$SIM --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-$2.csv" --profiles "$OUT/in/profiles.csv" \
		--trace "$OUT/in/$1.csv" --policy "$4" --json --quiet $opts </dev/null | tail -1 >"$OUT/runs/$1.$3.json"
}
n=$(wc -l <"$OUT/runs.txt")
echo "opt_bench.sh: $n simulations, one at a time" >&2
while read -r name cluster label policy opts; do
	if [ "${OPT_KEEP:-0}" = 1 ] && [ -s "$OUT/runs/$name.$label.json" ]; then continue; fi
	run_one "$name" "$cluster" "$label" "$policy" "${opts:-}"
done <"$OUT/runs.txt"

# Headroom (docs/model.md, table L), unless OPT_BOUNDS=0: per workload, hsjf
# on the same types with 4000 GPUs of each, where every job starts at its
# arrival on its fastest configuration: its average JCT is a lower bound for
# any scheduler on the real cluster in the simulator's model (opt_table.py
# checks that nothing waited, every job finished and the jobs are the same).
if [ "${OPT_BOUNDS:-1}" = 0 ]; then
	rm -rf "$OUT/bounds"	# no stale headroom table
else
	mkdir -p "$OUT/bounds"
	$D nodes --per-type 4000 --gpus-per-node 8 --out "$OUT/in/nodes-nowait.csv"
	while read -r name cluster arr load soft sigma jobs; do
		# every job at once on its widest configuration must fit in any one
		# type (the total over the trace bounds it), so that each starts on
		# its fastest one (hsjf takes the earliest finish)
		python3 -c 'import csv, sys
need = sum(max(int(r["gpus"] or 0), int(r.get("max_gpus") or 0)) for r in csv.DictReader(open(sys.argv[1], newline="")))
sys.exit("opt_bench.sh: %s may need %d GPUs of a type at once, the bound cluster has 4000" % (sys.argv[1], need) if need > 4000 else 0)' "$OUT/in/$name.csv"
		B=$OUT/bounds/$name
		if [ "${OPT_KEEP:-0}" != 1 ] || [ ! -s "$B.nowait.json" ] || [ ! -s "$B.nowait.csv" ]; then
			$SIM --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-nowait.csv" --profiles "$OUT/in/profiles.csv" \
				--trace "$OUT/in/$name.csv" --policy hsjf --json --quiet --out "$B.nowait.csv" </dev/null | tail -1 >"$B.nowait.json"
		fi
		# A batch also gets the optimum bound of table M (tools/opt_bound.py):
		# every job's run time on each type of the cluster, from a run on
		# that type alone (4000 GPUs: nothing waits).
		[ "$arr" = batch ] || continue
		if [ "${OPT_KEEP:-0}" = 1 ] && [ -s "$B.batch.json" ]; then continue; fi
		set --		# the --on arguments, one per GPU type of the cluster
		for t in $(awk -F, 'NR > 1 && $3 > 0 { print $2 }' "$OUT/in/nodes-$cluster.csv" | sort -u); do
			[ -s "$OUT/in/nodes-only-$t.csv" ] || $D nodes --mix "$t=4000" --gpus-per-node 8 --out "$OUT/in/nodes-only-$t.csv"
			$SIM --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-only-$t.csv" --profiles "$OUT/in/profiles.csv" \
				--trace "$OUT/in/$name.csv" --policy hsjf --quiet --out "$B.on-$t.csv" </dev/null >/dev/null
			set -- "$@" --on "$t=$B.on-$t.csv"
		done
		$SCIPY tools/opt_bound.py --trace "$OUT/in/$name.csv" --nodes "$OUT/in/nodes-$cluster.csv" \
			--nowait "$B.nowait.csv" "$@" --out "$B.batch.json"
	done <"$OUT/workloads.txt"
fi
# The online optimum bound of table O (tools/opt_lpbound.sh), only when
# asked: 1-26 minutes of HiGHS per workload
if [ "${OPT_LPBOUND:-0}" = 1 ]; then
	sh tools/opt_lpbound.sh "$OUT"
fi
python3 tools/opt_table.py --dir "$OUT"
