#!/usr/bin/env bash
# mixdnn.plan_mode = worker: submitting transactions run no round and take
# no scheduler lock; the background worker plans everything committed since
# its last round in one round, and the jobs run as in commit mode.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.plan_mode worker
start_launcher n1
start_launcher n2
start_launcher n3

# A session that holds the scheduler lock until released (no timing: on a
# busy machine any fixed sleep can be too short).
LOCKER="SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE '%mixdnn._lock_scheduler_now()%'"
hold_lock() {
	psql -X -q -c "BEGIN; SELECT mixdnn._lock_scheduler_now(); SELECT pg_sleep(120); COMMIT" >/dev/null 2>&1 &
	locker=$!
	wait_until 30 '[ -n "$(q "$LOCKER")" ]'
}
release_lock() {
	q "SELECT pg_cancel_backend(pid) FROM ($LOCKER) l" >/dev/null
	wait "$locker"
}

# A submitter is not blocked by a transaction that holds the scheduler lock.
hold_lock
job=$(submit quick soft a100 2 "$(job_cmd 0.2)" '1 s')
ok "$([ -n "$job" ] && [ -n "$(q "$LOCKER")" ]; echo $?)" \
	"a submission commits while another transaction holds the scheduler lock"
is "$(status_of "$job")" pending "right after its commit the job waits for the worker's round"
release_lock

wait_until 15 "[ \"\$(status_of $job)\" = completed ]"
ok $? "the worker planned it and it ran"

# Many submissions in separate transactions while the worker is held up:
# they all commit, and once it gets the lock one or two rounds plan them all.
before=$(q "SELECT coalesce(max(round_id), 0) FROM mixdnn.rounds")
hold_lock
for i in $(seq 1 12); do
	submit "batch-$i" soft a100 1 "$(job_cmd 0.3)" '1 s' >/dev/null
done
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'batch-%' AND status = 'pending'")" 12 \
	"12 submissions committed while the scheduler lock was held"
release_lock
wait_until 30 "[ \"\$(q \"SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'batch-%' AND status = 'completed'\")\" = 12 ]"
ok $? "all 12 jobs were planned, launched and completed"
arrival_rounds=$(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%arrival%' AND round_id > $before")
ok "$([ "$arrival_rounds" -ge 1 ] && [ "$arrival_rounds" -le 2 ]; echo $?)" \
	"the worker planned the 12 in $arrival_rounds round(s)"

# Every job ran exactly once, and no GPU was used by two jobs at once.
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE attempt <> 1")" 0 "every job ran in one attempt"
overlaps=$(sort -k1,1 -k2,2n -k3,3n "$T/out/gpu.log" | awk '
	$1 == node && $2 == gpu && $3 < end - 0.001 { bad++ }
	{ if ($1 != node || $2 != gpu || $4 > end) { node = $1; gpu = $2; end = $4 } }
	END { print bad + 0 }')
is "$overlaps" 0 "no GPU ran two jobs at the same time"

set_setting mixdnn.plan_mode ''
done_testing
