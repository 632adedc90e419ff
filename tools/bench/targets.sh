#!/usr/bin/env bash
# tools/bench/targets.sh — the three solver targets of issue #5 (W=50/G=64,
# W=200/G=512, W=2000/G=4096), both mixes, several seeds, one planner
# variant per call; the "Summary" and "The current core" tables of
# docs/performance.md.
#
#   tools/bench/targets.sh OUT.jsonl VARIANT [bin/mixdnn-bench planner options...]
#   e.g. tools/bench/targets.sh tools/bench/results/targets-guards.jsonl guards
#        tools/bench/targets.sh tools/bench/results/targets-reserve-all.jsonl reserve-all --reserve-all
#        tools/bench/targets.sh tools/bench/results/targets-no-milp.jsonl no-milp --no-milp
#   env: SEEDS="1 2 3"  DISTS="philly heavy"  TARGETS="50:64 200:512 2000:4096"
#        ROUNDS=20  BENCH=bin/mixdnn-bench
# Runs sequentially (timings), with the bench's defaults otherwise, and the
# whole-instance LP bound at every W (--bound lp; ratio 1.05: 40-55 s per
# W=2000 run, where the bench's default would be no bound; a later
# "--bound none" among the options turns it off). OUT gets a header line
# ("# date HEAD clean/modified host nproc bench md5 command"; lines starting
# with # are comments) and one JSON object per run: the bench's last line plus
# "variant" and "args". A summary table goes to stdout.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:?usage: targets.sh OUT.jsonl VARIANT [bench options]}
VARIANT=${2:?usage: targets.sh OUT.jsonl VARIANT [bench options]}
shift 2
SEEDS=${SEEDS:-"1 2 3"}
DISTS=${DISTS:-"philly heavy"}
TARGETS=${TARGETS:-"50:64 200:512 2000:4096"}
ROUNDS=${ROUNDS:-20}
BENCH=${BENCH:-$ROOT/bin/mixdnn-bench}
[ -x "$BENCH" ] || make -C "$ROOT" -s bin/mixdnn-bench

dirty=$(git -C "$ROOT" status --short -- src/core src/bench | wc -l)
echo "# $(date -u +%FT%TZ) HEAD $(git -C "$ROOT" rev-parse --short HEAD)" \
	"(src/core, src/bench: $([ "$dirty" = 0 ] && echo clean || echo "$dirty files modified"))" \
	"$(uname -n) nproc=$(nproc) bench $BENCH md5 $(md5sum "$BENCH" | cut -c1-8):" \
	"SEEDS=\"$SEEDS\" DISTS=\"$DISTS\" TARGETS=\"$TARGETS\" ROUNDS=$ROUNDS" \
	"tools/bench/targets.sh $OUT $VARIANT $*" >"$OUT"
for t in $TARGETS; do
	W=${t%%:*}
	G=${t##*:}
	for dist in $DISTS; do
		for seed in $SEEDS; do
			"$BENCH" --waiting "$W" --gpus "$G" --dist "$dist" --seed "$seed" --rounds "$ROUNDS" \
				--bound lp --quiet --json "$@" | tail -1 |
				python3 -c 'import json, sys
d = json.loads(sys.stdin.read())
d["variant"] = sys.argv[1]
d["args"] = " ".join(sys.argv[2:])
print(json.dumps(d))' "$VARIANT" "$@" >>"$OUT"
		done
	done
done
python3 "$HERE/targets_table.py" "$OUT"
