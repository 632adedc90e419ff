#!/bin/sh
# test/sim/batchbound.sh — the batch optimum bound of docs/model.md (table M):
# tools/opt_bound.py on hand-computed batches, its refusals, that no policy
# of the simulator gets below it on a generated batch, and its table in
# tools/opt_table.py. Prints TAP with "# " before each line (test/sim/run.sh
# runs it as one of its tests); exits 1 on a failure.
#
#   test/sim/batchbound.sh [path/to/mixdnn-sim]
set -u

NAME=batchbound
. "$(dirname "$0")/subtap.sh"

# bound TRACE NODES [SIM-OPTIONS...]: the runs of tools/opt_bench.sh (the
# no-wait run, one run per type of the cluster on 4000 GPUs of that type
# alone), then tools/opt_bound.py into $T/bound.json
bound() {
	tr=$1 nodes=$2
	shift 2
	"$SIM" --types "$T/types.csv" --nodes "$T/big.csv" --trace "$tr" --policy hsjf --quiet --out "$T/nowait.csv" "$@" >/dev/null 2>&1
	on=
	for t in $(awk -F, 'NR > 1 && $3 > 0 { print $2 }' "$nodes" | sort -u); do
		python3 "$ROOT/tools/mixdnn_data.py" nodes --mix "$t=4000" --gpus-per-node 8 --out "$T/only-$t.csv"
		"$SIM" --types "$T/types.csv" --nodes "$T/only-$t.csv" --trace "$tr" --policy hsjf --quiet --out "$T/on-$t.csv" "$@" >/dev/null 2>&1
		on="$on --on $t=$T/on-$t.csv"
	done
	# shellcheck disable=SC2086
	$PY "$ROOT/tools/opt_bound.py" --trace "$tr" --nodes "$nodes" --nowait "$T/nowait.csv" $on --out "$T/bound.json"
}


# ------------------------------------------------ opt_table.py's table M
# B = min(hsjf 300, k8s 400) = 300, O = 250, lp = 280:
# B/O 1.200, lp/O 1.120, goal 0.95 * 300 / 250 = 1.140.
D="$T/opt"
fake_runs "$D" 300 400 280
echo '{"jobs": 3, "finished": 3, "avg_jct_s": 200, "avg_wait_s": 0}' >"$D/bounds/w1.nowait.json"
echo '{"jobs": 3, "wide_jobs": 1, "avg_jct_lb_s": 250}' >"$D/bounds/w1.batch.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
ok $? "opt_table.py with a batch bound"
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | hsjf | 300 | 250 | 1 of 3 | 1.200 | 1.120 | 1.140 |" "table M's row"
echo '{"jobs": 3, "wide_jobs": 1, "avg_jct_lb_s": 290}' >"$D/bounds/w1.batch.json"
refused "below the batch bound" "a policy below the bound is refused (lp 280 < O 290)" python3 "$ROOT/tools/opt_table.py" --dir "$D"
echo '{"jobs": 3, "wide_jobs": 1, "avg_jct_lb_s": 305}' >"$D/bounds/w1.batch.json"
fake_run "$D/runs/w1.lp.json" 310
refused "hsjf's average JCT 300.0 s is below" "a comparator below the bound is refused (hsjf 300 < O 305 < lp 310)" python3 "$ROOT/tools/opt_table.py" --dir "$D"
echo '{"jobs": 4, "wide_jobs": 1, "avg_jct_lb_s": 250}' >"$D/bounds/w1.batch.json"
refused "not the same jobs" "a bound over other jobs is refused" python3 "$ROOT/tools/opt_table.py" --dir "$D"

scipy_or_stop opt_bound.py

fast_slow_types
python3 "$ROOT/tools/mixdnn_data.py" nodes --mix fast=4000,slow=4000 --gpus-per-node 8 --out "$T/big.csv"

# ------------------------------------------------ one-GPU jobs, and a wider one
# Two fast GPUs and one slow one. a (hard, fast, 100 s), b and c (soft, 100 s
# on fast, 200 s on slow: by speed), w (hard, 2 fast GPUs, 300 s), all at 0.
# One-GPU jobs alone: at most two end at 100 (two fast GPUs), the third no
# earlier than 200: OPT1 = 100 + 100 + 200 = 400. w at its run time, 300.
# O = (400 + 300) / 4 = 175.
cat >"$T/nodes.csv" <<'X'
node,gpu_type,gpus
f1,fast,2
s1,slow,1
X
cat >"$T/t.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
a,0,,hard,fast,1,100
b,0,,soft,fast,1,100
c,0,,soft,fast,1,100
w,0,,hard,fast,2,300
X
bound "$T/t.csv" "$T/nodes.csv"
ok $? "opt_bound.py on a batch"
is "$(json "$T/bound.json" 'd["one_gpu_opt_sum_s"], d["wide_fastest_sum_s"], d["wide_jobs"]')" "(400.0, 300.0, 1)" "one-GPU optimum 400 s, the wide job at its run time 300 s"
is "$(json "$T/bound.json" 'round(d["avg_jct_lb_s"], 3)')" "175.0" "O = (400 + 300) / 4"
for p in hsjf mixdnn k8s sjf; do
	"$SIM" --types "$T/types.csv" --nodes "$T/nodes.csv" --trace "$T/t.csv" --policy $p --json --quiet >"$T/$p.json" 2>/dev/null
	is "$(json "$T/$p.json" 'd["avg_jct_s"] >= 175')" "True" "$p's average JCT ($(json "$T/$p.json" 'd["avg_jct_s"]') s) is not below O"
done

# ------------------------------------------------ unrelated speeds: the assignment
# One GPU of each type; profiles make M1 4x faster on fast, M2 only 1.1x.
# p (M1, 100 s on fast, 400 on slow), q and r (M2, 110 on fast, 121 on slow).
# Schedules: fast p,q + slow r: 100 + 210 + 121 = 431; fast p + slow q,r:
# 100 + 121 + 242 = 463; all on fast: 100 + 210 + 320 = 630; p on slow costs
# 400 alone. O = 431 / 3 = 143.667, below "each on its fastest type" in order
# (fast p,q,r: 630) and above the no-wait bound (100 + 110 + 110) / 3.
cat >"$T/n1.csv" <<'X'
node,gpu_type,gpus
f1,fast,1
s1,slow,1
X
cat >"$T/profiles.csv" <<'X'
model,gpu_type,gpus,throughput
M1,fast,1,4
M1,slow,1,1
M2,fast,1,1.1
M2,slow,1,1
X
cat >"$T/t1.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
p,50,M1,soft,fast,1,100
q,50,M2,soft,fast,1,110
r,50,M2,soft,fast,1,110
X
bound "$T/t1.csv" "$T/n1.csv" --profiles "$T/profiles.csv"
ok $? "opt_bound.py with profiles"
is "$(json "$T/bound.json" 'round(d["avg_jct_lb_s"], 3)')" "143.667" "the assignment: p and q on fast, r on slow (431 / 3)"

# a wrong estimate does not move the bound (true durations): q's estimate 10 s
cat >"$T/t1e.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s
p,50,M1,soft,fast,1,100,100
q,50,M2,soft,fast,1,110,10
r,50,M2,soft,fast,1,110,110
X
bound "$T/t1e.csv" "$T/n1.csv" --profiles "$T/profiles.csv"
is "$(json "$T/bound.json" 'round(d["avg_jct_lb_s"], 3)')" "143.667" "an estimate does not change the bound (true durations)"

# one type: three 100 s jobs on two GPUs; two end at 100, the third at 200:
# OPT1 = 400, O = 133.333 (a GPU needs two positions: ceil(3 / 2))
cat >"$T/n2.csv" <<'X'
node,gpu_type,gpus
f1,fast,2
X
cat >"$T/t2.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
a,0,,hard,fast,1,100
b,0,,hard,fast,1,100
c,0,,hard,fast,1,100
X
bound "$T/t2.csv" "$T/n2.csv"
is "$(json "$T/bound.json" 'round(d["avg_jct_lb_s"], 3)')" "133.333" "three jobs on two GPUs: 100 + 100 + 200"

# a soft job asking for 1 GPU that may take 2 is not a one-GPU job: v (1..2
# fast GPUs, 100 s on one, 50 s on two with --alpha 1) counts at 50 s; a and
# b take the two GPUs: O = (100 + 100 + 50) / 3 = 83.333 (as a one-GPU job
# of 50 s, v would make it (50 + 100 + 150) / 3 = 100)
cat >"$T/t3.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,min_gpus,max_gpus
a,0,,hard,fast,1,100,,
b,0,,hard,fast,1,100,,
v,0,,soft,fast,1,100,1,2
X
bound "$T/t3.csv" "$T/n2.csv" --alpha 1
is "$(json "$T/bound.json" 'round(d["avg_jct_lb_s"], 3), d["wide_jobs"]')" "(83.333, 1)" "a soft job of 1..2 GPUs counts at its fastest run time, not as a one-GPU job"

# ------------------------------------------------ refusals
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\na,0,,hard,fast,1,100\nb,5,,hard,fast,1,100\n' >"$T/online.csv"
refused "not a batch" "a trace with two arrival times is refused" \
	$PY "$ROOT/tools/opt_bound.py" --trace "$T/online.csv" --nodes "$T/nodes.csv" --nowait "$T/nowait.csv" --on "fast=$T/on-fast.csv" --on "slow=$T/on-slow.csv" --out "$T/x.json"
bound "$T/t.csv" "$T/nodes.csv"
refused "no run on type(s) slow" "a missing run on a type of the cluster is refused" \
	$PY "$ROOT/tools/opt_bound.py" --trace "$T/t.csv" --nodes "$T/nodes.csv" --nowait "$T/nowait.csv" --on "fast=$T/on-fast.csv" --out "$T/x.json"
# the same runs, but the per-type run on the real cluster (where c waits)
"$SIM" --types "$T/types.csv" --nodes "$T/nodes.csv" --trace "$T/t.csv" --policy hsjf --quiet --out "$T/real.csv" >/dev/null 2>&1
refused "waited" "a run in which a job waited is refused" \
	$PY "$ROOT/tools/opt_bound.py" --trace "$T/t.csv" --nodes "$T/nodes.csv" --nowait "$T/nowait.csv" --on "fast=$T/real.csv" --on "slow=$T/on-slow.csv" --out "$T/x.json"
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\nz,0,,hard,slow,1,100\n' >"$T/other.csv"
refused "did not complete in the no-wait run" "a job missing from the no-wait run is refused" \
	$PY "$ROOT/tools/opt_bound.py" --trace "$T/other.csv" --nodes "$T/nodes.csv" --nowait "$T/nowait.csv" --on "fast=$T/on-fast.csv" --on "slow=$T/on-slow.csv" --out "$T/x.json"

# per-type runs without the profiles disagree with the no-wait run: by its
# profile M2 runs twice as fast on slow (q: 55 s there), by speed 110 s on fast
printf 'model,gpu_type,gpus,throughput\nM2,fast,1,1\nM2,slow,1,2\n' >"$T/profiles2.csv"
bound "$T/t1.csv" "$T/n1.csv" --profiles "$T/profiles2.csv"
ok $? "opt_bound.py with M2 faster on slow"
"$SIM" --types "$T/types.csv" --nodes "$T/only-fast.csv" --trace "$T/t1.csv" --policy hsjf --quiet --out "$T/noprof-fast.csv" >/dev/null 2>&1
"$SIM" --types "$T/types.csv" --nodes "$T/only-slow.csv" --trace "$T/t1.csv" --policy hsjf --quiet --out "$T/noprof-slow.csv" >/dev/null 2>&1
refused "the runs disagree" "per-type runs of another model (no profiles) than the no-wait run's are refused" \
	$PY "$ROOT/tools/opt_bound.py" --trace "$T/t1.csv" --nodes "$T/n1.csv" --nowait "$T/nowait.csv" --on "fast=$T/noprof-fast.csv" --on "slow=$T/noprof-slow.csv" --out "$T/x.json"
refused "TYPE=JOBS.csv" "an --on without a type is refused" \
	$PY "$ROOT/tools/opt_bound.py" --trace "$T/t1.csv" --nodes "$T/n1.csv" --nowait "$T/nowait.csv" --on "$T/on-fast.csv" --out "$T/x.json"

# ------------------------------------------------ a generated batch: no policy below O
if gen_data; then
	python3 "$ROOT/tools/mixdnn_data.py" --data "$DATA" nodes --per-type 4000 --gpus-per-node 8 --out "$T/big.csv"
	python3 "$ROOT/tools/opt_workloads.py" --data "$DATA" --profiles "$T/gp.csv" --nodes "$T/gn.csv" \
		--arrivals batch --soft-share 0.5 --sigma 0.5 --jobs 60 --seed 7 --out "$T/g.csv"
	bound "$T/g.csv" "$T/gn.csv" --profiles "$T/gp.csv"
	ok $? "opt_bound.py on a generated batch (60 jobs, noisy estimates)"
	lb=$(json "$T/bound.json" 'd["avg_jct_lb_s"]')
	for p in mixdnn hsjf hgreedy sjf k8s backfill k8s-any; do
		"$SIM" --types "$T/types.csv" --nodes "$T/gn.csv" --profiles "$T/gp.csv" --trace "$T/g.csv" --policy $p --json --quiet >"$T/g-$p.json" 2>/dev/null
		got=$(json "$T/g-$p.json" 'd["avg_jct_s"]')
		is "$(json "$T/g-$p.json" "d['avg_jct_s'] >= $lb and d['finished'] == 60")" "True" "$p ($got s) is not below O ($lb s)"
	done
else
	echo "# SKIP: shared data (gavel/) not found: the generated batch"
fi

echo "# batchbound: $((N - FAILED)) passed, $FAILED failed"
[ $FAILED -eq 0 ]
