#!/usr/bin/env bash
# A submission whose transaction also sends a NOTIFY (a plain user's
# choice) runs its round in the pre-commit callback, before PostgreSQL's
# PreCommit_Notify takes its server-wide NOTIFY lock: that lock wait comes
# with the scheduler lock held. Any role can hold the NOTIFY lock through
# its own commit: here an outsider whose NOTIFY commit waits for a
# synchronous standby that never answers (e2e 48). Before, the
# submission's commit waited for it with the scheduler lock held, without
# end: every other submission committed pending as busy and nothing was
# planned or launched (a review). Now the rest of that commit waits at
# most mixdnn.lock_timeout for a lock: the commit then fails, and the
# scheduler lock goes with it.
. "$(dirname "$0")/../lib.sh"

reset_cluster
user_roles e2e_alice e2e_bob
login_roles e2e_outsider

E2E_NOTIFY_HOLDER= alice=
release() {
	q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename IN ('e2e_outsider', 'e2e_alice')" >/dev/null
	[ -n "$E2E_NOTIFY_HOLDER" ] && wait "$E2E_NOTIFY_HOLDER" 2>/dev/null
	[ -n "$alice" ] && wait "$alice" 2>/dev/null
	ghost_standby off
}
trap release EXIT
ghost_standby on
hold_notify_lock e2e_outsider
ok $? "the outsider holds PostgreSQL's NOTIFY lock (its commit waits for a standby)"

timeout_ms=$(q "SELECT setting FROM pg_settings WHERE name = 'mixdnn.lock_timeout'")
PGUSER=e2e_alice timeout 60 psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN" \
	-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('notifying', 'hard', 'a100', 1, '1 hour', 'true')" \
	-c "NOTIFY e2e_alice_channel, 'submitted'" -c "COMMIT" >"$T/alice.log" 2>&1 &
alice=$!
wait_until 10 "[ \"\$(notify_locks_of e2e_alice waiting)\" = 1 ] || ! kill -0 $alice 2>/dev/null"
sleep $(((timeout_ms + 1500) / 1000))
is "$(sched_locks_of e2e_alice)" 0 \
	"alice's commit does not hold the scheduler lock beyond mixdnn.lock_timeout ($timeout_ms ms) behind the NOTIFY lock"
wait "$alice"
rc=$?
alice=
ok "$([ "$rc" -ne 0 ] && grep -q 'lock timeout' "$T/alice.log"; echo $?)" \
	"her commit fails at the lock timeout ($(tr '\n' ' ' <"$T/alice.log"))"
is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE name = 'notifying'")" 0 "and her job was not submitted"

submits_at_once e2e_bob bob
done_testing
