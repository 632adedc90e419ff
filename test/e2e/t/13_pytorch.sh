#!/usr/bin/env bash
# Real distributed training: a two-node gloo data-parallel job through two
# launchers, plain `python3 train.py` using only the launcher's environment
# (env:// rendezvous). Both ranks join, the loss falls, both exit 0, the job
# completes.
. "$(dirname "$0")/../lib.sh"

/usr/bin/python3 -c "import torch.distributed" 2>/dev/null ||
	skip_all "PyTorch is not installed (Debian package python3-torch; tools/setup.sh installs it with MIXDNN_SETUP_TORCH=1)"

reset_cluster
# Both "nodes" are this machine: the master's address must resolve.
q "UPDATE mixdnn.gpu_nodes SET address = '127.0.0.1'" >/dev/null
for n in n1 n2; do start_launcher "$n"; done
job=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, env)
		 VALUES ('ddp', 'hard', 'a100', 8, '1 min', 'exec /usr/bin/python3 $E2E_DIR/train.py $T/out',
				 '{\"GLOO_SOCKET_IFNAME\": \"lo\", \"OMP_NUM_THREADS\": \"1\"}') RETURNING job_id")
wait_until 120 "[ \"\$(status_of $job)\" = completed ] || [ \"\$(status_of $job)\" = failed ]"
is "$(status_of "$job")" completed "the two-node training job completed"
is "$(q "SELECT string_agg(node || ':' || state || ':' || exit_code, ',' ORDER BY node_rank) FROM mixdnn.job_parts WHERE job_id = $job")" \
	"n1:completed:0,n2:completed:0" "both ranks exited with 0"
for r in 0 1; do
	line=$(cat "$T/out/train-$job-rank$r.txt" 2>/dev/null)
	ok "$(grep -q "^rank=$r world=2 " <<<"$line"; echo $?)" "rank $r joined a world of 2 ($line)"
	first=$(sed -n 's/.*first=\([^ ]*\).*/\1/p' <<<"$line")
	last=$(sed -n 's/.*last=\([^ ]*\).*/\1/p' <<<"$line")
	ok "$(awk -v f="${first:-0}" -v l="${last:-1}" 'BEGIN { exit !(l < f / 10) }'; echo $?)" \
		"rank $r: the loss fell more than tenfold ($first -> $last)"
done
done_testing
