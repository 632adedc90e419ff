#!/bin/sh
# test/e2e/job.sh OUT SECONDS [EXIT_CODE] — the command of the e2e test jobs.
# Writes its environment to OUT/JOB-ATTEMPT-RANK.env, sleeps, then appends
# one line per GPU to OUT/gpu.log ("node gpu start end job attempt") and
# exits with EXIT_CODE.
out=$1
secs=$2
code=${3:-0}
tag="$MIXDNN_JOB_ID-$MIXDNN_ATTEMPT-$NODE_RANK"
start=$(date +%s.%N)
{
	env | grep -E '^(MIXDNN_[A-Z_]*|CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER|WORLD_SIZE|NODE_RANK|RANK|LOCAL_RANK|MASTER_ADDR|MASTER_PORT|HOME|PWD|E2E_[A-Z_]*)=' | sort
	echo "WHOAMI=$(id -un)"
	echo "PID=$$"
	echo "START=$start"
} >"$out/$tag.env.tmp"
mv "$out/$tag.env.tmp" "$out/$tag.env"
sleep "$secs"
end=$(date +%s.%N)
for g in $(echo "$CUDA_VISIBLE_DEVICES" | tr ',' ' '); do
	echo "$MIXDNN_NODE $g $start $end $MIXDNN_JOB_ID $MIXDNN_ATTEMPT" >>"$out/gpu.log"
done
exit "$code"
