#!/bin/sh
# test/sim/headroom.sh — the no-wait bound of docs/model.md (table L) and
# its table in tools/opt_table.py. Outcomes computed by hand (comments).
# Prints TAP with "# " before each line (test/sim/run.sh runs it as one of
# its tests); exits 1 on a failure.
#
#   test/sim/headroom.sh [path/to/mixdnn-sim]
set -u

NAME=headroom
. "$(dirname "$0")/subtap.sh"

# ------------------------------------------------ the bound run waits for nothing
# One fast GPU; a (hard, fast, 100 s), b (soft, 200 s on fast, 400 s on slow)
# and c (hard, slow, 50 s) arrive at 0. With 4000 GPUs of each type every job
# starts at 0 on its fastest configuration: JCTs 100, 200, 50 -> 116.667.
cat >"$T/types.csv" <<'X'
gpu_type,speed
fast,1.0
slow,0.5
X
cat >"$T/nodes.csv" <<'X'
node,gpu_type,gpus
f1,fast,1
s1,slow,1
X
# the bound's cluster: 4000 GPUs of each type, 8 per node, as tools/opt_bench.sh
# writes it for the built-in types (--per-type 4000), here for this test's types
python3 "$ROOT/tools/mixdnn_data.py" nodes --mix fast=4000,slow=4000 --gpus-per-node 8 --out "$T/big.csv"
ok $? "tools/mixdnn_data.py writes the bound's cluster"
cat >"$T/t.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
a,0,,hard,fast,1,100
b,0,,soft,fast,1,200
c,0,,hard,slow,1,50
X
"$SIM" --types "$T/types.csv" --nodes "$T/big.csv" --trace "$T/t.csv" --policy hsjf --json --quiet >"$T/nw.json" 2>"$T/nw.err"
is "$(json "$T/nw.json" 'd["avg_wait_s"]')" "0" "no job waits on the bound's cluster"
is "$(json "$T/nw.json" 'round(d["avg_jct_s"], 3)')" "116.667" "bound = mean fastest run time (100 + 200 + 50) / 3"
"$SIM" --types "$T/types.csv" --nodes "$T/nodes.csv" --trace "$T/t.csv" --policy hsjf --json --quiet >"$T/real.json" 2>/dev/null
# one GPU of each type, shortest first: c on slow (0-50); a on fast (0-100);
# b ends earliest on fast (100 + 200 = 300, on slow 50 + 400 = 450): JCTs 50, 100, 300 -> 150
is "$(json "$T/real.json" 'd["avg_jct_s"]')" "150" "the real cluster's schedule (150 s) is above the bound"

# a soft job with a range of GPU counts and a wrong estimate: d asks for 1 fast
# GPU (duration 400 s, estimate 800 s), may take 1..4 of any type; its fastest
# configuration is 4 fast GPUs. With --alpha 1 its run time there is
# 400 / 4 = 100 s: the bound uses the true duration on the fastest configuration.
cat >"$T/t2.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,min_gpus,max_gpus,estimate_s
d,0,,soft,fast,1,400,1,4,800
X
"$SIM" --types "$T/types.csv" --nodes "$T/big.csv" --trace "$T/t2.csv" --policy hsjf --alpha 1 --json --quiet >"$T/nw2.json" 2>/dev/null
is "$(json "$T/nw2.json" 'd["avg_jct_s"]')" "100" "a soft job's bound: its true duration on its fastest configuration (4 fast GPUs)"

# ------------------------------------------------ opt_table.py's headroom rows
# B = min(hsjf 300, k8s 400) = 300, N = 200, lp = 290:
# B/N 1.500, lp/N 1.450, lp/B 0.967, needed 0.05 * 300 / 100 = 0.150,
# removed (300 - 290) / 100 = 0.100.
D="$T/opt"
fake_runs "$D" 300 400 290
echo '{"jobs": 3, "finished": 3, "avg_jct_s": 200, "avg_wait_s": 0}' >"$D/bounds/w1.nowait.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
ok $? "opt_table.py with a bound"
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | hsjf | 300 | 200 | 1.500 | 1.450 | 0.967 | 0.150 | 0.100 |" "the headroom row"
is "$(grep '^| geomean (ratios)' "$T/table.md")" "| geomean (ratios), mean (shares) | | | | 1.500 | 1.450 | 0.967 | 0.150 | 0.100 |" "the headroom summary row"
refused_bound() {	# refused_bound BOUND-JSON PATTERN DESCRIPTION: opt_table.py exits non-zero saying PATTERN
	if [ -n "$1" ]; then echo "$1" >"$D/bounds/w1.nowait.json"; else rm -f "$D/bounds/w1.nowait.json"; fi
	python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/refused.md" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q "$2" "$T/refused.md"
	ok $? "$3 (exit $rc)"
}
refused_bound '{"jobs": 3, "finished": 2, "avg_jct_s": 200, "avg_wait_s": 0}' "finished 2 of 3" "a bound run that did not finish every job is refused"
refused_bound '{"jobs": 4, "finished": 4, "avg_jct_s": 200, "avg_wait_s": 0}' "not the same jobs" "a bound over other jobs than the comparators' is refused"
refused_bound '{"jobs": 3, "finished": 3, "avg_jct_s": 300, "avg_wait_s": 0}' "not below" "a bound not below the best comparator is refused"
refused_bound '' "no bound run" "a missing bound run is refused"
echo '{"jobs": 3, "finished": 3, "avg_jct_s": 200, "avg_wait_s": 5}' >"$D/bounds/w1.nowait.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table2.md" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "not a bound" "$T/table2.md"
ok $? "a bound run that waited is refused (exit $rc)"

echo "# headroom: $((N - FAILED)) passed, $FAILED failed"
[ $FAILED -eq 0 ]
