#!/usr/bin/env bash
# plan_mode worker: the worker's round never waits for a user's row lock
# (a multi-row user UPDATE locking in another order would deadlock with
# it). A round leaves a locked job's plan alone, plans everyone else, and a
# retry round re-plans the locked job once its locker is done.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.plan_mode worker

# Z holds all 8 A100s for an hour (no launcher: it stays launching); X waits for them.
z=$(submit z hard a100 8 true '1 hour')
wait_until 10 "[ \"\$(status_of $z)\" = launching ]"
ok $? "z was planned and launched on all eight A100s"
x=$(submit x hard a100 8 true '1 hour')
wait_until 10 "[ \"\$(status_of $x)\" = planned ]"
ok $? "x is planned behind z"
x_start=$(q "SELECT planned_start FROM mixdnn.jobs WHERE job_id = $x")

# A user transaction keeps x's row locked for 4 s.
psql -X -q -c "BEGIN; SELECT 1 FROM mixdnn.jobs WHERE job_id = $x FOR UPDATE; SELECT pg_sleep(4); COMMIT" >/dev/null &
locker=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'\")\" = 1 ]"
ok $? "the locker holds x's row"

# y, shorter and more urgent, moves x's planned start; the round that plans y
# must not wait for the locker.
y=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, priority, command)
       VALUES ('y', 'hard', 'a100', 8, '10 min', 20, 'true') RETURNING job_id")
wait_until 2 "[ \"\$(status_of $y)\" = planned ]"
ok $? "y is planned while x's row is still locked"
is "$(q "SELECT planned_start = '$x_start' FROM mixdnn.jobs WHERE job_id = $x")" t \
	"x keeps its old plan while locked"
alive "$locker"
ok $? "the locker was still running then"

wait "$locker"
wait_until 5 "[ \"\$(q \"SELECT x.planned_start >= y.planned_end FROM mixdnn.jobs x, mixdnn.jobs y WHERE x.job_id = $x AND y.job_id = $y\")\" = t ]"
ok $? "after the locker's commit a retry round moved x behind y"
ok "$([ "$(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%retry%'")" -ge 1 ]; echo $?)" \
	"a round answered the retry event"

set_setting mixdnn.plan_mode ''
done_testing
