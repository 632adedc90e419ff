#!/usr/bin/env bash
# tools/bench/queue.sh — the cost of a long queue (issue #9 item 7): one
# statement inserts N waiting jobs (superuser), then another role submits
# K one-row jobs. Prints one tab-separated line per measurement:
#   bulk_insert_ms   the N-row INSERT, its round included (plan_mode commit)
#   round_ms         SELECT mixdnn.run_round('bench') with N jobs waiting (wall)
#   solve_ms         that round's planner time (mixdnn.rounds.solve_ms)
#   one_row_ms       each one-row INSERT of the other role, round included
#   history_rows     plan_history rows that one-row submission wrote
#   history_bytes    their size (sum of pg_column_size of the rows)
# Runs against the server of PGHOST/PGPORT (PGUSER a superuser) in a
# throwaway database; the extension must be installed there. Settings of
# the database (e.g. SETTINGS="mixdnn.replan_tolerance=0
# mixdnn.planning_horizon=500") are applied with ALTER DATABASE.
#   bash tools/bench/queue.sh [N] [K]      (defaults 100000 and 5)
set -eu
N=${1:-100000}
K=${2:-5}
db=mixdnn_queue_bench_$$
PSQL="psql -X -q -A -t -v ON_ERROR_STOP=1"
$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
for kv in ${SETTINGS:-}; do
	$PSQL -d postgres -c "ALTER DATABASE $db SET ${kv%%=*} = '${kv#*=}'"
done
trap '$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
$PSQL -d "$db" >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
DO $$BEGIN CREATE ROLE mixdnn_bench_other LOGIN IN ROLE mixdnn_user;
	EXCEPTION WHEN duplicate_object THEN NULL; END$$;
-- 16 nodes of three types, 104 GPUs.
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.35), ('v100', 1.0), ('a100', 2.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
	SELECT t || '-' || i, t, 8 FROM unnest(ARRAY['k80', 'v100', 'a100']) t, generate_series(1, 4) i
	UNION ALL SELECT 'v100-s' || i, 'v100', 2 FROM generate_series(1, 4) i;
SQL
ms() {	# ms SQL [ROLE]: wall time of one statement in its own session, in ms
	local role=${2:-}
	$PSQL -d "$db" -c "\\timing on" ${role:+-c "SET ROLE $role"} -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}
printf 'bulk_insert_ms\t%s\n' "$(ms "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	SELECT 'bulk-' || i, CASE WHEN i % 3 = 0 THEN 'hard' ELSE 'soft' END,
		   (ARRAY['k80', 'v100', 'a100'])[1 + i % 3], 1 + i % 8, make_interval(secs => 600 + (i * 7919) % 86400)
	FROM generate_series(1, $N) i")"
printf 'round_ms\t%s\n' "$(ms "SELECT mixdnn.run_round('bench')")"
printf 'solve_ms\t%s\n' "$($PSQL -d "$db" -c "SELECT round(solve_ms::numeric, 1) FROM mixdnn.rounds ORDER BY round_id DESC LIMIT 1")"
printf 'waiting\t%s\n' "$($PSQL -d "$db" -c "SELECT count(*) FROM mixdnn.jobs WHERE status IN ('pending', 'planned')")"
for i in $(seq 1 "$K"); do
	h0=$($PSQL -d "$db" -c "SELECT count(*) || ' ' || coalesce(sum(pg_column_size(h.*)), 0) FROM mixdnn.plan_history h")
	t=$(ms "INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('other-$i', 'v100', 2, '1h')" mixdnn_bench_other)
	h1=$($PSQL -d "$db" -c "SELECT count(*) || ' ' || coalesce(sum(pg_column_size(h.*)), 0) FROM mixdnn.plan_history h")
	printf 'one_row_ms\t%s\thistory_rows\t%s\thistory_bytes\t%s\n' "$t" \
		"$((${h1% *} - ${h0% *}))" "$((${h1#* } - ${h0#* }))"
done
