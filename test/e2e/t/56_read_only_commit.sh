#!/usr/bin/env bash
# A transaction made read-only after it submitted (SET transaction_read_only
# before COMMIT) cannot write its round's plans: the round failed ("cannot
# execute INSERT in a read-only transaction"; a WARNING to a superuser,
# nothing to a plain user) and the job waited, pending without a reason,
# until some later event's round. Its round is now left to the worker, as
# for a REPEATABLE READ transaction, which plans it right after the commit.
. "$(dirname "$0")/../lib.sh"

reset_cluster
user_roles e2e_alice
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN" \
	-c "INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, command) VALUES ('ro', 'v100', 1, '1 hour', 'true')" \
	-c "SET transaction_read_only = on" -c "COMMIT" >"$T/ro.log" 2>&1
ok $? "alice's submission, read-only at commit, commits" || diag "$(cat "$T/ro.log")"
wait_until 3 "[ \"\$(q \"SELECT status FROM mixdnn.jobs WHERE name = 'ro'\")\" != pending ]"
ok $? "... and the worker plans the job right after (status $(q "SELECT status FROM mixdnn.jobs WHERE name = 'ro'"))"

# A superuser's SET CONSTRAINTS ALL IMMEDIATE runs the round inside the
# transaction (the pgTAP tests' commit point): there too.
psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN" \
	-c "INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, command) VALUES ('ro-su', 'v100', 1, '1 hour', 'true')" \
	-c "SET transaction_read_only = on" -c "SET CONSTRAINTS ALL IMMEDIATE" -c "COMMIT" >"$T/rosu.log" 2>&1
! grep -q WARNING "$T/rosu.log"
ok $? "a superuser's immediate round in a read-only transaction does not run (no failed round's WARNING)" || diag "$(cat "$T/rosu.log")"
wait_until 3 "[ \"\$(q \"SELECT status FROM mixdnn.jobs WHERE name = 'ro-su'\")\" != pending ]"
ok $? "... and the worker plans the job after the commit"

psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" >/dev/null 2>&1
q "DROP ROLE e2e_alice" >/dev/null
done_testing
