#!/usr/bin/env bash
# mixdnn.metrics scraped by the real prometheus-postgres-exporter (Debian's
# package) with tools/prometheus/mixdnn-queries.yaml, connected as a role
# that is only a member of pg_monitor: after jobs ran through a launcher,
# its /metrics page has the jobs by status, GPUs per type, waits, rounds and
# launch latency. And the queries name pg_catalog's operators and functions
# with their schema: another role's /(float8, integer), =(text, text) and
# max(float8) in public (CREATE granted to PUBLIC, as before PostgreSQL 15)
# never run as the monitoring role, whatever its search_path.
. "$(dirname "$0")/../lib.sh"

EXPORTER=$(command -v prometheus-postgres-exporter)
[ -n "$EXPORTER" ] || skip_all "prometheus-postgres-exporter is not installed (tools/setup.sh installs it)"
QUERIES=$E2E_DIR/../../tools/prometheus/mixdnn-queries.yaml
# 20000 above the cluster's port, or below it when that is past 65535
PORT=${MIXDNN_EXPORTER_PORT:-$((PGPORT + 20000 <= 65535 ? PGPORT + 20000 : PGPORT - 20000))}
MONITOR=mixdnn_e2e_monitor
HOSTILE=mixdnn_e2e_hostile

# Another role's objects in public, and CREATE on public for everyone, gone
# (this cluster serves the next test files too).
drop_hostile() {
	q "REVOKE CREATE ON SCHEMA public FROM PUBLIC" >/dev/null
	drop_role "$HOSTILE"
}
drop_hostile

reset_cluster
q "DO \$\$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$MONITOR') THEN CREATE ROLE $MONITOR LOGIN; END IF;
   END \$\$; GRANT pg_monitor TO $MONITOR" >/dev/null
start_launcher n3
ids=()
for i in 1 2 3; do ids+=("$(submit "m-$i" hard v100 2 "$(job_cmd 0.2)")"); done
submit "m-wait" hard a100 8 "$(job_cmd 0.2)" '1 hour' >/dev/null
wait_until 30 '[ "$(q "SELECT count(*) FROM mixdnn.jobs WHERE status = '"'completed'"'")" = 3 ]'
ok $? "three v100 jobs ran through the launcher"
# The 8-a100 job is running or waits: it holds n1 and n2 without a launcher there.
stop_all_launchers

# A role that may create in public puts there operators and an aggregate
# that match the queries' arguments exactly (pg_catalog has no
# /(float8, integer): value / 1000 would otherwise cast 1000 to float8 and
# take this one) and note who ran them.
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<-SQL
	CREATE ROLE $HOSTILE;
	GRANT CREATE ON SCHEMA public TO PUBLIC;
	SET ROLE $HOSTILE;
	CREATE TABLE public.hostile_ran (who text, what text);
	GRANT INSERT ON public.hostile_ran TO PUBLIC;
	CREATE FUNCTION public.hostile_div(float8, integer) RETURNS float8 LANGUAGE sql
		AS 'INSERT INTO public.hostile_ran VALUES (current_user, ''/'') RETURNING \$1 OPERATOR(pg_catalog./) \$2';
	CREATE OPERATOR public./ (LEFTARG = float8, RIGHTARG = integer, FUNCTION = public.hostile_div);
	CREATE FUNCTION public.hostile_eq(text, text) RETURNS boolean LANGUAGE sql
		AS 'INSERT INTO public.hostile_ran VALUES (current_user, ''='') RETURNING \$1 OPERATOR(pg_catalog.=) \$2';
	CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hostile_eq);
	CREATE FUNCTION public.hostile_larger(float8, float8) RETURNS float8 LANGUAGE sql STRICT
		AS 'INSERT INTO public.hostile_ran VALUES (current_user, ''max'') RETURNING pg_catalog.float8larger(\$1, \$2)';
	-- an initial state: its function runs for every row, the first one too
	CREATE AGGREGATE public.max(float8) (SFUNC = public.hostile_larger, STYPE = float8, INITCOND = '-Infinity');
	RESET ROLE;
SQL
ok $? "another role put /(float8, integer), =(text, text) and max(float8) in public"
hostile_ran() {
	q "SELECT coalesce(string_agg(DISTINCT who || ' ran ' || what, ', '), '') FROM public.hostile_ran"
}

DATA_SOURCE_NAME="host=$PGHOST port=$PGPORT user=$MONITOR dbname=$PGDATABASE sslmode=disable" \
	"$EXPORTER" --extend.query-path="$QUERIES" --web.listen-address="127.0.0.1:$PORT" \
	--disable-default-metrics --disable-settings-metrics >"$T/exporter.log" 2>&1 &
exporter=$!
scrape() {
	python3 - "$PORT" >"$T/metrics.txt" 2>/dev/null <<-'PY'
		import sys, urllib.request
		print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=5).read().decode())
	PY
}
wait_until 20 'scrape && grep -q "^mixdnn_jobs{" "$T/metrics.txt"'
ok $? "the exporter serves mixdnn metrics"
kill "$exporter" 2>/dev/null
wait "$exporter" 2>/dev/null

# metric{labels} value, without the exporter's own "server" label.
val() {	# val NAME [LABEL=VALUE]
	sed -n "s/^$1{\(.*\)} \(.*\)$/\1 \2/p" "$T/metrics.txt" | grep "${2:-.}" | sed 's/.* //' | head -1
}
is "$(val mixdnn_jobs 'status="completed"')" 3 "mixdnn_jobs{status=\"completed\"} = 3"
is "$(val mixdnn_jobs 'status="failed"')" 0 "mixdnn_jobs{status=\"failed\"} = 0, every status is exported"
is "$(val mixdnn_gpus_registered 'gpu_type="a100"')" 8 "mixdnn_gpus_registered{gpu_type=\"a100\"} = 8"
is "$(val mixdnn_gpus_free 'gpu_type="v100"')" 2 "mixdnn_gpus_free{gpu_type=\"v100\"} = 2 once the v100 jobs are done"
held=$(q "SELECT count(*) FROM mixdnn.gpu_holds h JOIN mixdnn.gpu_nodes n USING (node) WHERE n.gpu_type = 'a100'")
is "$(val mixdnn_gpus_held 'gpu_type="a100"')" "$held" "mixdnn_gpus_held{gpu_type=\"a100\"} matches mixdnn.gpu_holds ($held)"
python3 - "$T/metrics.txt" <<-'PY'
	import sys
	v = {}
	for line in open(sys.argv[1]):
	    if line.startswith("mixdnn_scheduler_"):
	        v[line.split("{")[0]] = float(line.rsplit(" ", 1)[1])
	p = "mixdnn_scheduler_"
	ok = (v[p + "rounds_per_minute"] > 0 and v[p + "round_solve_seconds_p95"] >= 0
	      and 0 <= v[p + "queue_wait_p50_seconds"] <= v[p + "queue_wait_p95_seconds"] < 60
	      and 0 <= v[p + "launch_claim_p50_seconds"] <= v[p + "launch_claim_p95_seconds"] < 30
	      and v[p + "waiting_oldest_seconds"] >= 0)
	sys.exit(0 if ok else 1)
PY
ok $? "scheduler gauges: rounds per minute > 0, solve time, wait and launch-claim p50 <= p95, plausible"
# Prometheus' naming conventions: a gauge never ends in a counter's or a
# summary's suffix (_total, _count, _sum, _bucket), times are in seconds.
bad=$(sed -n 's/^# TYPE \(mixdnn_[a-z0-9_]*\) gauge$/\1/p' "$T/metrics.txt" | grep -E '_(total|count|sum|bucket)$|_ms(_|$)|milli')
is "$bad" "" "no mixdnn gauge has a counter's or summary's suffix or a unit other than seconds"
is "$(sed -n 's/^# TYPE \(mixdnn_[a-z0-9_]*\) .*/\1/p' "$T/metrics.txt" | sort | tr '\n' ' ')" \
	"mixdnn_gpus_free mixdnn_gpus_held mixdnn_gpus_registered mixdnn_jobs mixdnn_scheduler_launch_claim_p50_seconds mixdnn_scheduler_launch_claim_p95_seconds mixdnn_scheduler_queue_wait_p50_seconds mixdnn_scheduler_queue_wait_p95_seconds mixdnn_scheduler_round_solve_seconds_p95 mixdnn_scheduler_rounds_per_minute mixdnn_scheduler_waiting_oldest_seconds " \
	"the exported names (docs/reference.md, \"Metrics\")"
grep -q 'pg_exporter_user_queries_load_error{[^}]*} 0' "$T/metrics.txt"
ok $? "the exporter loaded the query file without error"
is "$(hostile_ran)" "" "the exporter (search_path \"\$user\", public) ran none of the other role's operators"

# Each query again, as the monitoring role with public before pg_catalog in
# its search_path: only names with their schema stay pg_catalog's.
python3 -c '
import sys, yaml
for name, q in yaml.safe_load(open(sys.argv[1])).items():
    sys.stdout.write(name + "\t" + " ".join(q["query"].split()) + "\n")
' "$QUERIES" >"$T/queries.tsv"
bad_queries=
while IFS=$'\t' read -r name sql; do
	PGOPTIONS="-c search_path=public,pg_catalog" psql -X -q -A -t -v ON_ERROR_STOP=1 -U "$MONITOR" -c "$sql" \
		>"$T/query-$name.out" 2>&1 || bad_queries="$bad_queries $name"
done <"$T/queries.tsv"
is "$bad_queries" "" "each query of the file runs as the monitoring role"
is "$(wc -l <"$T/queries.tsv")" 3 "three queries read from the file"
is "$(hostile_ran)" "" "with search_path public, pg_catalog the queries ran none of the other role's operators or aggregates"
drop_hostile

q "DROP ROLE IF EXISTS $MONITOR" >/dev/null 2>&1 || q "REVOKE pg_monitor FROM $MONITOR" >/dev/null
done_testing
