#!/usr/bin/env bash
# tools/bench/restore.sh [JOBS] — a backup and restore of a long history
# (docs/operations.md, "Backup and restore"). On the server of PGHOST/PGPORT
# (PGUSER a superuser; run it on the server's machine, as root or the
# server's OS user, to read the restoring backend's /proc/PID/status), in
# databases of its own: JOBS completed one-GPU jobs (default 200000) with
# two job_events, one job_part and one plan_history row each, 2000 rounds,
# 16 nodes and 8 profiles (history rows written directly, triggers off, as
# tools/bench/surface.sh does), and 5 jobs submitted as usual. It dumps
# them (plain and custom format), then restores each dump into a new
# database with its launch worker off: psql -f, pg_restore and
# pg_restore -1. Prints one tab-separated line per restore: how, seconds,
# the restoring backend's peak VmHWM and RssAnon in kB (sampled every
# 50 ms), calls of mixdnn._round_at_commit during the restore
# (track_functions = all for the restoring session), and rounds in the
# restored database against the original's. Then the jobs table's COPY
# alone, in one transaction: its seconds, the bytes of the after-trigger
# event queue left for its commit (pg_backend_memory_contexts) and the
# commit's milliseconds.
set -eu
n=${1:-200000}
src=mx_restore_bench
dir=$(mktemp -d /tmp/mx_restore_bench.XXXXXX)
chmod 755 "$dir"
dbs="$src mx_restore_plain mx_restore_custom mx_restore_single mx_restore_copy"
cleanup() {
	for db in $dbs; do psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true; done
	rm -rf "$dir"
}
trap cleanup EXIT
fresh() {
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" \
		-c "CREATE DATABASE $1" -c "ALTER DATABASE $1 SET mixdnn.launch_worker = off" >/dev/null
}
fresh $src
psql -X -q -v ON_ERROR_STOP=1 -v n="$n" -d $src >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed, memory_gb) VALUES ('v100', 1.0, 32), ('p100', 0.9, 16);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
	SELECT 'n' || i, CASE WHEN i % 2 = 0 THEN 'v100' ELSE 'p100' END, 8 FROM generate_series(1, 16) i;
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput)
	SELECT 'm', t, g, g * s FROM (VALUES ('v100', 1.0), ('p100', 0.9)) v(t, s), generate_series(1, 4) g;
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO mixdnn.rounds (at, event, policy, solver, waiting, running, launched)
	SELECT now() - interval '100 days' + i * interval '1 hour', 'arrival', 'mixdnn', 'heuristic', 10, 8, 5
	FROM generate_series(0, 1999) i;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at, started_at, finished_at, attempt)
	SELECT 'j' || i, 'hard', CASE WHEN i % 2 = 0 THEN 'v100' ELSE 'p100' END, 1, '20 min', 'completed',
		   now() - interval '100 days' + i * interval '40 s', now() - interval '100 days' + i * interval '40 s',
		   now() - interval '100 days' + i * interval '40 s' + interval '20 min', 1
	FROM generate_series(0, :n - 1) i;
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
	SELECT job_id, started_at, 'planned', 'launching' FROM mixdnn.jobs
	UNION ALL SELECT job_id, finished_at, 'running', 'completed' FROM mixdnn.jobs;
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, finished_at, exit_code, gpu_type)
	SELECT job_id, 1, 'n' || (1 + (job_id % 8) * 2 + CASE gpu_type WHEN 'v100' THEN 1 ELSE 0 END), 0, 1, 'completed',
		   started_at + interval '2 s', finished_at, 0, gpu_type
	FROM mixdnn.jobs;
INSERT INTO mixdnn.plan_history (round_id, job_id, status, planned_gpu_type, planned_gpus, planned_start, planned_end)
	SELECT (SELECT min(round_id) FROM mixdnn.rounds) + job_id % 2000, job_id, 'planned', gpu_type, 1, started_at, finished_at
	FROM mixdnn.jobs;
COMMIT;
SELECT setval('mixdnn.jobs_job_id_seq', (SELECT max(job_id) FROM mixdnn.jobs));
SELECT setval('mixdnn.rounds_round_id_seq', (SELECT max(round_id) FROM mixdnn.rounds));
SELECT setval('mixdnn.job_events_event_id_seq', (SELECT max(event_id) FROM mixdnn.job_events));
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	SELECT 'live' || i, 'hard', 'v100', 2, '1 hour', 'true' FROM generate_series(1, 5) i;
SQL
pg_dump -d $src -f "$dir/plain.sql"
pg_dump -d $src -Fc -f "$dir/custom.dump"
rounds=$(psql -X -A -t -d $src -c "SELECT count(*) FROM mixdnn.rounds")

restore() {
	local how=$1 db=$2 cpid pid= hwm=0 anon=0 h a start end
	fresh "$db"
	shift 2
	start=$(date +%s.%N)
	PGAPPNAME=mx_restore_bench PGOPTIONS="-c track_functions=all" "$@" -d "$db" >"$dir/$db.log" 2>&1 &
	cpid=$!
	while kill -0 $cpid 2>/dev/null; do
		[ -n "$pid" ] || pid=$(psql -X -A -t -d postgres -c "SELECT pid FROM pg_stat_activity
			WHERE application_name = 'mx_restore_bench' AND datname = '$db'" 2>/dev/null || true)
		if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
			h=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
			a=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
			[ -n "$h" ] && [ "$h" -gt $hwm ] && hwm=$h
			[ -n "$a" ] && [ "$a" -gt $anon ] && anon=$a
		fi
		sleep 0.05
	done
	wait $cpid || { echo "$how failed:" >&2; cat "$dir/$db.log" >&2; exit 1; }
	end=$(date +%s.%N)
	sleep 1	# the backend's function statistics, sent as it exits
	printf '%s\t%.1f\t%s\t%s\t%s\t%s/%s\n' "$how" "$(echo "$end - $start" | bc)" $hwm $anon \
		"$(psql -X -A -t -d "$db" -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions
			WHERE schemaname = 'mixdnn' AND funcname = '_round_at_commit'")" \
		"$(psql -X -A -t -d "$db" -c "SELECT count(*) FROM mixdnn.rounds")" "$rounds"
}
printf 'how\tseconds\tVmHWM_kB\tRssAnon_kB\tround_at_commit_calls\trounds/original\n'
restore "psql -f" mx_restore_plain psql -X -q -v ON_ERROR_STOP=1 -f "$dir/plain.sql"
restore "pg_restore" mx_restore_custom pg_restore "$dir/custom.dump"
restore "pg_restore -1" mx_restore_single pg_restore -1 "$dir/custom.dump"

# The jobs table's COPY alone, as a restore loads it (row_security off).
fresh mx_restore_copy
psql -X -q -v ON_ERROR_STOP=1 -d mx_restore_copy -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION mixdnn" -c "INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0), ('p100', 0.9)"
psql -X -q -d $src -c "\\copy mixdnn.jobs TO '$dir/jobs.copy'"
psql -X -q -A -t -v ON_ERROR_STOP=1 -d mx_restore_copy <<SQL | awk '
	/^Time:/ { t[++k] = $2 } /^[0-9]+$/ { bytes = $1 }
	END { printf "jobs COPY\t%.1f s\tqueue for commit %d bytes\tcommit %.1f ms\n", t[1] / 1000, bytes, t[2] }'
SET row_security = off;
BEGIN;
\\timing on
\\copy mixdnn.jobs FROM '$dir/jobs.copy'
\\timing off
SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'AfterTriggerEvents';
\\timing on
COMMIT;
SQL
