#!/bin/sh
# test/sim/tenancy.sh — owners in bin/mixdnn-sim (issue #15): the trace's
# owner column, --quotas (GPU quotas, borrowing, waiting-jobs limits),
# --shares and --fair-share, and the JSON's fairness_jain and owners.
# Outcomes computed by hand (comments). Prints TAP with "# " before each
# line (test/sim/run.sh runs it as one of its tests); exits 1 on a failure.
#
#   test/sim/tenancy.sh [path/to/mixdnn-sim]
set -u

NAME=tenancy
. "$(dirname "$0")/subtap.sh"

field() {		# field JOBS.csv JOB COLUMN
	awk -F, -v job="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == job { print $c; exit }' "$1"
}
sim() {			# sim NODES TRACE OUT [extra...]
	nodes=$1; trace=$2; out=$3; shift 3
	"$SIM" --types "$T/types.csv" --nodes "$nodes" --trace "$trace" --policy mixdnn \
		--out "$out" --quiet --json "$@" >"$out.json" 2>"$out.stderr"
}

cat >"$T/types.csv" <<'EOF'
gpu_type,speed
fast,1.0
EOF
printf 'node,gpu_type,gpus\nf1,fast,4\n' >"$T/n4.csv"
printf 'node,gpu_type,gpus\nf1,fast,1\n' >"$T/n1.csv"

# 1. A GPU quota. alice: a1 and a2, 2 GPUs for 100 s each at t=0, on 4 GPUs.
#    Without quotas both run at once; with at most 2 GPUs, a2 waits for a1: 100-200.
cat >"$T/q.csv" <<'EOF'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,owner
a1,0,,hard,fast,2,100,alice
a2,0,,hard,fast,2,100,alice
EOF
printf 'role,gpu_type,max_gpus,max_waiting_jobs,borrow\nalice,fast,2,,false\n' >"$T/quota.csv"
printf 'role,gpu_type,max_gpus,max_waiting_jobs,borrow\nalice,,2,,true\n' >"$T/borrow.csv"
sim "$T/n4.csv" "$T/q.csv" "$T/q0.csv"
is "$(field "$T/q0.csv" a2 start_s)" "0.000" "without quotas, a2 starts at once"
sim "$T/n4.csv" "$T/q.csv" "$T/q1.csv" --quotas "$T/quota.csv"
is "$(field "$T/q1.csv" a2 start_s)" "100.000" "a quota of 2 GPUs: a2 waits for a1 although 2 GPUs are idle"
# 2. The same quota (all types) with borrowing: a2 takes the idle GPUs.
sim "$T/n4.csv" "$T/q.csv" "$T/q2.csv" --quotas "$T/borrow.csv"
is "$(field "$T/q2.csv" a2 start_s)" "0.000" "with borrow, a2 runs on idle GPUs beyond the quota"

# 2b. Quotas bind every policy (the same wrapper, tenancy.c): under each
#     other policy a2 also waits for a1 (100), and borrows with borrow (0).
for p in k8s static backfill sjf hgreedy hsjf k8s-any; do
	sim "$T/n4.csv" "$T/q.csv" "$T/q-$p.csv" --quotas "$T/quota.csv" --policy "$p"
	sim "$T/n4.csv" "$T/q.csv" "$T/qb-$p.csv" --quotas "$T/borrow.csv" --policy "$p"
	is "$(field "$T/q-$p.csv" a2 start_s)/$(field "$T/qb-$p.csv" a2 start_s)" "100.000/0.000" \
		"$p: the quota holds a2 back; with borrow it runs on the idle GPUs"
done

# 3. The waiting-jobs limit: 1. All three arrive at t=0; a1 is admitted,
#    a2 and a3 would make 2 and are rejected.
cat >"$T/w.csv" <<'EOF'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,owner
a1,0,,hard,fast,4,100,alice
a2,0,,hard,fast,4,100,alice
a3,0,,hard,fast,4,100,alice
b1,0,,hard,fast,4,100,bob
EOF
printf 'role,gpu_type,max_gpus,max_waiting_jobs,borrow\nalice,,,1,false\n' >"$T/wait.csv"
sim "$T/n4.csv" "$T/w.csv" "$T/w1.csv" --quotas "$T/wait.csv"
is "$(json "$T/w1.csv.json" 'd["rejected"]')" "2" "a waiting-jobs limit of 1 rejects alice's 2nd and 3rd job"
is "$(field "$T/w1.csv" b1 status)" "completed" "bob, without a row, is not limited"
is "$(field "$T/w1.csv" a2 reason)" "role alice would have more than 1 waiting jobs" "the rejected job says why"

# 4. Fair share on one GPU: alice submits 4 jobs of 100 s at t=0, bob one at
#    t=150. Without fair share alice's older jobs go first (aging): bob's
#    y1 runs 400-500. With it, alice has used the GPU for 150 s, bob nothing:
#    y1 goes next, 200-300.
cat >"$T/f.csv" <<'EOF'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,owner
x1,0,,hard,fast,1,100,alice
x2,0,,hard,fast,1,100,alice
x3,0,,hard,fast,1,100,alice
x4,0,,hard,fast,1,100,alice
y1,150,,hard,fast,1,100,bob
EOF
sim "$T/n1.csv" "$T/f.csv" "$T/f0.csv"
is "$(field "$T/f0.csv" y1 start_s)" "400.000" "without fair share, bob's job waits behind alice's flood"
sim "$T/n1.csv" "$T/f.csv" "$T/f1.csv" --fair-share
is "$(field "$T/f1.csv" y1 start_s)" "200.000" "with --fair-share, bob's job runs next"
is "$(json "$T/f1.csv.json" '[o["owner"] for o in d["owners"]]')" "['alice', 'bob']" "the JSON lists the owners"
is "$(json "$T/f1.csv.json" '[(o["gpu_seconds"], o["avg_slowdown"]) for o in d["owners"]]')" "[(400, 3), (100, 1.5)]" \
	"... with GPU-seconds and average slowdown (alice (1+2+3+6)/4 = 3, bob 150/100)"
# Finish-time fairness: alone on her half of the GPU, alice's jobs would
# end at 200, 400, 600, 800 (sum of JCTs 2000), bob's at 150 + 200.
# With fair share: alice 100+200+400+500 = 1200 -> 0.6, bob 150/200 = 0.75,
# Jain (0.6 + 0.75)^2 / (2 (0.36 + 0.5625)) = 0.9878.
# Without: alice 1000/2000 = 0.5, bob 350/200 = 1.75: Jain 0.7642.
is "$(json "$T/f1.csv.json" '[o["finish_time_fairness"] for o in d["owners"]]')" "[0.6, 0.75]" \
	"each owner's finish-time fairness"
is "$(json "$T/f1.csv.json" 'round(d["fairness_jain"], 4)')" "0.9878" "fairness_jain with fair share"
is "$(json "$T/f0.csv.json" 'round(d["fairness_jain"], 4)')" "0.7642" "fairness_jain without: lower"
# Both are measured against the job's true duration_s, not the estimate it
# was planned with: carol's one job runs 100 s (estimated 50) alone on the GPU.
cat >"$T/e.csv" <<'EOF'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s,owner
z1,0,,hard,fast,1,100,50,carol
EOF
sim "$T/n1.csv" "$T/e.csv" "$T/e1.csv" --fair-share
is "$(json "$T/e1.csv.json" '[(o["avg_slowdown"], o["finish_time_fairness"]) for o in d["owners"]]')" "[(1, 1)]" \
	"slowdown and finish-time fairness of a job that overran its estimate: over its duration_s (1, not 2)"
# Fair share under the configuration LP (the default): soft jobs on 2 GPUs,
# alice's six at t=0, bob's y1 at t=150. Without fair share y1 waits behind
# alice's jobs (it starts at 536.359); with it, it takes the next free
# GPUs (168.179), in rounds the LP decided.
cat >"$T/fs.csv" <<'EOF'
name,submit_s,model,model_class,gpu_type,gpus,min_gpus,max_gpus,duration_s,owner
x1,0,,soft,fast,2,1,2,100,alice
x2,0,,soft,fast,2,1,2,100,alice
x3,0,,soft,fast,2,1,2,100,alice
x4,0,,soft,fast,2,1,2,100,alice
x5,0,,soft,fast,2,1,2,100,alice
x6,0,,soft,fast,2,1,2,100,alice
y1,150,,soft,fast,2,1,2,100,bob
EOF
printf 'node,gpu_type,gpus\nf1,fast,2\n' >"$T/n2.csv"
sim "$T/n2.csv" "$T/fs.csv" "$T/fs0.csv"
sim "$T/n2.csv" "$T/fs.csv" "$T/fs1.csv" --fair-share --rounds-out "$T/fs1.rounds.csv"
is "$(field "$T/fs0.csv" y1 start_s) $(field "$T/fs1.csv" y1 start_s)" "536.359 168.179" \
	"under the configuration LP, fair share serves bob's soft job next"
lp=$(grep -c '"glpk (lp configurations)"' "$T/fs1.rounds.csv")
[ "$lp" -ge 2 ]; ok $? "... in rounds the configuration LP decided ($lp)"
# Fair share changes only mixdnn's utility weights: the policies that do
# not weigh jobs ignore --fair-share (docs/simulator.md), y1 still at 400.
for p in k8s sjf hsjf; do
	sim "$T/n1.csv" "$T/f.csv" "$T/f-$p.csv" --fair-share --policy "$p"
	is "$(field "$T/f-$p.csv" y1 start_s)" "400.000" "$p ignores --fair-share"
done
# 5. Shares: alice 3, bob 1 -> entitlements 0.75 and 0.25; with 3 shares
#    alice's 150 s of 150 s is 1/0.75 of her share (factor 2^(1-4/3) = 0.79)
#    against bob's 2: y1 still goes next.
printf 'role,shares\nalice,3\nbob,1\n' >"$T/shares.csv"
sim "$T/n1.csv" "$T/f.csv" "$T/f2.csv" --fair-share --shares "$T/shares.csv"
is "$(json "$T/f2.csv.json" '[o["entitlement"] for o in d["owners"]]')" "[0.75, 0.25]" "--shares sets the entitlements"

# 6. Bad files fail with exit 2 and a message naming the line.
printf 'role,gpu_type,max_gpus,max_waiting_jobs,borrow\nalice,fast,-1,,false\n' >"$T/bad1.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/n4.csv" --trace "$T/q.csv" --policy mixdnn --quotas "$T/bad1.csv" >/dev/null 2>"$T/e1"
is "$?:$(cat "$T/e1")" "2:mixdnn-sim: $T/bad1.csv:2: max_gpus must be an integer 0..1000000 and max_waiting_jobs 0..10000000, or empty (no limit)" \
	"a negative max_gpus is refused"
printf 'role,shares\nalice,0\n' >"$T/bad2.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/n4.csv" --trace "$T/q.csv" --policy mixdnn --shares "$T/bad2.csv" >/dev/null 2>"$T/e2"
is "$?:$(cat "$T/e2")" "2:mixdnn-sim: $T/bad2.csv:2: shares \"0\" must be an integer 1..1e+06" "zero shares are refused"
printf 'role,gpu_type,max_gpus,max_waiting_jobs,borrow\nalice,a100,1,,false\n' >"$T/bad3.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/n4.csv" --trace "$T/q.csv" --policy mixdnn --quotas "$T/bad3.csv" >/dev/null 2>"$T/e3"
is "$?" "2" "a quota for an unknown GPU type is refused"
printf 'role,gpu_type,max_gpus,max_waiting_jobs,borrow\nalice,,1,,maybe\n' >"$T/bad4.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/n4.csv" --trace "$T/q.csv" --policy mixdnn --quotas "$T/bad4.csv" >/dev/null 2>"$T/e4"
is "$?:$(cat "$T/e4")" "2:mixdnn-sim: $T/bad4.csv:2: borrow \"maybe\" must be true or false" "a borrow that is not true or false is refused"
printf 'role,gpu_type,max_gpus,max_waiting_jobs\nalice,,1,\n' >"$T/bad5.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/n4.csv" --trace "$T/q.csv" --policy mixdnn --quotas "$T/bad5.csv" >/dev/null 2>"$T/e5"
is "$?:$(cat "$T/e5")" "2:mixdnn-sim: $T/bad5.csv: missing column \"borrow\" in the header" "a quotas file needs every column"
# The fair-share options are planner options: the benchmark refuses the same values.
BENCH=$(dirname "$SIM")/mixdnn-bench
"$BENCH" --fair-share-half-life-s 10 --waiting 5 --quiet >/dev/null 2>"$T/e6"
is "$?:$(cat "$T/e6")" "2:mixdnn-bench: --fair-share-half-life-s: \"10\" is not a number in [60, 1e+09]" \
	"mixdnn-bench refuses a half-life below 60 s"

echo "# tenancy: $((N - FAILED)) passed, $FAILED failed"
[ $FAILED -eq 0 ]
