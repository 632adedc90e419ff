#!/usr/bin/env bash
# tools/bench/submission_budget.sh — what the per-role submission budget
# lets one role store in an hour at the current settings, and what the
# check costs a submission (docs/design.md, "Submission budget"). Prints
# tab-separated lines:
#   accepted_big / accepted_small   jobs of 128 kB of random command and env,
#                                   then jobs without either, one role
#                                   submitted (each cancelled) until refused
#   growth_bytes                    what the mixdnn tables grew by
#   <window> <variant> ms           one one-row submission of that role, mean
#                                   of 200 in a rolled-back transaction (no
#                                   round), the role holding 100,000 older
#                                   jobs; window: "full" (the jobs above in
#                                   the hour) or "empty"; variant: off (both
#                                   settings 0: the trigger finds no limit),
#                                   on, noidx (on, without
#                                   jobs_owner_submitted_idx)
# Runs against the server of PGHOST/PGPORT (PGUSER a superuser) in a
# throwaway database; the extension must be installed there.
#   bash tools/bench/submission_budget.sh [RUNS]     (default 3)
set -eu
RUNS=${1:-3}
db=mixdnn_budget_bench_$$
PSQL="psql -X -q -A -t -v ON_ERROR_STOP=1"
$PSQL -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
trap '$PSQL -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
$PSQL -d "$db" >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
DO $$BEGIN CREATE ROLE mixdnn_bench_budget NOLOGIN IN ROLE mixdnn_user;
	EXCEPTION WHEN duplicate_object THEN NULL; END$$;
INSERT INTO mixdnn.gpu_types VALUES ('v100', 1.0, 16);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 8);
SQL
$PSQL -d "$db" <<'SQL'
SELECT sum(pg_total_relation_size(c.oid)) AS before FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname = 'mixdnn' AND c.relkind = 'r' \gset
SET mixdnn.max_waiting_jobs = 0;
SET ROLE mixdnn_bench_budget;
DO $$
DECLARE big int := 0; small int := 0;
BEGIN
	LOOP
		BEGIN
			INSERT INTO mixdnn.jobs (name, gpus, duration, command, env)
			SELECT 'big', 1, '1 hour', (SELECT string_agg(md5(random()::text || k), '') FROM generate_series(1, 2047) k),
				jsonb_build_object('X', (SELECT string_agg(md5(random()::text || k || 'e'), '') FROM generate_series(1, 2047) k));
			UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status = 'pending';
			big := big + 1;
		EXCEPTION WHEN program_limit_exceeded THEN EXIT;
		END;
	END LOOP;
	LOOP
		BEGIN
			INSERT INTO mixdnn.jobs (name, gpus, duration) VALUES ('s', 1, '1 hour');
			UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status = 'pending';
			small := small + 1;
		EXCEPTION WHEN program_limit_exceeded THEN EXIT;
		END;
	END LOOP;
	RAISE NOTICE 'accepted_big	%', big;
	RAISE NOTICE 'accepted_small	%', small;
END $$;
RESET ROLE;
SELECT 'growth_bytes	' || (sum(pg_total_relation_size(c.oid)) - :before) FROM pg_class c
	JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'mixdnn' AND c.relkind = 'r';
-- 100,000 older jobs of the role, past the checks.
SET mixdnn.max_submissions_per_hour = 0;
SET mixdnn.max_submission_bytes_per_hour = 0;
INSERT INTO mixdnn.jobs (name, owner, gpus, duration, submitted_at, status, command)
SELECT 'old', 'mixdnn_bench_budget', 1, '1 hour', mixdnn.now() - interval '2 hours' - i * interval '5 minutes', 'pending',
	'python train.py --lr 0.1'
FROM generate_series(1, 100000) i;
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'old';
SQL
$PSQL -d "$db" -c "VACUUM ANALYZE mixdnn.jobs"
later=$($PSQL -d "$db" -c "SELECT mixdnn.now() + interval '2 hours'")
for r in $(seq 1 "$RUNS"); do
	for window in full empty; do
		for variant in off on noidx; do
			case $variant in
				off) prep="SET LOCAL mixdnn.max_submissions_per_hour = 0; SET LOCAL mixdnn.max_submission_bytes_per_hour = 0" ;;
				noidx) prep="DROP INDEX mixdnn.jobs_owner_submitted_idx" ;;
				*) prep="SELECT" ;;
			esac
			[ "$window" = empty ] && clock="SET LOCAL mixdnn.virtual_now = '$later';" || clock=""
			$PSQL -d "$db" 2>&1 <<-SQL | sed -n "s/^NOTICE:  /$window	$variant	/p"
				SET client_min_messages = notice;
				BEGIN;
				$clock
				SET LOCAL mixdnn.max_waiting_jobs = 0;
				SET LOCAL mixdnn.max_submissions_per_hour = 1000000;
				SET LOCAL mixdnn.max_submission_bytes_per_hour = '1TB';
				$prep;
				SET LOCAL ROLE mixdnn_bench_budget;
				DO \$\$
				DECLARE t0 timestamptz := clock_timestamp();
				BEGIN
					FOR i IN 1..200 LOOP
						INSERT INTO mixdnn.jobs (name, gpus, duration, command) VALUES ('j', 1, '1 hour', 'python train.py --lr 0.1');
					END LOOP;
					RAISE NOTICE '%', round((extract(epoch FROM clock_timestamp() - t0) * 1000 / 200)::numeric, 3);
				END \$\$;
				ROLLBACK;
			SQL
		done
	done
done
