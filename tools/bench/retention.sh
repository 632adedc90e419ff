#!/usr/bin/env bash
# tools/bench/retention.sh DAYS — the size of the history after a long
# simulated run, with and without retention (docs/operations.md,
# "Retention"). On the server of PGHOST/PGPORT (PGUSER a superuser), in two
# databases of its own: every simulated hour 4 one-hour jobs arrive on 4
# nodes of 4 GPUs, are launched, claimed and finished through the launcher
# functions, on the virtual clock; one database purges the history of jobs
# finished more than 30 days ago once a simulated day, as the worker does
# (hourly, with mixdnn.history_retention = 30 days). Prints one row per
# database: jobs, rounds, plan revisions, events and their bytes on disk,
# as autovacuum left them and after VACUUM FULL.
set -eu
days=${1:-120}
for db in mx_retention_keep mx_retention_30d; do
	psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" \
		-c "CREATE DATABASE $db" -c "ALTER DATABASE $db SET mixdnn.launch_worker = off"
	psql -X -q -v ON_ERROR_STOP=1 -d $db >/dev/null <<-SQL
		SET client_min_messages = error;
		CREATE EXTENSION mixdnn;
		INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
		INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) SELECT 'n' || i, 'v100', 4 FROM generate_series(1, 4) i;
	SQL
	{
		for h in $(seq 0 $((days * 24 - 1))); do
			at="timestamptz '2030-01-01 00:00+00' + interval '$h hours'"
			echo "SELECT set_config('mixdnn.virtual_now', ($at)::text, false) \\g /dev/null"
			echo "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)"
			echo "  SELECT 'j', 'hard', 'v100', 4, '1 hour', 'true' FROM generate_series(1, 4);"
			echo "SELECT mixdnn.finish(p.job_id, 0, p.node) FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id)"
			echo "  WHERE p.state = 'running' AND j.planned_end <= mixdnn.now() \\g /dev/null"
			echo "SELECT mixdnn.launch_due() \\g /dev/null"
			echo "SELECT mixdnn.claim('n' || i) FROM generate_series(1, 4) i \\g /dev/null"
			if [ $db = mx_retention_30d ] && [ $((h % 24)) = 23 ]; then
				echo "SELECT mixdnn.purge_history(interval '30 days') \\g /dev/null"
			fi
		done
	} | psql -X -q -v ON_ERROR_STOP=1 -d $db >/dev/null
done
history_bytes="pg_total_relation_size('mixdnn.rounds') + pg_total_relation_size('mixdnn.plan_history')
	+ pg_total_relation_size('mixdnn.job_events')"
echo "database|days|jobs|rounds|plan revisions|events|history bytes|after VACUUM FULL"
for db in mx_retention_keep mx_retention_30d; do
	row=$(psql -X -A -t -d $db -c "SELECT '$db', $days, (SELECT count(*) FROM mixdnn.jobs), (SELECT count(*) FROM mixdnn.rounds),
		(SELECT count(*) FROM mixdnn.plan_history), (SELECT count(*) FROM mixdnn.job_events), $history_bytes")
	psql -X -q -d $db -c "VACUUM FULL mixdnn.rounds, mixdnn.plan_history, mixdnn.job_events"
	echo "$row|$(psql -X -A -t -d $db -c "SELECT $history_bytes")"
	psql -X -q -d postgres -c "DROP DATABASE $db"
done
