#!/usr/bin/env bash
# test/e2e/latency.sh [JOBS] — launch latency: from the commit of a job's
# completion to the process of the next job starting on the GPU it freed.
#
# One node with one GPU, one launcher, JOBS (default 150) one-GPU jobs
# submitted at once; each job writes the time it started and exits after
# 50 ms. The completion's commit time comes from track_commit_timestamp.
# Prints p50/p95/max of the whole path and of its legs (see
# docs/performance.md). Starts its own throwaway cluster on port
# MIXDNN_LATENCY_PORT (default 5496).
set -u
cd "$(dirname "$0")" || exit 2
ROOT=$(cd ../.. && pwd)
JOBS=${1:-150}
export PATH="${MIXDNN_PG_BINDIR:-/usr/lib/postgresql/15/bin}:$PATH"
LAUNCHER=${MIXDNN_LAUNCHER:-$ROOT/bin/mixdnn-launcher}
[ -x "$LAUNCHER" ] || { echo "latency: $LAUNCHER is not built" >&2; exit 2; }

WORK=$(mktemp -d /tmp/mixdnn-latency.XXXXXX)
chmod 1777 "$WORK"	# sticky: the launcher's directories below stay its own
mkdir -m 1777 "$WORK/out"
. "$ROOT/test/lib/cluster.sh"
LPID=
trap '[ -n "$LPID" ] && kill "$LPID" 2>/dev/null; wait; cluster_stop; rm -rf "$WORK"' EXIT
CLUSTER_PORT=${MIXDNN_LATENCY_PORT:-5496} cluster_start "$WORK/pg" "track_commit_timestamp = on" || exit 1

psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type) VALUES ('gpu');
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('lat', 'gpu', 1);
SQL

# Jobs run as their owner's OS account (postgres) under a root launcher.
SAME_USER=
[ "$(id -u)" = 0 ] || SAME_USER=--allow-same-user
"$LAUNCHER" --node lat --state-dir "$WORK/state" $SAME_USER 2>"$WORK/launcher.log" &
LPID=$!
sleep 0.5

start=$(date +%s)
psql -X -q -v ON_ERROR_STOP=1 -c "
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	SELECT 'lat-' || i, 'hard', 'gpu', 1, '1 s',
		   'date +%s.%N > $WORK/out/\$MIXDNN_JOB_ID.start; sleep 0.05'
	FROM generate_series(1, $JOBS) i" || exit 1

deadline=$((start + 30 + JOBS))
while [ "$(psql -X -A -t -c "SELECT count(*) FROM mixdnn.jobs WHERE status <> 'completed'")" != 0 ]; do
	if [ "$(date +%s)" -gt "$deadline" ]; then
		echo "latency: jobs did not complete in time" >&2
		tail -5 "$WORK/launcher.log" >&2
		exit 1
	fi
	sleep 0.5
done

for f in "$WORK"/out/*.start; do
	echo "$(basename "$f" .start),$(cat "$f")"
done >"$WORK/starts.csv"

psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE TEMP TABLE started (job_id bigint, at_epoch float8);
\copy started FROM '$WORK/starts.csv' WITH (FORMAT csv)
CREATE TEMP VIEW legs AS
	WITH runs AS (
		SELECT j.job_id,
			   to_timestamp(s.at_epoch) AS process_start,
			   pg_xact_commit_timestamp(j.xmin) AS completion_commit,
			   (SELECT e.at FROM mixdnn.job_events e WHERE e.job_id = j.job_id AND e.new_status = 'launching') AS launched,
			   (SELECT e.at FROM mixdnn.job_events e WHERE e.job_id = j.job_id AND e.new_status = 'running') AS claimed
		FROM mixdnn.jobs j JOIN started s USING (job_id)),
	seq AS (
		SELECT r.*, lag(r.completion_commit) OVER (ORDER BY r.process_start) AS prev_commit FROM runs r)
	SELECT job_id,
		   1000 * extract(epoch FROM process_start - prev_commit) AS total_ms,
		   1000 * extract(epoch FROM launched - prev_commit) AS worker_ms,
		   1000 * extract(epoch FROM claimed - launched) AS claim_ms,
		   1000 * extract(epoch FROM process_start - claimed) AS exec_ms
	FROM seq WHERE prev_commit IS NOT NULL;
\pset footer off
SELECT count(*) AS samples,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms)::numeric, 1) AS p50_ms,
	   round(percentile_cont(0.95) WITHIN GROUP (ORDER BY total_ms)::numeric, 1) AS p95_ms,
	   round(max(total_ms)::numeric, 1) AS max_ms
FROM legs;
SELECT leg, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p50_ms,
	   round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS p95_ms
FROM legs, LATERAL (VALUES (1, 'commit -> worker launched', worker_ms),
						   (2, 'launched -> launcher claimed', claim_ms),
						   (3, 'claimed -> process started', exec_ms)) v(o, leg, ms)
GROUP BY o, leg ORDER BY o;
SELECT 'latency: ' || count(*) || ' samples, p50 '
	   || round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total_ms)::numeric, 1) || ' ms, p95 '
	   || round(percentile_cont(0.95) WITHIN GROUP (ORDER BY total_ms)::numeric, 1) || ' ms' AS summary
FROM legs \gset
\echo :summary
SQL
echo "run time: $(($(date +%s) - start)) s for $JOBS jobs"
