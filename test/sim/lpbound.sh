#!/bin/sh
# test/sim/lpbound.sh — the online optimum bound of docs/model.md (table O):
# mixdnn-sim --configs-out, tools/opt_lpbound.py on hand-solved traces, its
# refusals, that no policy of the simulator gets below it on a generated
# online workload, and its table in tools/opt_table.py. Prints TAP with "# "
# before each line (test/sim/run.sh runs it as one of its tests); exits 1 on
# a failure.
#
#   test/sim/lpbound.sh [path/to/mixdnn-sim]
set -u

NAME=lpbound
. "$(dirname "$0")/subtap.sh"


# ------------------------------------------------ opt_table.py's table O
# B = min(hsjf 300, k8s 400) = 300, bound 290, lp 280 would be below it;
# with lp 295: bound / B 0.967, lp / B 0.983, and 0.95 B = 285 < 290.
D="$T/opt"
fake_runs "$D" 300 400 295
echo '{"jobs": 3, "finished": 3, "avg_jct_s": 200, "avg_wait_s": 0}' >"$D/bounds/w1.nowait.json"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290}' >"$D/bounds/w1.lp.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
ok $? "opt_table.py with an LP bound"
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | hsjf | 300 | 290 | 60 | 0.967 | 0.983 | yes |" "table O's row"
fake_run "$D/runs/w1.lp.json" 280
refused "below the LP bound" "a policy below the bound is refused (lp 280 < 290)" python3 "$ROOT/tools/opt_table.py" --dir "$D"
fake_run "$D/runs/w1.lp.json" 295
# table P: the clairvoyant schedule at the bound, 290, is the best known
# (below B = 300 and lp = 295): lp is 295 / 290 = 1.017 of it
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": 290}' >"$D/bounds/w1.lp.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | hsjf | 300 | 0.967 | 60 | 0.967 | — | — | 0.983 | 0.967 | 1.017 |" "table P's row"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": 296, "pinned_estimates_jct_s": 293, "pinned_mixdnn_jct_s": 291}' >"$D/bounds/w1.lp.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | hsjf | 300 | 0.967 | 60 | 0.987 | 0.977 | 0.970 | 0.983 | 0.970 | 1.014 |" \
	"table P's row with the schedules on the LP's configurations under the trace's estimates (mixdnn's, 291, the best known)"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": 296, "pinned_estimates_jct_s": 293, "pinned_mixdnn_jct_s": 289}' >"$D/bounds/w1.lp.json"
refused "mixdnn schedule on the LP's configurations (289.0 s) is below" "a mixdnn schedule on the LP's configurations below the bound is refused" \
	python3 "$ROOT/tools/opt_table.py" --dir "$D"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": 290, "pinned_estimates_jct_s": 280}' >"$D/bounds/w1.lp.json"
refused "schedule on the LP's configurations (280.0 s) is below" "a schedule on the LP's configurations below the bound is refused" \
	python3 "$ROOT/tools/opt_table.py" --dir "$D"
# table Q: makespans over the best comparator's, 950 (k8s; hsjf 1000, lp 1020)
run_mk() {	# run_mk FILE AVG MAKESPAN
	printf '{"finished": 3, "avg_jct_s": %s, "makespan_s": %s, "p99_jct_s": 900, "avg_jct_hard_s": %s, "solve_ms_p95": 1}\n' "$2" "$3" "$2" >"$1"
}
run_mk "$D/runs/w1.k8s.json" 400 950
run_mk "$D/runs/w1.lp.json" 295 1020
q_json() {	# q_json CLAIRVOYANT_JCT PINNED_MIXDNN_MAKESPAN
	echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": '"$1"', "clairvoyant_makespan_s": 1000,
 "pinned_estimates_jct_s": 293, "pinned_estimates_makespan_s": 990, "pinned_mixdnn_jct_s": 291, "pinned_mixdnn_makespan_s": '"$2"'}' >"$D/bounds/w1.lp.json"
}
q_json 296 980
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | 950 | 1.053 | 1.042 | 1.032 | 1.074 | 1.032 |" \
	"table Q's row: the best known JCT (pinned mixdnn, 291) has makespan 980 / 950"
is "$(grep '^| worst ' "$T/table.md")|$(grep '^| workloads > +3 % ' "$T/table.md")" \
	"| worst | | 1.053 | 1.042 | 1.032 | 1.074 | 1.032 ||| workloads > +3 % | | 1 of 1 | 1 of 1 | 1 of 1 | 1 of 1 | 1 of 1 |" "table Q's worst and > +3 % rows"
grep -q 'some schedule known .* on 0 of 1 workloads, lp on 0' "$T/table.md"
ok $? "no schedule within both limits: each with JCT <= 303 has a makespan above 978.5"
q_json 296 975
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
grep -q 'some schedule known .* on 1 of 1 workloads, lp on 0' "$T/table.md"
ok $? "the pinned mixdnn schedule (291 s, makespan 975) is within both limits, lp (makespan 1020) is not"
q_json 291 975
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
is "$(grep '^| w1 ' "$T/table.md" | tail -1)" "| w1 | 950 | 1.053 | 1.042 | 1.026 | 1.074 | 1.053 |" \
	"a tie on the best known JCT goes to the clairvoyant schedule (table P's order)"
run_mk "$D/runs/w1.k8s.json" 400 1000
fake_run "$D/runs/w1.lp.json" 295
# Table Q over three workloads, each at a limit (by hand):
#  w1: best makespan 950 (k8s); lp has the best JCT (288), so that column is
#      lp's 1020 / 950; nothing within both: k8s 305 > 1.01 x 300 and the
#      pinned mixdnn schedule's 979 > 1.03 x 950 = 978.5
#  w2: no pinned_estimates run (—); lp exactly at both limits (404 = 1.01 x
#      400, 1030 = 1.03 x 1000, k8s's) is the only schedule within both,
#      and not above +3 %; B (hsjf) has a makespan of 1100
#  w3: no pinned mixdnn run; B (hsjf, 300) has the best JCT and, alone, is
#      within both; lp's makespan (985) is below every comparator's but
#      its JCT (310) is 3.3 % above B
Q="$T/q"
mkdir -p "$Q/runs" "$Q/bounds"
for w in w1 w2 w3; do printf '%s c hsjf hsjf\n%s c k8s k8s\n%s c lp mixdnn\n' $w $w $w; done >"$Q/runs.txt"
run_mk "$Q/runs/w1.hsjf.json" 300 1000; run_mk "$Q/runs/w1.k8s.json" 305 950; run_mk "$Q/runs/w1.lp.json" 288 1020
run_mk "$Q/runs/w2.hsjf.json" 400 1100; run_mk "$Q/runs/w2.k8s.json" 500 1000; run_mk "$Q/runs/w2.lp.json" 404 1030
run_mk "$Q/runs/w3.hsjf.json" 300 1000; run_mk "$Q/runs/w3.k8s.json" 400 990; run_mk "$Q/runs/w3.lp.json" 310 985
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 280, "clairvoyant_jct_s": 296, "clairvoyant_makespan_s": 1000, "pinned_estimates_jct_s": 293,
 "pinned_estimates_makespan_s": 990, "pinned_mixdnn_jct_s": 291, "pinned_mixdnn_makespan_s": 979}' >"$Q/bounds/w1.lp.json"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 380, "clairvoyant_jct_s": 385, "clairvoyant_makespan_s": 1100,
 "pinned_mixdnn_jct_s": 388, "pinned_mixdnn_makespan_s": 1050}' >"$Q/bounds/w2.lp.json"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 280, "clairvoyant_jct_s": 301, "clairvoyant_makespan_s": 1100, "pinned_estimates_jct_s": 302,
 "pinned_estimates_makespan_s": 1100}' >"$Q/bounds/w3.lp.json"
python3 "$ROOT/tools/opt_table.py" --dir "$Q" >"$T/tableq.md" 2>&1
ok $? "opt_table.py on three workloads with makespans"
is "$(sed -n '/best comparator.s makespan/,$p' "$T/tableq.md" | grep -E '^\| (w[123]|geomean|worst|workloads) ')" "\
| w1 | 950 | 1.053 | 1.042 | 1.031 | 1.074 | 1.074 |
| w2 | 1000 | 1.100 | — | 1.050 | 1.030 | 1.100 |
| w3 | 990 | 1.111 | 1.111 | — | 0.995 | 1.010 |
| geomean | | 1.088 | 1.076 | 1.040 | 1.032 | 1.061 |
| worst | | 1.111 | 1.111 | 1.050 | 1.074 | 1.100 |
| workloads > +3 % | | 3 of 3 | 2 of 2 | 2 of 2 | 1 of 3 | 2 of 3 |" "table Q's rows, geomean, worst and counts over three workloads"
grep -q 'some schedule known .* on 2 of 3 workloads, lp on 1\.' "$T/tableq.md"
ok $? "within both limits: w2 (lp alone, at both limits) and w3 (B alone), lp on w2 only"
# without the headroom runs (OPT_BOUNDS=0) tables O and P are printed alone
rm "$D/bounds/w1.nowait.json"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": 290}' >"$D/bounds/w1.lp.json"
python3 "$ROOT/tools/opt_table.py" --dir "$D" >"$T/table.md" 2>&1
is "$?:$(grep -c '^| w1 ' "$T/table.md")" "0:2" "without headroom runs: tables O and P only"
echo '{"jobs": 3, "cell_s": 60, "avg_jct_lb_s": 290, "clairvoyant_jct_s": 280}' >"$D/bounds/w1.lp.json"
refused "clairvoyant schedule (280.0 s) is below" "a clairvoyant schedule below the bound is refused" python3 "$ROOT/tools/opt_table.py" --dir "$D"
echo '{"jobs": 4, "cell_s": 60, "avg_jct_lb_s": 250}' >"$D/bounds/w1.lp.json"
refused "not the same jobs" "a bound over other jobs is refused" python3 "$ROOT/tools/opt_table.py" --dir "$D"

scipy_or_stop opt_lpbound.py

fast_slow_types

# configs TRACE NODES [SIM-OPTIONS]: hsjf's run into $T/run.csv, the
# configurations into $T/cf.csv
configs() {
	tr=$1 nodes=$2
	shift 2
	"$SIM" --types "$T/types.csv" --nodes "$nodes" --trace "$tr" --policy hsjf --quiet \
		--out "$T/run.csv" --configs-out "$T/cf.csv" "$@" >/dev/null 2>&1
}
# lpb NODES CELL [OPTIONS]: the bound of $T/cf.csv, checked against $T/run.csv
lpb() {
	nodes=$1 cell=$2
	shift 2
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/cf.csv" --nodes "$nodes" --cell-s "$cell" \
		--check "$T/run.csv" --out "$T/lb.json" "$@"
}
avg() { json "$T/lb.json" 'round(d["avg_jct_lb_s"], 3)'; }
# edit RUN OUT COLUMN VALUE: every row of a jobs file with COLUMN set to VALUE
edit() {
	$PY -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
for x in r: x[sys.argv[3]] = sys.argv[4]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(r[0])); w.writeheader(); w.writerows(r)' "$@"
}

# ------------------------------------------------ --configs-out
# h: hard, 1 fast GPU. s: soft, 100 s on fast (its reference), 200 s on
# slow by speed; its estimate (40 s) must not change the true run times.
cat >"$T/two.csv" <<'X'
node,gpu_type,gpus
f1,fast,1
s1,slow,1
X
cat >"$T/cfg.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s
h,0,,hard,fast,1,70,70
s,5,,soft,fast,1,100,40
X
configs "$T/cfg.csv" "$T/two.csv"
ok $? "mixdnn-sim --configs-out"
is "$(tr '\n' ' ' <"$T/cf.csv")" "name,submit_s,model_class,gpu_type,gpus,runtime_s h,0.000,hard,fast,1,70.000 s,5.000,soft,fast,1,100.000 s,5.000,soft,slow,1,200.000 " \
	"each job's configurations with its true run times (the estimate does not count)"

# ------------------------------------------------ hand-solved bounds (one fast GPU)
cat >"$T/one.csv" <<'X'
node,gpu_type,gpus
f1,fast,1
X
# one job submitted at 25 s: it ends 100 s after its submission, whatever the cell
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\na,25,,hard,fast,1,100\n' >"$T/t1.csv"
configs "$T/t1.csv" "$T/one.csv"
lpb "$T/one.csv" 10
ok $? "opt_lpbound.py on one job"
is "$(avg)" "100.0" "a job alone: its run time"

# two 100 s jobs at 0 on one GPU (the optimum: 100 + 200). With 10 s cells a
# start in cell t holds cells t+1 .. t+9, so the mass of any 9 consecutive
# start cells is at most 1: the cheapest starts are cells 0 and 9, ending no
# earlier than 100 and 190: (100 + 190) / 2 = 145. With 50 s cells a start
# holds only the next cell: starts 0 and 1, (100 + 150) / 2 = 125.
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\na,0,,hard,fast,1,100\nb,0,,hard,fast,1,100\n' >"$T/t2.csv"
configs "$T/t2.csv" "$T/one.csv"
lpb "$T/one.csv" 10
is "$(avg)" "145.0" "two jobs on one GPU, 10 s cells: 145 (the optimum is 150)"
lpb "$T/one.csv" 50
is "$(avg)" "125.0" "the same with 50 s cells: 125 (a coarser cell, a weaker bound)"
# starts at or after a 50 s horizon are free of capacity: a weaker bound, still one
lpb "$T/one.csv" 10 --horizon-s 50
is "$(json "$T/lb.json" 'd["avg_jct_lb_s"] < 145 and d["horizon_s"] == 50')" "True" "a short horizon weakens the bound ($(avg) s)"

# the share of the last cell: two 105 s jobs on one GPU, 10 s cells: a
# start in cell t holds cells t+1 .. t+9 and half of cell t+10. a in cell 0
# leaves cell 10 half free, so at most half of b starts in cell 9 (ending
# no earlier than 195), the rest in cell 10 (205): (105 + 200) / 2 = 152.5.
# Without the half cell b would start in cell 9: (105 + 195) / 2 = 150.
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\na,0,,hard,fast,1,105\nb,0,,hard,fast,1,105\n' >"$T/t2h.csv"
configs "$T/t2h.csv" "$T/one.csv"
lpb "$T/one.csv" 10
is "$(avg)" "152.5" "two 105 s jobs: the half-held cell counts (152.5, the optimum is 157.5)"

# a submission after an explicit horizon starts in the catch-all cell: a
# (20 s) and b (100 s) at 0, c (1 s) at 410 s, horizon 200 s. The optimum
# is a, b, c: (20 + 120 + 1) / 3 = 47; the bound must not be above it.
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\na,0,,hard,fast,1,20\nb,0,,hard,fast,1,100\nc,410,,hard,fast,1,1\n' >"$T/t6.csv"
configs "$T/t6.csv" "$T/one.csv"
lpb "$T/one.csv" 10 --horizon-s 200
ok $? "opt_lpbound.py with a submission after the horizon"
is "$(json "$T/lb.json" 'd["avg_jct_lb_s"] <= 47.0')" "True" "... and its bound ($(avg) s) is not above the optimum (47 s)"

# release times: a at 0, b at 30 (the optimum: a first, 100 + 170). b's
# start cell is at least 3; b in cell 9 ends no earlier than 190, 160 after
# its submission: (100 + 160) / 2 = 130; b first costs (100 + 190) / 2.
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\na,0,,hard,fast,1,100\nb,30,,hard,fast,1,100\n' >"$T/t3.csv"
configs "$T/t3.csv" "$T/one.csv"
lpb "$T/one.csv" 10
is "$(avg)" "130.0" "a later submission: 130 (the optimum is 135)"

# a wide job: w (2 GPUs) and a (1 GPU), 100 s each, on two GPUs (the
# optimum: 100 + 200). The LP may run a whole and half of w at 0 (1 + 2 x
# 0.5 GPUs), the other half in cell 9: (100 + 0.5 x 100 + 0.5 x 190) / 2 =
# 122.5. Without w's 2 GPUs counted, both would start at 0 (100).
printf 'node,gpu_type,gpus\nf1,fast,2\n' >"$T/two-fast.csv"
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\nw,0,,hard,fast,2,100\na,0,,hard,fast,1,100\n' >"$T/t4.csv"
configs "$T/t4.csv" "$T/two-fast.csv"
lpb "$T/two-fast.csv" 10
is "$(avg)" "122.5" "a 2-GPU job counts its GPUs: 122.5"

# a soft job that may take the slow GPU: h (hard, fast, 100 s) and s (soft,
# 100 s on fast, 200 s on slow), both at 0, one GPU of each type: s on slow
# at once (200) or on fast after h (190 in 10 s cells): (100 + 190) / 2 = 145
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\nh,0,,hard,fast,1,100\ns,0,,soft,fast,1,100\n' >"$T/t5.csv"
configs "$T/t5.csv" "$T/two.csv"
lpb "$T/two.csv" 10 --pins-out "$T/pins.csv"
is "$(avg)" "145.0" "a soft job takes the cheaper of its configurations: 145"

# ------------------------------------------------ the clairvoyant schedule (table P)
# the LP puts all of s on fast after h; pinned there (hard, true run time
# as the estimate), hsjf runs h then s: (100 + 200) / 2 = 150 >= 145
is "$(tr '\n' ' ' <"$T/pins.csv")" "name,gpu_type,gpus,runtime_s,share h,fast,1,100.000,1.000000 s,fast,1,100.000,1.000000 " \
	"--pins-out: each job's configuration with the largest share"
CV="$ROOT/tools/opt_clairvoyant.py"
$PY "$CV" pin --trace "$T/t5.csv" --pins "$T/pins.csv" --out "$T/pinned.csv"
is "$(cut -d, -f1,4-7 "$T/pinned.csv" | tail -1):$(head -1 "$T/pinned.csv" | tr ',' '\n' | tail -1)" "s,hard,fast,1,100.000:estimate_s" \
	"pin: the soft job hard on its configuration, with its true run time as the estimate"
"$SIM" --types "$T/types.csv" --nodes "$T/two.csv" --trace "$T/pinned.csv" --policy hsjf --quiet --out "$T/prun.csv" >/dev/null 2>&1
cp "$T/lb.json" "$T/cv.json"
$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/cv.json" "$T/prun.csv"
ok $? "record: the pinned run checked against the trace, the cluster and the bound"
is "$(json "$T/cv.json" 'round(d["clairvoyant_jct_s"], 3), round(d["clairvoyant_makespan_s"], 3), round(d["avg_jct_lb_s"], 3)')" \
	"(150.0, 200.0, 145.0)" "... its average JCT and makespan join the bound's JSON"
edit "$T/prun.csv" "$T/pfast.csv" jct_s 1.000
cp "$T/lb.json" "$T/cv.json"
edit "$T/prun.csv" "$T/pfast2.csv" finish_s 101.000
edit "$T/pfast2.csv" "$T/pfast.csv" start_s 1.000
edit "$T/pfast.csv" "$T/pfast2.csv" jct_s 101.000
refused "2 GPUs of fast busy at 1.000 s" "record: a run with more GPUs busy than the type has is refused" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/cv.json" "$T/pfast2.csv"
edit "$T/prun.csv" "$T/psub.csv" submit_s 50.000
refused "the trace says 0.000 s" "record: a run with another submission time is refused" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/cv.json" "$T/psub.csv"
printf 'node,gpu_type,gpus\nf1,fast,2\ns1,slow,1\n' >"$T/three.csv"
refused "is below the bound" "record: a run below the bound is refused (both jobs at once on a cluster of two fast GPUs, 101 s)" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/three.csv" --bound "$T/cv.json" "$T/pfast2.csv"
edit "$T/prun.csv" "$T/pshort.csv" runtime_s 90.000
refused "does not cover" "record: a run the configurations do not cover is refused" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/cv.json" "$T/pshort.csv"
head -2 "$T/pins.csv" >"$T/pins1.csv"
# --estimates trace: s (100 s on fast, estimate 40 s) pinned to slow (200 s)
# keeps its estimate's share of the run: 80 s; h keeps its 70 s
printf 'name,gpu_type,gpus,runtime_s,share\nh,fast,1,70.000,1\ns,slow,1,200.000,1\n' >"$T/pins2.csv"
$PY "$CV" pin --estimates trace --trace "$T/cfg.csv" --pins "$T/pins2.csv" --out "$T/pinned2.csv"
is "$(cut -d, -f1,2,4-7,8 "$T/pinned2.csv" | tail -2 | tr '\n' ' ')" "h,0,hard,fast,1,70.000,70.000 s,5,hard,slow,1,200.000,80.000 " \
	"pin --estimates trace: the submission kept, the trace's estimate on the pinned configuration"
# record's time checks on cfg.csv (s submitted at 5): hsjf's own run of it
configs "$T/cfg.csv" "$T/two.csv"
cp "$T/lb.json" "$T/cv2.json"
edit "$T/run.csv" "$T/late.csv" finish_s 150.000
refused "not its run time" "record: a run whose finish is not its start plus its run time is refused" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/cv2.json" "$T/late.csv"
$PY -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
for x in r: x["start_s"], x["finish_s"] = "0.000", x["runtime_s"]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(r[0])); w.writeheader(); w.writerows(r)' "$T/run.csv" "$T/early.csv"
refused "s started at 0.000 s, before its submission at 5.000 s" "record: a job started before its submission is refused" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/cv2.json" "$T/early.csv"
refused "not the same jobs" "pin: pins that miss a job are refused" $PY "$CV" pin --trace "$T/t5.csv" --pins "$T/pins1.csv" --out "$T/x.csv"
refused "not a bound of opt_lpbound.py" "record: a file that is not a bound is refused" \
	$PY "$CV" record --configs "$T/cf.csv" --nodes "$T/two.csv" --bound "$T/pins.csv" "$T/prun.csv"
refused "not a trace" "pin: a file without a name column is refused" $PY "$CV" pin --trace "$T/pins.csv" --pins "$T/pins.csv" --out "$T/x.csv"
# the LP prefers the second configuration listed: h runs 300 s on fast
# from 0, s comes at 50: s on slow at once (JCT 200) beats s on fast after
# h (300 at the least) and s on fast first (h then ends at 440 at the least)
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s\nh,0,,hard,fast,1,300\ns,50,,soft,fast,1,100\n' >"$T/t5b.csv"
configs "$T/t5b.csv" "$T/two.csv"
lpb "$T/two.csv" 10 --pins-out "$T/pins3.csv"
is "$(avg):$(tail -1 "$T/pins3.csv")" "250.0:s,slow,1,200.000,1.000000" "--pins-out: the LP's choice when it is not the first configuration"

# a run on a dominated configuration is covered: s asks for 4 fast GPUs,
# but 2 run it faster (profile 1 GPU 1.0, 2 GPUs 2.0, 4 GPUs 1.5), so the
# file lists 1 and 2 GPUs only; k8s runs the requested 4 GPUs for 100 s,
# which 2 GPUs (75 s) dominate
printf 'node,gpu_type,gpus\nf1,fast,4\n' >"$T/four.csv"
printf 'model,gpu_type,gpus,throughput\nM,fast,1,1.0\nM,fast,2,2.0\nM,fast,4,1.5\n' >"$T/dom.csv"
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s,min_gpus,max_gpus\ns,0,M,soft,fast,4,100,1,4\n' >"$T/t7.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/four.csv" --profiles "$T/dom.csv" --trace "$T/t7.csv" --policy k8s --quiet \
	--out "$T/run.csv" --configs-out "$T/cf.csv" >/dev/null 2>&1
is "$(cut -d, -f5,6 "$T/cf.csv" | tr '\n' ' '):$(cut -d, -f7,10 "$T/run.csv" | tail -1)" "gpus,runtime_s 1,150.000 2,75.000 :4,100.000" \
	"the file lists 1 and 2 GPUs, k8s ran 4 GPUs for 100 s"
lpb "$T/four.csv" 10
ok $? "a run on a configuration a listed one dominates is accepted ($(avg) s)"
refused "cannot be used with --quotas" "--configs-out with --quotas is refused" \
	"$SIM" --types "$T/types.csv" --nodes "$T/four.csv" --trace "$T/t7.csv" --policy k8s --quotas "$T/four.csv" --configs-out "$T/x.csv"

# ------------------------------------------------ refusals
configs "$T/t2.csv" "$T/one.csv"
edit "$T/run.csv" "$T/short.csv" runtime_s 90.000
refused "a configuration or run time the bound does not cover" "a run with a run time the configurations do not list is refused" \
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/cf.csv" --nodes "$T/one.csv" --check "$T/short.csv" --out "$T/x.json"
# the same run with its JCTs cut to 1 s: below any bound
edit "$T/run.csv" "$T/fast.csv" jct_s 1.000
refused "is below the bound" "a run below the bound is refused (the bound or the run is wrong)" \
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/cf.csv" --nodes "$T/one.csv" --check "$T/fast.csv" --out "$T/x.json"
configs "$T/t3.csv" "$T/one.csv"
cp "$T/run.csv" "$T/run3.csv"
configs "$T/t2.csv" "$T/one.csv"
sed 's/^b,/c,/' "$T/run3.csv" >"$T/other.csv"
refused "not the same jobs" "a run over other jobs is refused" \
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/cf.csv" --nodes "$T/one.csv" --check "$T/other.csv" --out "$T/x.json"
sed 's/^f1,fast/f1,slow/' "$T/one.csv" >"$T/one-slow.csv"
refused "cannot hold" "a configuration of a type the cluster does not have is refused" \
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/cf.csv" --nodes "$T/one-slow.csv" --horizon-s 500 --out "$T/x.json"
refused "horizon-s or at least one --check" "no horizon and no run to take it from is refused" \
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/cf.csv" --nodes "$T/one.csv" --out "$T/x.json"

# ------------------------------------------------ a generated online workload: no policy below it
if gen_data; then
	python3 "$ROOT/tools/opt_workloads.py" --data "$DATA" --profiles "$T/gp.csv" --nodes "$T/gn.csv" \
		--arrivals online --load 3 --soft-share 0.5 --sigma 0.5 --jobs 60 --seed 7 --out "$T/g.csv"
	set --
	for p in mixdnn hsjf hgreedy sjf k8s backfill k8s-any; do
		"$SIM" --types "$T/types.csv" --nodes "$T/gn.csv" --profiles "$T/gp.csv" --trace "$T/g.csv" --policy $p --quiet \
			--out "$T/g-$p.csv" --configs-out "$T/gcf.csv" >/dev/null 2>&1
		set -- "$@" --check "$T/g-$p.csv"
	done
	$PY "$ROOT/tools/opt_lpbound.py" --configs "$T/gcf.csv" --nodes "$T/gn.csv" "$@" --out "$T/g.json"
	ok $? "every policy's run covered by the configurations and at or above the bound (online, 60 jobs, noisy estimates; $(json "$T/g.json" 'round(d["avg_jct_lb_s"], 1)') s)"
	is "$(json "$T/g.json" 'd["checked_runs"]')" "7" "seven runs checked"
	# tools/opt_lpbound.sh on an opt_bench.sh directory holding that workload
	mkdir -p "$T/ob/in"
	cp "$T/types.csv" "$T/ob/in/types.csv"
	cp "$T/gp.csv" "$T/ob/in/profiles.csv"
	cp "$T/gn.csv" "$T/ob/in/nodes-small.csv"
	cp "$T/g.csv" "$T/ob/in/w.csv"
	echo "w small online 3 0.5 0.5 60" >"$T/ob/workloads.txt"
	sh "$ROOT/tools/opt_lpbound.sh" "$T/ob" w >/dev/null 2>&1
	ok $? "tools/opt_lpbound.sh DIR w"
	is "$(json "$T/ob/bounds/w.lp.json" 'round(d["avg_jct_lb_s"], 1), d["checked_runs"]')" \
		"($(json "$T/g.json" 'round(d["avg_jct_lb_s"], 1)'), 2)" "its bound is the one above, hsjf's and mixdnn's runs checked"
	is "$(json "$T/ob/bounds/w.lp.json" 'd["avg_jct_lb_s"] <= d["clairvoyant_jct_s"] and d["clairvoyant_makespan_s"] > 0')" "True" \
		"... and the clairvoyant schedule's average JCT ($(json "$T/ob/bounds/w.lp.json" 'round(d["clairvoyant_jct_s"], 1)') s) is at or above it"
	$PY -c 'import csv, sys
pins = {r["name"]: (r["gpu_type"], r["gpus"]) for r in csv.DictReader(open(sys.argv[1]))}
run = {r["name"]: (r["gpu_type"], r["gpus"]) for r in csv.DictReader(open(sys.argv[2]))}
sys.exit(0 if pins == run and len(run) == 60 else 1)' "$T/ob/bounds/w.pins.csv" "$T/ob/bounds/w.lp-hsjf-pinned-true.csv"
	ok $? "every job of the clairvoyant schedule ran on its pinned configuration"
	is "$(json "$T/ob/bounds/w.lp.json" 'd["avg_jct_lb_s"] <= min(d["pinned_estimates_jct_s"], d["pinned_mixdnn_jct_s"])')" "True" \
		"hsjf's and mixdnn's runs on the pinned configurations under the trace's estimates are at or above the bound"
	"$SIM" --types "$T/types.csv" --nodes "$T/gn.csv" --profiles "$T/gp.csv" --trace "$T/ob/bounds/w.pinned-trace.csv" \
		--policy mixdnn --quiet --json >"$T/pm.out" 2>/dev/null
	is "$(tail -1 "$T/pm.out" | $PY -c 'import json, sys; print(round(json.load(sys.stdin)["avg_jct_s"], 1))')" \
		"$(json "$T/ob/bounds/w.lp.json" 'round(d["pinned_mixdnn_jct_s"], 1)')" "pinned_mixdnn is mixdnn's run of the pinned trace"
	# OPT_KEEP keeps a bound of the same cell with its pinned runs, and solves another cell again
	rm "$T/ob/bounds/w.configs.csv"
	OPT_KEEP=1 sh "$ROOT/tools/opt_lpbound.sh" "$T/ob" w >/dev/null 2>&1
	is "$?:$([ -e "$T/ob/bounds/w.configs.csv" ] && echo solved || echo kept)" "0:kept" "OPT_KEEP=1 keeps the bound of the same cell"
	OPT_KEEP=1 OPT_CELL_S=120 sh "$ROOT/tools/opt_lpbound.sh" "$T/ob" w >/dev/null 2>&1
	is "$?:$(json "$T/ob/bounds/w.lp.json" 'd["cell_s"]')" "0:120.0" "... and solves again for another cell"
	is "$(cut -d, -f7,12 "$T/ob/bounds/w.pinned-trace.csv" | awk -F, 'NR > 1 && $1 != $2 { n++ } END { print (n > 30) }')" "1" \
		"... and it planned with the trace's noisy estimates, not the true run times"
	refused "no workload nosuch" "a workload the directory does not have is refused" sh "$ROOT/tools/opt_lpbound.sh" "$T/ob" nosuch
else
	echo "# SKIP: shared data (gavel/) not found: the generated workload"
fi

echo "# lpbound: $((N - FAILED)) passed, $FAILED failed"
[ $FAILED -eq 0 ]
