#!/usr/bin/env bash
# tools/demo.sh — MixDNN end to end on a throwaway cluster: a heterogeneous
# GPU cluster is registered, jobs are submitted with INSERT, planned at
# commit, launched by the background worker onto real launcher processes
# (one per node; the "training" is sleep), completed, and re-planned as they
# go. Prints the plans as they change and a final planned-versus-actual table.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

bash tools/setup.sh
export PATH="$ROOT/bin:${MIXDNN_PG_BINDIR:-/usr/lib/postgresql/15/bin}:$PATH"
. test/lib/cluster.sh

WORK=$(mktemp -d /tmp/mixdnn-demo.XXXXXX)
chmod 755 "$WORK"
LAUNCHERS=()
cleanup() {
	for pid in "${LAUNCHERS[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	cluster_stop
	rm -rf "$WORK"
}
trap cleanup EXIT

CLUSTER_PORT=${MIXDNN_DEMO_PORT:-5498} cluster_start "$WORK/pg" "mixdnn.lease_timeout = '20s'"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
sql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

say "1. An admin registers three GPU types, five nodes and measured throughputs (Gavel's matrix, steps/s)"
sql <<'SQL'
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed, memory_gb) VALUES ('k80', 0.3, 12), ('p100', 0.8, 16), ('v100', 1.0, 32);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES
  ('k80-0', 'k80', 4), ('p100-0', 'p100', 4), ('p100-1', 'p100', 4), ('v100-0', 'v100', 4), ('v100-1', 'v100', 4);
-- ResNet-50 (batch 64) and Transformer (batch 128), from ../shared/data/gavel/throughput_matrix.csv
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES
  ('resnet50', 'k80', 1, 0.619), ('resnet50', 'k80', 2, 1.264), ('resnet50', 'k80', 4, 2.412),
  ('resnet50', 'p100', 1, 2.619), ('resnet50', 'p100', 2, 5.516), ('resnet50', 'p100', 4, 10.365),
  ('resnet50', 'v100', 1, 4.395), ('resnet50', 'v100', 2, 7.922), ('resnet50', 'v100', 4, 9.452),
  ('resnet50', 'v100', 8, 17.303),
  ('transformer', 'k80', 1, 0.982), ('transformer', 'k80', 2, 1.657), ('transformer', 'k80', 4, 2.865),
  ('transformer', 'p100', 1, 3.074), ('transformer', 'p100', 2, 5.087), ('transformer', 'p100', 4, 8.774),
  ('transformer', 'v100', 1, 5.446), ('transformer', 'v100', 2, 10.069), ('transformer', 'v100', 4, 14.175),
  ('transformer', 'v100', 8, 30.884);
CREATE ROLE alice LOGIN IN ROLE mixdnn_user;
CREATE ROLE launcher LOGIN IN ROLE mixdnn_launcher;
SQL
sql -c "SELECT node, gpu_type, gpus, status FROM mixdnn.gpu_nodes ORDER BY node"

say "2. One launcher process per node (bin/mixdnn-launcher), listening for launches"
# Jobs run as their owner's OS account: as root, alice's jobs run as nobody
# (there is no OS user alice here); otherwise as this user.
if [ "$(id -u)" = 0 ]; then
	echo "alice nobody" >"$WORK/usermap"
	ACCOUNTS=(--user-map "$WORK/usermap")
else
	ACCOUNTS=(--allow-same-user)
fi
for node in k80-0 p100-0 p100-1 v100-0 v100-1; do
	mixdnn-launcher --node "$node" --dsn "user=launcher" --poll-interval 2 "${ACCOUNTS[@]}" \
		--state-dir "$WORK/state-$node" >"$WORK/launcher-$node.log" 2>&1 &
	LAUNCHERS+=($!)
done
sleep 1
grep -h "listening\|connected" "$WORK"/launcher-*.log | head -5 || true

say "3. alice submits a first wave: hard-model jobs need exactly their configuration, soft ones may move"
sql -U alice <<'SQL'
INSERT INTO mixdnn.jobs (name, model_class, model, gpu_type, gpus, duration, command) VALUES
  ('bert-8xv100',      'hard', NULL,          'v100', 8, '12 s', 'sleep 12'),
  ('resnet-a',         'soft', 'resnet50',    'v100', 4, '8 s',  'sleep 8'),
  ('resnet-b',         'soft', 'resnet50',    'v100', 4, '8 s',  'sleep 8'),
  ('transformer-a',    'soft', 'transformer', 'v100', 2, '6 s',  'sleep 6'),
  ('gan-2xp100',       'hard', NULL,          'p100', 2, '10 s', 'sleep 10'),
  ('lm-any',           'soft', NULL,          NULL,   2, '5 s',  'sleep 5');
SQL
sql -c "SELECT job_id, name, model_class AS class, gpu_type || 'x' || gpus AS asked,
               status, planned_gpu_type || 'x' || planned_gpus AS planned,
               to_char(planned_start, 'HH24:MI:SS') AS start, to_char(planned_end, 'HH24:MI:SS') AS \"end\", reason
        FROM mixdnn.jobs ORDER BY job_id"

watch_jobs() {
	local until=$1 label=$2
	for _ in $(seq 1 "$until"); do
		sleep 2
		printf '%s  ' "$(date +%T)"
		psql -X -A -t -c "SELECT string_agg(name || '=' || status, '  ' ORDER BY job_id) FROM mixdnn.jobs"
		[ "$(psql -X -A -t -c "SELECT count(*) FROM mixdnn.jobs WHERE status NOT IN ('completed','failed','cancelled')")" = 0 ] && break
	done
	return 0
}

say "4. The worker launches what is due; launchers run the commands"
watch_jobs 3 wave1

say "5. A second wave arrives, and alice cancels one job"
sql -U alice <<'SQL'
INSERT INTO mixdnn.jobs (name, model_class, model, gpu_type, gpus, duration, priority, command) VALUES
  ('urgent-resnet',    'soft', 'resnet50',    'v100', 4, '6 s', 20, 'sleep 6'),
  ('transformer-b',    'soft', 'transformer', 'p100', 4, '6 s', 0,  'sleep 6'),
  ('small-1',          'soft', NULL,          NULL,   1, '4 s', 0,  'sleep 4'),
  ('doomed',           'hard', NULL,          'k80',  4, '60 s', 0, 'sleep 60');
SQL
sleep 3
sql -U alice -c "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'doomed'"
watch_jobs 60 wave2

say "6. Planned versus actual (seconds from the first submission)"
sql <<'SQL'
WITH t0 AS (SELECT min(submitted_at) AS t FROM mixdnn.jobs)
SELECT s.job_id, s.name, s.model_class AS class,
       s.requested_gpu_type || 'x' || s.requested_gpus AS asked,
       s.planned_gpu_type || 'x' || s.planned_gpus AS ran_on,
       round(extract(epoch FROM s.submitted_at - t0.t), 1) AS submit,
       round(extract(epoch FROM s.first_planned_start - t0.t), 1) AS first_plan,
       round(extract(epoch FROM s.started_at - t0.t), 1) AS started,
       round(extract(epoch FROM s.finished_at - t0.t), 1) AS finished,
       s.revisions, s.status
FROM mixdnn.schedule s, t0 ORDER BY s.job_id;
SQL

say "7. Rounds: one per event, each recorded"
sql -c "SELECT event, count(*) AS rounds, string_agg(DISTINCT solver, '; ') AS solvers,
               round(percentile_cont(0.5) WITHIN GROUP (ORDER BY solve_ms)::numeric, 2) AS p50_ms,
               round(max(solve_ms)::numeric, 2) AS max_ms, sum(launched) AS launched
        FROM mixdnn.rounds GROUP BY event ORDER BY min(round_id)"

say "8. Launcher log of v100-0"
tail -n 12 "$WORK/launcher-v100-0.log"

unfinished=$(psql -X -A -t -c "SELECT count(*) FROM mixdnn.jobs WHERE status NOT IN ('completed','failed','cancelled')")
if [ "$unfinished" != 0 ]; then
	echo "demo: $unfinished jobs did not finish" >&2
	exit 1
fi
say "Done: every job was planned, launched by a real launcher and completed (or cancelled)."
