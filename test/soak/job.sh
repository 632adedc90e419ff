#!/usr/bin/env bash
# test/soak/job.sh OUT SECONDS EXIT_CODE IGNORE_TERM — the soak's job command.
# Its own record of what ran where and when, independent of the tables:
# OUT/JOB-ATTEMPT-NODE holds "start NODE GPU_INDICES T0" and, once it ran
# to its end, "end T1 CODE"; OUT/JOB-ATTEMPT-NODE.tick holds the last time
# it was seen alive (every 0.25 s), so a part killed with SIGKILL still has
# an interval [T0, last tick] that lies inside the time it really held its
# GPUs. IGNORE_TERM=1 ignores SIGTERM (the launcher then needs SIGKILL).
out=$1
secs=$2
code=$3
[ "$4" = 1 ] && trap '' TERM
f="$out/$MIXDNN_JOB_ID-$MIXDNN_ATTEMPT-$MIXDNN_NODE"
t0=$EPOCHREALTIME
echo "start $MIXDNN_NODE $CUDA_VISIBLE_DEVICES $t0" >"$f"
echo "$t0" >"$f.tick"
# Microseconds, without a fork per comparison.
end=$((${t0/./} + ${secs%.*} * 1000000 + 10#${secs#*.}0000 % 1000000))
while now=$EPOCHREALTIME; [ "${now/./}" -lt "$end" ]; do
	sleep 0.25
	echo "$EPOCHREALTIME" >"$f.tick"
done
echo "end $EPOCHREALTIME $code" >>"$f"
exit "$code"
