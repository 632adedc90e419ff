#!/usr/bin/env bash
# tools/bench/launch_quota.sh — the cost of GPU quotas in the launch pass
# (src/pg/launch_quota.c): one mixdnn.launch_due() that starts N due jobs of
# 40 roles beside N running ones, with no quota, with a quota for one role,
# and with a quota for every role. Prints one tab-separated line per run:
#   quotas   none | one | all
#   ms       the launch_due() call (wall, psql's \timing)
#   launched how many jobs it started (all N: the quotas are wide)
# Runs against the server of PGHOST/PGPORT (PGUSER a superuser) in a
# throwaway database without the launch worker; the extension must be
# installed there. Each run rolls back to the same state.
#   bash tools/bench/launch_quota.sh [N] [REPEATS]      (defaults 1500 and 3)
set -eu
N=${1:-1500}
R=${2:-3}
db=mixdnn_launch_bench_$$
PSQL="psql -X -q -A -t -v ON_ERROR_STOP=1"
$PSQL -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" \
	-c "ALTER DATABASE $db SET mixdnn.launch_worker = off"
trap '$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
$PSQL -d "$db" >/dev/null <<SQL
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
DO \$\$BEGIN FOR i IN 1..40 LOOP
	BEGIN EXECUTE format('CREATE ROLE mixdnn_bench_u%s NOLOGIN IN ROLE mixdnn_user', i);
	EXCEPTION WHEN duplicate_object THEN NULL; END;
END LOOP; END\$\$;
SET mixdnn.virtual_now = '2040-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
	SELECT 'n' || g, 'v100', 8 FROM generate_series(1, ($N * 2 + 7) / 8) g;
-- N running jobs, launched by a first pass from a plan that says now
INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration)
	SELECT 'r' || g, 'mixdnn_bench_u' || (g % 40 + 1), 'hard', 'v100', 1, '10 hours' FROM generate_series(1, $N) g;
UPDATE mixdnn.jobs SET status = 'planned', planned_gpu_type = gpu_type, planned_gpus = gpus,
	planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration, reason = NULL;
SELECT mixdnn.launch_due();
INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration)
	SELECT 'd' || g, 'mixdnn_bench_u' || (g % 40 + 1), 'hard', 'v100', 1, '1 hour' FROM generate_series(1, $N) g;
SQL
for quotas in none one all; do
	case $quotas in
		none) rows="SELECT NULL::text, 0 WHERE false" ;;
		one) rows="SELECT 'mixdnn_bench_u1', 100000" ;;
		all) rows="SELECT 'mixdnn_bench_u' || i, 100000 FROM generate_series(1, 40) i" ;;
	esac
	for _ in $(seq "$R"); do
		# the N due jobs, planned now (as a stale plan), then one timed pass
		out=$($PSQL -d "$db" <<SQL
SET client_min_messages = warning;
SET mixdnn.virtual_now = '2040-01-01 00:00+00';
BEGIN;
DELETE FROM mixdnn.quotas;
INSERT INTO mixdnn.quotas (role, max_gpus) $rows;
SET CONSTRAINTS ALL IMMEDIATE;
SET CONSTRAINTS ALL DEFERRED;
UPDATE mixdnn.jobs SET status = 'planned', planned_gpu_type = gpu_type, planned_gpus = gpus,
	planned_start = mixdnn.now(), planned_end = mixdnn.now() + duration, reason = NULL WHERE name LIKE 'd%';
\timing on
SELECT mixdnn.launch_due();
\timing off
ROLLBACK;
SQL
)
		ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
		launched=$(echo "$out" | grep -E '^[0-9]+$' | tail -1)
		printf '%s\t%s\t%s\n' "$quotas" "$ms" "$launched"
	done
done
