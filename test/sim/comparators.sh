#!/bin/sh
# test/sim/comparators.sh — the comparators of SPEC §6 (sjf, hgreedy, hsjf,
# k8s-any) and the trace's estimate_s, on small traces computed by hand.
#
# Types fast (speed 1.0) and slow (0.5), no profiles and --alpha 1, so a
# configuration's utility is speed x gpus / (1.0 x requested gpus) and its run
# time is duration / utility. Each case gives the arithmetic. Prints TAP and
# a closing "comparators: N passed, N failed" line; exits 1 on a failure.
#
#   test/sim/comparators.sh [path/to/mixdnn-sim]
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${1:-$ROOT/bin/mixdnn-sim}
T=$(mktemp -d "${TMPDIR:-/tmp}/mixdnn-cmp-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
N=0
FAILED=0

is() {		# is GOT EXPECTED DESCRIPTION
	N=$((N + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $N - $3"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N - $3"
		echo "#   got      '$1'"
		echo "#   expected '$2'"
	fi
}

# run NODES TRACE POLICY: "name start-finish type xgpus" per job, one line, trace order
run() {
	"$SIM" --types "$T/types.csv" --nodes "$T/$1" --trace "$T/$2" --policy "$3" --alpha 1 \
		--quiet --out "$T/out.csv" >"$T/out.stdout" 2>"$T/out.stderr" || { echo "sim failed: $(cat "$T/out.stderr")"; return; }
	awk -F, 'NR > 1 { printf "%s%s %g-%g %s x%s", sep, $1, $4, $5, $6, $7; sep = "; " } END { print "" }' "$T/out.csv"
}

cat >"$T/types.csv" <<'X'
gpu_type,speed
fast,1.0
slow,0.5
X
cat >"$T/f4.csv" <<'X'
node,gpu_type,gpus
f1,fast,4
X
cat >"$T/f4s4.csv" <<'X'
node,gpu_type,gpus
f1,fast,4
s1,slow,4
X

# 1. sjf: shortest requested run first, no head-of-line blocking.
# a holds the node 0-100. At 100 b (50 s), c (10 s), d (5 s, 4 GPUs) wait.
#   sjf: d 100-105; then c 105-115 and b 105-155.
#   k8s: b 100-150, c 100-110 (submit order); d needs 4: 150-155.
cat >"$T/t1.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
a,0,,hard,fast,4,100
b,1,,hard,fast,2,50
c,2,,hard,fast,2,10
d,3,,hard,fast,4,5
X
is "$(run f4.csv t1.csv sjf)" "a 0-100 fast x4; b 105-155 fast x2; c 105-115 fast x2; d 100-105 fast x4" "sjf: shortest first, first fit"
is "$(run f4.csv t1.csv k8s)" "a 0-100 fast x4; b 100-150 fast x2; c 100-110 fast x2; d 150-155 fast x4" "k8s: submit order, first fit"

# 2. earliest finish over the soft counts and types, tie to fewer GPUs.
# a (hard) holds 2 fast GPUs 0-100. c (soft, 4 fast for 40 s, counts 2 and 4) at t=1:
#   fast x2 now: 40 / 0.5 = 80 s, ends 81    fast x4 at 100: ends 140
#   slow x2 now: 40 / 0.25 = 160 s, ends 161 slow x4 now: 40 / 0.5 = 80 s, ends 81
#   hgreedy/hsjf: 81 twice, fewer GPUs wins: fast x2 1-81.
#   k8s-any: 4 fast not free, first type with 4 free: slow x4 1-81.
#   k8s and sjf: the requested 4 fast at 100: 100-140.
cat >"$T/t2.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
a,0,,hard,fast,2,100
c,1,,soft,fast,4,40
X
is "$(run f4s4.csv t2.csv hgreedy)" "a 0-100 fast x2; c 1-81 fast x2" "hgreedy: earliest finish, tie to fewer GPUs"
is "$(run f4s4.csv t2.csv hsjf)" "a 0-100 fast x2; c 1-81 fast x2" "hsjf: earliest finish, tie to fewer GPUs"
is "$(run f4s4.csv t2.csv k8s-any)" "a 0-100 fast x2; c 1-81 slow x4" "k8s-any: requested count on the first type free now"
is "$(run f4s4.csv t2.csv sjf)" "a 0-100 fast x2; c 100-140 fast x4" "sjf: requested configuration only"

# 2b. a tie goes to fewer GPUs even on a later type.
# a (hard) holds the 4 fast GPUs 0-121, z (hard) 2 slow ones 0-1000. c (soft, 4 fast
# for 40 s) at t=1: fast x4 at 121 ends 161; fast x2 at 121 ends 201;
# slow x2 now: 40 / 0.25 = 160 s, ends 161; slow x4 at 1000. 161 twice: slow x2 1-161.
cat >"$T/t2b.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s
a,0,,hard,fast,4,121
z,0,,hard,slow,2,1000
c,1,,soft,fast,4,40
X
is "$(run f4s4.csv t2b.csv hgreedy)" "a 0-121 fast x4; z 0-1000 slow x2; c 1-161 slow x2" "hgreedy: equal finish, fewer GPUs before type order"

# 3. hgreedy waits for the configuration that finishes first; k8s-any does not.
# a (hard) holds the 4 fast GPUs 0-10. b (soft, 4 fast for 40 s, min_gpus 4) at t=1:
#   fast x4 at 10: ends 50; slow x4 now: 80 s, ends 81.
#   hgreedy: waits, fast 10-50.   k8s-any: slow 1-81.   h (hard, 4 fast, 5 s, t=2)
#   never moves: k8s-any runs it when fast is free (10-15), hgreedy after b (50-55).
cat >"$T/t3.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,min_gpus
a,0,,hard,fast,4,10,
b,1,,soft,fast,4,40,4
h,2,,hard,fast,4,5,
X
is "$(run f4s4.csv t3.csv hgreedy)" "a 0-10 fast x4; b 10-50 fast x4; h 50-55 fast x4" "hgreedy: waits for the earliest finish, submit order"
is "$(run f4s4.csv t3.csv k8s-any)" "a 0-10 fast x4; b 1-81 slow x4; h 10-15 fast x4" "k8s-any: moves a soft job, never a hard one"

# 4. hsjf orders by the shortest run over allowed configurations; hgreedy by submit.
# d1 (100 s) and d2 (20 s), both soft 4 fast, min_gpus 4, at t=0.
#   hgreedy: d1 fast 0-100 (slow would end 200); d2: fast at 100 ends 120, slow now
#            ends 40: slow 0-40.
#   hsjf:    d2 fast 0-20; d1: fast at 20 ends 120 < slow 200: waits, fast 20-120.
cat >"$T/t4.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,min_gpus
d1,0,,soft,fast,4,100,4
d2,0,,soft,fast,4,20,4
X
is "$(run f4s4.csv t4.csv hgreedy)" "d1 0-100 fast x4; d2 0-40 slow x4" "hgreedy: submit order"
is "$(run f4s4.csv t4.csv hsjf)" "d1 20-120 fast x4; d2 0-20 fast x4" "hsjf: shortest best run time first"

# 5. Every policy plans with estimate_s; the job runs for duration_s.
# a runs 0-100 but estimates 10. b (soft, 4 fast, 20 s, min_gpus 4) at t=1:
#   planned with a ending at 10: fast ends 30 beats slow now (40 s, ends 41): waits.
#   At 50 (c arrives) a has outlived its estimate: it counts as ending now but its
#   GPUs are held, so fast (ends 70) beats slow (ends 90) and b still waits;
#   c takes 1 slow 50-51. At 100 a ends: b fast 100-120.
#   Exact estimates: fast would end 120, so b takes slow at once: 1-41.
cat >"$T/t5.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,min_gpus,estimate_s
a,0,,hard,fast,4,100,,10
b,1,,soft,fast,4,20,4,
c,50,,hard,slow,1,1,,
X
cut -d, -f1-8 "$T/t5.csv" >"$T/t5x.csv"
is "$(run f4s4.csv t5.csv hgreedy)" "a 0-100 fast x4; b 100-120 fast x4; c 50-51 slow x1" "hgreedy plans with estimate_s; an overrun job holds its GPUs"
is "$(run f4s4.csv t5x.csv hgreedy)" "a 0-100 fast x4; b 1-41 slow x4; c 50-51 slow x1" "hgreedy with exact estimates"

# 5b. backfill follows the same rule (SPEC §6, shared rules of the
# comparators): a job past its expected end counts as ending now, its GPUs
# still held. On 4 fast GPUs, a (2 GPUs, estimated 10 s, runs 100 s) and b
# (1 GPU, 0-50) run; at 20 c (2 GPUs) is the head: a counts as ending now,
# so c's reservation is from now with 1 GPU to spare, and d (1 GPU, 50 s)
# backfills on it: d 20-70, c 70-80 (a really ends at 100). Assuming a ends
# 60 s from now (the fixed grace backfill used before) gave c 50-60 and
# d 60-110.
cat >"$T/t5b.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s
a,0,,hard,fast,2,100,10
b,0,,hard,fast,1,50,
c,20,,hard,fast,2,10,
d,20,,hard,fast,1,50,
X
is "$(run f4.csv t5b.csv backfill)" "a 0-100 fast x2; b 0-50 fast x1; c 70-80 fast x2; d 20-70 fast x1" \
	"backfill: a job past its estimate counts as ending now (GPUs held); the head waits, reserved from now"

# 6. sjf orders by the estimate, not the true run time.
# At 10 b (runs 5 s, estimated 50) and c (runs 30 s, estimated 30) wait:
#   c first 10-40, then b 40-45. Exact: b 10-15, c 15-45.
cat >"$T/t6.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s
a,0,,hard,fast,4,10,
b,1,,hard,fast,4,5,50
c,2,,hard,fast,4,30,30
X
cut -d, -f1-7 "$T/t6.csv" >"$T/t6x.csv"
is "$(run f4.csv t6.csv sjf)" "a 0-10 fast x4; b 40-45 fast x4; c 10-40 fast x4" "sjf orders by estimate_s"
is "$(run f4.csv t6x.csv sjf)" "a 0-10 fast x4; b 10-15 fast x4; c 15-45 fast x4" "sjf with exact estimates"

# 6b. backfill plans with the estimate too. a holds 2 of 4 GPUs 0-100; b (4 GPUs) is
# reserved at 100; c (2 GPUs, runs 20 s) at t=2 may backfill only if it is expected
# to end by 100: with estimate_s 150 it waits (c 110-130 after b 100-110); exact, 2-22.
cat >"$T/t6b.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s
a,0,,hard,fast,2,100,
b,1,,hard,fast,4,10,
c,2,,hard,fast,2,20,150
X
cut -d, -f1-7 "$T/t6b.csv" >"$T/t6bx.csv"
is "$(run f4.csv t6b.csv backfill)" "a 0-100 fast x2; b 100-110 fast x4; c 110-130 fast x2" "backfill plans with estimate_s"
is "$(run f4.csv t6bx.csv backfill)" "a 0-100 fast x2; b 100-110 fast x4; c 2-22 fast x2" "backfill with exact estimates"

# 7. A bad estimate is refused with the line and the column.
printf 'name,submit_s,model,model_class,gpu_type,gpus,duration_s,estimate_s\na,0,,hard,fast,4,10,-3\n' >"$T/t7.csv"
"$SIM" --types "$T/types.csv" --nodes "$T/f4.csv" --trace "$T/t7.csv" --policy k8s --quiet >/dev/null 2>"$T/t7.err"
rc=$?
is "$rc:$(grep -c 'estimate_s "-3" must be a positive number' "$T/t7.err")" "2:1" "estimate_s <= 0 is refused"

# 8. The limits of every plan (docs/reference.md, "Absurd jobs"): a run of
# more than 3650 days or one ending after 9999-12-31 (c: submitted 1e12 s
# after the 2024 epoch) is rejected by every policy, and holds no GPU: b
# starts at once. a asks for 366 days (the most mixdnn.jobs.duration takes)
# on 4 GPUs of speed 1.0 but may only run on crawl (speed 0.05): 366 / 0.05
# = 7320 days on 4 crawl GPUs, longer on fewer, so every configuration of
# it is beyond the limit (without it, it would run 0-632448000 on c1).
# sjf and k8s-any, hgreedy, hsjf ran c; sjf, k8s-any and the baselines ran
# a, b after it.
cat >"$T/types8.csv" <<'X'
gpu_type,speed
fast,1.0
crawl,0.05
X
cat >"$T/f4c4.csv" <<'X'
node,gpu_type,gpus
f1,fast,4
c1,crawl,4
X
cat >"$T/t8.csv" <<'X'
name,submit_s,model,model_class,gpu_type,gpus,duration_s,allowed_types
a,0,,soft,,4,31622400,crawl
b,0,,hard,fast,4,10,
c,1000000000000,,hard,fast,4,10,
X
for p in mixdnn k8s static backfill sjf hgreedy hsjf k8s-any; do
	"$SIM" --types "$T/types8.csv" --nodes "$T/f4c4.csv" --trace "$T/t8.csv" --policy "$p" --alpha 1 \
		--quiet --out "$T/t8.out" >/dev/null 2>&1
	is "$(awk -F, 'NR > 1 { printf "%s%s %s %s-%s", sep, $1, $22, $4, $5; sep = "; " } END { print "" }' "$T/t8.out")" \
		"a rejected -; b completed 0.000-10.000; c rejected -" "$p rejects a run beyond 3650 days and a plan beyond 9999-12-31"
done

echo "1..$N"
echo "comparators: $((N - FAILED)) passed, $FAILED failed"
[ $FAILED -eq 0 ]
