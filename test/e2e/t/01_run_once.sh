#!/usr/bin/env bash
# Several launchers, a mix of single-node, multi-node and soft jobs: every
# job runs exactly once, with the environment its allocation implies, and no
# GPU ever runs two jobs at once.
. "$(dirname "$0")/../lib.sh"

reset_cluster
for n in n1 n2 n3; do start_launcher "$n"; done

ids=()
for i in 1 2 3 4 5 6; do ids+=("$(submit "one-$i" hard a100 1 "$(job_cmd 1)")"); done
for i in 1 2 3; do ids+=("$(submit "two-$i" hard a100 2 "$(job_cmd 1.5)")"); done
ids+=("$(submit "gang-6" hard a100 6 "$(job_cmd 1)")")
for i in 1 2 3; do ids+=("$(submit "v100-$i" hard v100 1 "$(job_cmd 1)")"); done
for i in 1 2; do ids+=("$(submit "soft-$i" soft "" 2 "$(job_cmd 1)")"); done
njobs=${#ids[@]}

wait_until 60 '[ "$(unfinished)" = 0 ]'
ok $? "all $njobs jobs finished within 60 s"
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE status = 'completed' AND exit_code = 0")" "$njobs" \
	"every job completed with exit code 0"
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE attempt <> 1")" 0 "every job was launched once"

# Exactly one process per part, of attempt 1.
parts=$(q "SELECT count(*) FROM mixdnn.job_parts")
is "$(ls "$T/out"/*.env 2>/dev/null | wc -l)" "$parts" "one process per job part ($parts parts)"
is "$(ls "$T/out"/*-1-*.env 2>/dev/null | wc -l)" "$parts" "all of attempt 1"

# The environment of each part against its allocation.
bad=0
while IFS='|' read -r job node rank gpus world nnodes master; do
	f="$T/out/$job-1-$rank.env"
	port=$((29500 + $(env_of "$job" 1 0 CUDA_VISIBLE_DEVICES | tr ',' '\n' | sort -n | head -1)))
	want="MIXDNN_JOB_ID=$job MIXDNN_NODE=$node NODE_RANK=$rank RANK=$rank LOCAL_RANK=0 WORLD_SIZE=$nnodes"
	want="$want MASTER_ADDR=$master MASTER_PORT=$port MIXDNN_LOCAL_GPUS=$gpus MIXDNN_WORLD_GPUS=$world"
	want="$want MIXDNN_NNODES=$nnodes CUDA_DEVICE_ORDER=PCI_BUS_ID WHOAMI=postgres"
	for kv in $want; do
		if ! grep -qx "$kv" "$f" 2>/dev/null; then
			diag "job $job rank $rank: expected $kv, env file has: $(grep "^${kv%%=*}=" "$f" 2>/dev/null)"
			bad=$((bad + 1))
		fi
	done
	cvd=$(env_of "$job" 1 "$rank" CUDA_VISIBLE_DEVICES)
	total=$(q "SELECT gpus FROM mixdnn.gpu_nodes WHERE node = '$node'")
	if [ "$(echo "$cvd" | tr ',' '\n' | awk -v max="$total" '$1 >= 0 && $1 < max' | sort -u | wc -l)" != "$gpus" ]; then
		diag "job $job rank $rank on $node: CUDA_VISIBLE_DEVICES=$cvd, expected $gpus distinct GPUs below $total"
		bad=$((bad + 1))
	fi
done < <(q "SELECT p.job_id, p.node, p.node_rank, p.gpus,
				   sum(p.gpus) OVER (PARTITION BY p.job_id),
				   count(*) OVER (PARTITION BY p.job_id),
				   first_value(p.node) OVER (PARTITION BY p.job_id ORDER BY p.node_rank)
			FROM mixdnn.job_parts p ORDER BY 1, 3")
is "$bad" 0 "every part saw CUDA_VISIBLE_DEVICES (PCI bus order), RANK, WORLD_SIZE (nodes), NODE_RANK, MASTER_ADDR, MASTER_PORT (master GPU), MIXDNN_* of its allocation, as its owner's OS user"

is "$(q "SELECT count(DISTINCT p.node) FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id) WHERE j.name = 'gang-6'")" 2 \
	"the 6-GPU job ran on two nodes at once"
overlaps=$(gpu_overlaps)
is "$overlaps" "" "no GPU ran two jobs at the same time"
is "$(wc -l <"$T/out/gpu.log")" "$(q "SELECT sum(gpus) FROM mixdnn.job_parts")" "every GPU of every part recorded its run"
is "$(q "SELECT count(*) FROM mixdnn.gpu_holds")" 0 "no GPU is held once all jobs are done"
is "$(q "SELECT count(*) FROM mixdnn.job_parts WHERE state <> 'completed'")" 0 "every part completed"
is "$(q "SELECT count(*) FROM mixdnn.jobs j WHERE (SELECT string_agg(new_status, ',' ORDER BY event_id)
		FROM mixdnn.job_events e WHERE e.job_id = j.job_id) !~ '^pending,planned,(planned,)*launching,running,completed\$'")" 0 \
	"every job went pending, planned, launching, running, completed"
is "$(cat "$T"/launcher-*.log | grep -c ' failed')" 0 "no launcher call failed"
done_testing
