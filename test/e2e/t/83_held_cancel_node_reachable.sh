#!/usr/bin/env bash
# A plain user's open cancel of her running job holds its part's row, so
# the heartbeat does not renew that part and its lease runs out; the
# worker's mixdnn.expire_leases() leaves the job to her (its row is held).
# It also marked the part's node unreachable, at every cycle, a second
# after each heartbeat had cleared it: for as long as she kept the
# transaction open every other job stayed off the node's free GPUs ("no up
# node has a v100"). A node is marked only when its launcher has not
# called within a lease, or did not claim the part.
#
# The launcher of n3 is played by SQL (claim_parts and heartbeat_parts as
# the launcher role every half second): no process runs, so the users need
# no OS accounts.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.lease_timeout 4s
user_roles e2e_held_alice e2e_held_bob

beat() {	# the launcher of n3, until $T/stop-beat exists (60 s at most)
	local end=$(($(date +%s) + 60))
	rm -f "$T/stop-beat"
	while [ ! -f "$T/stop-beat" ] && [ "$(date +%s)" -lt "$end" ]; do
		PGUSER=$E2E_LAUNCHER_ROLE psql -X -q -A -t -c "SELECT count(*) FROM mixdnn.claim_parts('n3')" \
			-c "SELECT count(*) FROM mixdnn.heartbeat_parts('n3')" >/dev/null 2>&1
		sleep 0.5
	done
}
stop_beat() {
	touch "$T/stop-beat"
	wait "$BEAT"
}
n3_marked() {
	q "SELECT count(*) FROM mixdnn.gpu_nodes WHERE node = 'n3' AND unreachable_since IS NOT NULL"
}
v100_job() {	# v100_job ROLE NAME -> job_id: one v100 GPU, on n3 (the one v100 node)
	PGUSER=$1 q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
				 VALUES ('$2', 'hard', 'v100', 1, '1 hour', 'true') RETURNING job_id"
}

beat &
BEAT=$!
a=$(v100_job e2e_held_alice held)
wait_until 10 "[ \"\$(status_of $a)\" = running ]"
ok $? "alice's job runs on n3, claimed by its launcher"

PGUSER=e2e_held_alice session_open alice
session_send "BEGIN; UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $a; SELECT 'held';"
wait_until 10 "grep -q held '$T/alice.out'"
ok $? "alice opens a cancel of it and keeps the transaction open"

# past the part's lease (4 s) and several of the worker's cycles (1 s apart
# while a lease is past due), the launcher calling every half second
sleep 6
is "$(q "SELECT count(*) FROM mixdnn.job_parts WHERE job_id = $a AND lease_until < mixdnn.now()")" 1 \
	"her part's lease has run out (the heartbeat skips its locked row)"
marked=0
for _ in $(seq 1 15); do
	marked=$((marked + $(n3_marked)))
	sleep 0.2
done
is "$marked" 0 "n3 is not marked unreachable in 15 samples over 3 s: its launcher calls"
b=$(v100_job e2e_held_bob other)
like "$(status_of "$b")" '^(planned|launching|running)$' "bob's job is planned onto n3's free GPU at once" ||
	diag "$(q "SELECT status, reason FROM mixdnn.jobs WHERE job_id = $b")"
is "$(status_of "$a")" running "alice's job is left to her open transaction"

session_send "COMMIT;"
session_close
is "$(status_of "$a")" cancelled "her cancel commits"

wait_until 10 "[ \"\$(status_of $b)\" = running ]"
ok $? "bob's job runs"

# Held past its lease and then let go (the cancel rolled back) when the
# launcher has just stopped calling: the worker re-queues the job at its
# next cycle, and n3 is not marked for it, its launcher's last call being
# younger than a lease (sampled as often as psql allows for 2 s, before
# that call is a lease old).
PGUSER=e2e_held_bob session_open bob1
session_send "BEGIN; UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $b; SELECT 'held';"
wait_until 10 "grep -q held '$T/bob1.out'"
sleep 6
stop_beat
session_send "ROLLBACK;"
session_close
marked=0
end=$(($(date +%s%N) + 2000000000))
while [ "$(date +%s%N)" -lt "$end" ]; do
	marked=$((marked + $(n3_marked)))
done
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $b")" 2 "a lease run out under a row lock let go: the job is re-queued and launched again on n3"
is "$marked" 0 "... and n3 is not marked: its launcher called within a lease" ||
	diag "$(q "SELECT last_heartbeat, unreachable_since, mixdnn.now() FROM mixdnn.gpu_nodes WHERE node = 'n3'")"
beat &
BEAT=$!
wait_until 15 "[ \"\$(status_of $b)\" = running ]"
ok $? "... and bob's job runs again" ||
	diag "$(q "SELECT status, attempt, reason FROM mixdnn.jobs WHERE job_id = $b")"

# The rule's other half: a launcher that stopped calling, with a job's row
# held, still has its node marked once its last call is a lease old.
PGUSER=e2e_held_bob session_open bob
session_send "BEGIN; UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $b; SELECT 'held';"
wait_until 10 "grep -q held '$T/bob.out'"
stop_beat
wait_until 15 "[ \"\$(n3_marked)\" = 1 ]"
ok $? "n3's launcher silent for a lease: n3 is marked unreachable, the job's row held or not"
session_send "ROLLBACK;"
session_close
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $b" >/dev/null 2>&1
set_setting mixdnn.lease_timeout ''

done_testing
