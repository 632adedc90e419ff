#!/usr/bin/env bash
# tools/independent_all.sh DIR... — the six comparators of issue #13 against
# their independent implementation (test/sim/independent/comparators.py) on
# every workload of tools/opt_bench.sh and tools/fresh_bench.sh directories
# (each DIR has in/ with types.csv, profiles.csv, nodes-CLUSTER.csv and the
# workloads' traces; its workloads are DIR/workloads.txt, opt_bench's, or
# else fresh_workloads.py's list), two runs at a time. Prints one line per
# policy, "POLICY: N of M workloads the same", and each difference
# (test/sim/independent/same.py); exits 1 on any difference or failed run.
# test/sim/independent.sh is the test, on a few workloads; this is the
# measurement of docs/model.md ("An independent check of the comparators":
# all 200 workloads of table U, about 15 minutes here):
#
#   tools/independent_all.sh build/opt[1-5] build/fresh/seed-[1-5]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIM=${MIXDNN_SIM:-$ROOT/bin/mixdnn-sim}
POLICIES="k8s backfill sjf hgreedy hsjf k8s-any"
R=$(mktemp -d /tmp/mixdnn-independent.XXXXXX)
trap 'rm -rf "$R"' EXIT
[ $# -gt 0 ] || { echo "usage: $0 DIR..." >&2; exit 2; }

# one line per workload: TYPES NODES PROFILES TRACE ID
k=0
for d in "$@"; do
	k=$((k + 1))
	if [ -f "$d/workloads.txt" ]; then
		awk '{ print $1, $2 }' "$d/workloads.txt"
	else
		python3 "$ROOT/tools/fresh_workloads.py" --list
	fi | while read -r wl cl; do
		echo "$d/in/types.csv $d/in/nodes-$cl.csv $d/in/profiles.csv $d/in/$wl.csv d$k-$wl"
	done
done >"$R/list"
[ -s "$R/list" ] || { echo "no workloads in $*" >&2; exit 1; }

while read -r t n p tr id; do
	for pol in $POLICIES; do echo "$t $n $p $tr $id $pol"; done
done <"$R/list" | SIM="$SIM" IND="python3 $ROOT/test/sim/independent/comparators.py" R="$R" \
	xargs -P 2 -L 1 sh -c '
	"$SIM" --types "$0" --nodes "$1" --profiles "$2" --trace "$3" --policy "$5" --quiet \
		--out "$R/$4.$5.ours.csv" </dev/null >/dev/null 2>&1 &&
	$IND --types "$0" --nodes "$1" --profiles "$2" --trace "$3" --policy "$5" \
		--out "$R/$4.$5.ind.csv" </dev/null >/dev/null 2>&1 || : >"$R/$4.$5.failed"'

rc=0
for pol in $POLICIES; do
	same=0
	all=0
	while read -r t n p tr id; do
		all=$((all + 1))
		if [ -e "$R/$id.$pol.failed" ]; then
			echo "  $id: a run failed"
			rc=1
			continue
		fi
		d=$(python3 "$ROOT/test/sim/independent/same.py" "$R/$id.$pol.ours.csv" "$R/$id.$pol.ind.csv" 2>&1 ||
			echo "the comparison failed")
		if [ -z "$d" ]; then same=$((same + 1)); else echo "  $id $pol: $d"; rc=1; fi
	done <"$R/list"
	echo "$pol: $same of $all workloads the same"
	[ "$same" -eq "$all" ] || rc=1
done
exit "$rc"
