#!/bin/sh
# fresh_bench.sh — the out-of-sample workloads of tools/fresh_workloads.py:
# every comparator, mixdnn (defaults) and mixdnn --no-milp on each of the 24
# workloads of each seed, two simulations at a time, then the table of
# tools/fresh_table.py per seed (docs/model.md, table R2). `make eval-fresh`.
#
#   FRESH_SEEDS   seeds to draw (default "1 2 3"; 1 is the reviewer's set)
#   FRESH_DIR     where inputs and results go (default build/fresh)
#   FRESH_KEEP=1  keep results whose JSON exists (comparators run once)
#   FRESH_OPTS    extra mixdnn-sim options for mixdnn and --no-milp
#                 (',' for spaces: --critical-trade,0.1)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIM=$ROOT/bin/mixdnn-sim
DIR=${FRESH_DIR:-$ROOT/build/fresh}
make -s -C "$ROOT" bin/mixdnn-sim >/dev/null
OPTS=$(echo "${FRESH_OPTS:-}" | tr ',' ' ')
FRESH_KEEP=${FRESH_KEEP:-0}
export SIM FRESH_KEEP OPTS
# shellcheck disable=SC2016
for seed in ${FRESH_SEEDS:-1 2 3}; do
	D=$DIR/seed-$seed
	mkdir -p "$D/in" "$D/runs"
	python3 "$ROOT/tools/fresh_workloads.py" --out "$D/in" --seed "$seed"
	python3 "$ROOT/tools/fresh_workloads.py" --list | while read -r wl cl; do
		for p in k8s backfill sjf hgreedy hsjf k8s-any; do echo "$D $wl $cl $p $p"; done
		echo "$D $wl $cl mixdnn mixdnn"
		echo "$D $wl $cl nomilp mixdnn --no-milp"
	done
done | xargs -P 2 -L 1 sh -c '
	D=$0 wl=$1 cl=$2 label=$3 pol=$4; shift 4
	[ "$FRESH_KEEP" = 1 ] && [ -s "$D/runs/$wl.$label.json" ] && exit 0
	case $pol in mixdnn) set -- "$@" $OPTS ;; esac
	"$SIM" --types "$D/in/types.csv" --nodes "$D/in/nodes-$cl.csv" --profiles "$D/in/profiles.csv" \
		--trace "$D/in/$wl.csv" --policy "$pol" --json --quiet "$@" </dev/null 2>"$D/runs/$wl.$label.err" |
		tail -1 >"$D/runs/$wl.$label.json" || echo "fresh_bench.sh: $wl $label failed" >&2
	[ -s "$D/runs/$wl.$label.err" ] || rm -f "$D/runs/$wl.$label.err"
'
for seed in ${FRESH_SEEDS:-1 2 3}; do
	echo "## Seed $seed"
	echo
	python3 "$ROOT/tools/fresh_table.py" "$DIR/seed-$seed/runs"
	echo
done
