#!/usr/bin/env bash
# tools/bench/surface.sh — the analysts' functions over a large history:
# N nodes of 4 GPUs and M finished one-GPU parts (rows written directly,
# triggers off), then each function once. Prints one tab-separated line per
# measurement: name, nodes, parts, ms (wall, in its own session).
# Runs against the server of PGHOST/PGPORT (PGUSER a superuser) in a
# throwaway database; the extension must be installed there.
#   bash tools/bench/surface.sh [N] [M]      (defaults 3000 and 9000)
set -eu
N=${1:-3000}
M=${2:-9000}
db=mixdnn_surface_bench_$$
PSQL="psql -X -q -A -t -v ON_ERROR_STOP=1"
$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" \
	-c "ALTER DATABASE $db SET mixdnn.launch_worker = off"
trap '$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
$PSQL -d "$db" -v n="$N" -v m="$M" >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
SET session_replication_role = replica;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) SELECT 'n' || i, 'v100', 4 FROM generate_series(1, :n) i;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at)
	SELECT 'j' || i, 'hard', 'v100', 1, '1h', 'completed', now() - interval '2 hours' FROM generate_series(1, :m) i;
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
	SELECT job_id, now() - interval '90 min', 'planned', 'launching' FROM mixdnn.jobs;
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, finished_at, exit_code)
	SELECT job_id, 1, 'n' || (1 + job_id % :n), 0, 1, 'completed', now() - interval '90 min', now() - interval '30 min', 0
	FROM mixdnn.jobs;
ANALYZE;
SQL
ms() {	# ms NAME SQL: wall time of one statement in its own session, in ms
	printf '%s\t%s\t%s\t%s\n' "$1" "$N" "$M" \
		"$($PSQL -d "$db" -c "\\timing on" -c "$2" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)"
}
ms gantt_svg "SELECT length(mixdnn.gantt_svg(now() - interval '3 hours', now()))"
ms utilization "SELECT count(*) FROM mixdnn.utilization(now() - interval '3 hours', now(), '10 minutes')"
ms estimate_accuracy "SELECT count(*) FROM mixdnn.estimate_accuracy"
ms metrics "SELECT count(*) FROM mixdnn.metrics"
