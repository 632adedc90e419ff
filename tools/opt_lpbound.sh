#!/bin/sh
# tools/opt_lpbound.sh DIR [NAME ...] — the online optimum bound of
# docs/model.md (table O) for the workloads of a tools/opt_bench.sh result
# directory (all of DIR/workloads.txt, or the NAMEs): per workload, the
# configurations and true run times from mixdnn-sim --configs-out, the
# runs of hsjf and of mixdnn at its defaults as checks, and
# tools/opt_lpbound.py into DIR/bounds/NAME.lp.json; then hsjf on the
# LP's configurations (tools/opt_clairvoyant.py, table P) with true run
# times and with the trace's estimates, and mixdnn on the latter, whose
# average JCTs and makespans join the JSON. OPT_CELL_S sets the cell (default 60 s);
# OPT_KEEP=1 keeps a bound already there with the same cell and its
# pinned runs.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ $# -ge 1 ] || { echo "usage: tools/opt_lpbound.sh DIR [NAME ...]" >&2; exit 2; }
OUT=$1
shift
[ -s "$OUT/workloads.txt" ] || { echo "opt_lpbound.sh: $OUT/workloads.txt: not an opt_bench.sh directory" >&2; exit 2; }
SIM=bin/mixdnn-sim
SCIPY=/usr/bin/python3		# Debian's, with python3-scipy (tools/setup.sh)
$SCIPY -c 'import scipy.optimize' 2>/dev/null ||
	{ echo "opt_lpbound.sh: $SCIPY cannot import scipy (Debian package python3-scipy)" >&2; exit 2; }
make -s "$SIM" >/dev/null
for n in "$@"; do
	awk -v n="$n" '$1 == n { found = 1 } END { exit !found }' "$OUT/workloads.txt" ||
		{ echo "opt_lpbound.sh: no workload $n in $OUT/workloads.txt" >&2; exit 2; }
done
mkdir -p "$OUT/bounds"
run() {	# run LABEL POLICY TRACE [OPTIONS]: the jobs file $B.lp-LABEL.csv of workload $name
	l=$1
	p=$2
	t=$3
	shift 3
	$SIM --types "$OUT/in/types.csv" --nodes "$OUT/in/nodes-$cluster.csv" --profiles "$OUT/in/profiles.csv" \
		--trace "$t" --policy "$p" --quiet --out "$B.lp-$l.csv" "$@" </dev/null >/dev/null
}
record() {	# record NAME LABEL: the pinned run $B.lp-LABEL.csv's JCT and makespan into $B.lp.json as NAME_...
	$SCIPY tools/opt_clairvoyant.py record --as "$1" --configs "$B.configs.csv" --nodes "$OUT/in/nodes-$cluster.csv" \
		--bound "$B.lp.json" "$B.lp-$2.csv"
}
kept() {	# $B.lp.json has this cell and every pinned run (one from before table P is solved again)
	$SCIPY -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d.get("cell_s") == float(sys.argv[2]) and "pinned_mixdnn_jct_s" in d else 1)' "$B.lp.json" "${OPT_CELL_S:-60}" 2>/dev/null
}
while read -r name cluster arr load soft sigma jobs; do
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	B=$OUT/bounds/$name
	if [ "${OPT_KEEP:-0}" = 1 ] && kept; then continue; fi
	run hsjf hsjf "$OUT/in/$name.csv" --configs-out "$B.configs.csv"	# the configurations once: the trace's and the cluster's
	run mixdnn mixdnn "$OUT/in/$name.csv"
	$SCIPY tools/opt_lpbound.py --configs "$B.configs.csv" --nodes "$OUT/in/nodes-$cluster.csv" \
		--cell-s "${OPT_CELL_S:-60}" --check "$B.lp-hsjf.csv" --check "$B.lp-mixdnn.csv" \
		--pins-out "$B.pins.csv" --out "$B.lp.json"
	for e in true trace; do
		$SCIPY tools/opt_clairvoyant.py pin --estimates $e --trace "$OUT/in/$name.csv" --pins "$B.pins.csv" --out "$B.pinned-$e.csv"
		run hsjf-pinned-$e hsjf "$B.pinned-$e.csv"
	done
	run mixdnn-pinned-trace mixdnn "$B.pinned-trace.csv"	# its guards on the same configurations
	record clairvoyant hsjf-pinned-true
	record pinned_estimates hsjf-pinned-trace
	record pinned_mixdnn mixdnn-pinned-trace
	echo "opt_lpbound.sh: $name $(cat "$B.lp.json")" >&2
done <"$OUT/workloads.txt"
