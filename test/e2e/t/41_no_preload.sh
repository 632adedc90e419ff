#!/usr/bin/env bash
# Without shared_preload_libraries everything but the launch worker works:
# CREATE EXTENSION (with a WARNING that says how to get the worker), rounds
# at commit, mixdnn.now(), launch_due(), and a planned job's reason says
# that no worker will start it. A server of its own, without preload.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"
server2_init "$T/nopreload" || { ok 1 "initdb"; done_testing; }
server2_ctl start
ok $? "a server without shared_preload_libraries starts"
trap 'server2_stop; stop_all_launchers' EXIT
export PGHOST=$S2

out=$(psql -X -v ON_ERROR_STOP=1 -c "CREATE EXTENSION mixdnn" 2>&1)
ok $? "CREATE EXTENSION mixdnn works"
like "$out" "WARNING: +mixdnn is not in shared_preload_libraries" "it warns that no launch worker will run"
like "$out" "HINT: +Add mixdnn to shared_preload_libraries" "and says how to get one"

# A new session, as after a restart without preload: the library loads on first use.
is "$(q "SELECT mixdnn.now() IS NOT NULL")" t "mixdnn.now() works in a new session"
out=$(psql -X -q -A -t -v ON_ERROR_STOP=1 2>&1 <<'SQL'
SET mixdnn.virtual_now = '2026-06-01 10:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('a', 'hard', 'v100', 4, '1 hour', 'true'), ('b', 'hard', 'v100', 4, '1 hour', 'true');
SELECT name || ': ' || status || ': ' || reason FROM mixdnn.jobs ORDER BY job_id;
SQL
)
ok $? "submissions are planned at commit"
like "$(sed -n 1p <<<"$out")" "^a: planned: no launch worker runs: mixdnn is not in shared_preload_libraries" \
	"a job due now says that no launch worker will start it"
like "$(sed -n 2p <<<"$out")" "^b: planned: waiting for 4 v100 GPUs.*; no launch worker runs" \
	"a job that waits says why, and that no worker will start it"
is "$(q "SET mixdnn.virtual_now = '2026-06-01 10:00+00'; SELECT mixdnn.launch_due()")" 1 "launch_due() launches the due job"
is "$(q "SELECT status FROM mixdnn.jobs WHERE name = 'a'")" launching "which is launching"
is "$(q "SELECT count(*) FROM pg_settings WHERE name IN ('mixdnn.worker_poll_interval', 'mixdnn.database')")" 0 \
	"no setting that needs preload is defined"
is "$(q "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'mixdnn%'")" 0 "and no mixdnn process runs"
server2_stop
done_testing
