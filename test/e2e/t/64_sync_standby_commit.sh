#!/usr/bin/env bash
# A plain user may set synchronous_commit for her own transactions. Where
# the server names synchronous standbys but lets commits run locally
# (synchronous_commit = local: PostgreSQL's per-transaction durability),
# her commit with synchronous_commit = on waits for a standby after the
# pre-commit callback, with every lock it took still held, until a standby
# answers: here never (a standby that does not exist); with remote_apply,
# as long as a query on the standby holds up its replay. Such a commit
# leaves its round to the worker, as a REPEATABLE READ one does. Before,
# it ran the round and held the scheduler lock through the wait: every
# other submission committed pending as busy, and nothing was planned or
# launched until her backend was terminated (an audit).
. "$(dirname "$0")/../lib.sh"

reset_cluster
user_roles e2e_alice e2e_bob

release() {
	q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'e2e_alice'" >/dev/null
	wait "$stalled" 2>/dev/null
	ghost_standby off
}
ghost_standby on
trap release EXIT

PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "SET synchronous_commit = on" \
	-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('stalled', 'hard', 'a100', 1, '1 hour', 'true')" >"$T/alice.log" 2>&1 &
stalled=$!
wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE usename = 'e2e_alice' AND wait_event = 'SyncRep'\")\" = 1 ]"
ok $? "alice's commit waits for a synchronous standby (her synchronous_commit = on)"
is "$(sched_locks_of e2e_alice)" 0 "she does not hold the scheduler lock while she waits"

submits_at_once e2e_bob bob

release
trap - EXIT
wait_until 20 "[ \"\$(q \"SELECT status FROM mixdnn.jobs WHERE name = 'stalled'\")\" != pending ]"
ok $? "alice's job, committed once her wait was ended, is planned by the worker ($(q "SELECT status FROM mixdnn.jobs WHERE name = 'stalled'"))"
done_testing
