#!/usr/bin/env bash
# A job handed to the worker (its submission found the scheduler lock busy,
# or plan_mode = worker) must get its plan even if the server stops before
# the worker planned it: the events live in shared memory only, so the
# worker plans once whenever it starts (event "start"). Before, the job
# stayed pending on an idle cluster until an unrelated event.
. "$(dirname "$0")/../lib.sh"
[ -n "${MIXDNN_E2E_PGDATA:-}" ] || skip_all "MIXDNN_E2E_PGDATA is not set: cannot stop the server"

reset_cluster
trap 'server_ctl start 2>/dev/null' EXIT
# An admin's open transaction on the cluster holds the scheduler lock.
psql -X -q -c "BEGIN; UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = 'n1'; SELECT pg_sleep(60)" \
	>"$T/holder.log" 2>&1 &
holder=$!
wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'\")\" = 1 ]"
out=$(psql -X -q -A -t -v ON_ERROR_STOP=1 -c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('handed', 'hard', 'v100', 1, '1 hour', 'true') RETURNING job_id" 2>&1)
job=$(tail -1 <<<"$out")
is "$(status_of "$job")" pending "the submission commits pending, handed to the worker ($(head -1 <<<"$out"))"

server_ctl stop -m fast
ok $? "the server stops before the worker plans it"
wait "$holder" 2>/dev/null
server_ctl start
ok $? "and starts again"
wait_until 20 "[ \"\$(status_of $job)\" != pending ]"
ok $? "the worker plans it at its start, with no other event ($(status_of "$job"))"
ok "$([ "$(q "SELECT count(*) FROM mixdnn.rounds WHERE event = 'start'")" -ge 1 ]; echo $?)" "in a round of event start"
done_testing
