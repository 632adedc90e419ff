#!/usr/bin/env bash
# A round never waits for another transaction's row lock (a multi-row user
# UPDATE locking in another order would deadlock with it, a user's
# SELECT ... FOR UPDATE would hold up every submitter): it leaves a locked
# job's plan alone, plans everyone else, and the worker re-plans the locked
# job in a retry round once its locker is done. In both plan modes.
. "$(dirname "$0")/../lib.sh"

for mode in commit worker; do
	reset_cluster
	set_setting mixdnn.plan_mode "$mode"

	# z holds all 8 A100s for an hour (no launcher: it stays launching); x waits for them.
	z=$(submit z hard a100 8 true '1 hour')
	wait_until 10 "[ \"\$(status_of $z)\" = launching ]"
	ok $? "$mode: z was planned and launched on all eight A100s"
	x=$(submit x hard a100 8 true '1 hour')
	wait_until 10 "[ \"\$(status_of $x)\" = planned ]"
	ok $? "$mode: x is planned behind z"
	x_start=$(q "SELECT planned_start FROM mixdnn.jobs WHERE job_id = $x")

	# A user transaction keeps x's row locked for 4 s.
	psql -X -q -c "BEGIN; SELECT 1 FROM mixdnn.jobs WHERE job_id = $x FOR UPDATE; SELECT pg_sleep(4); COMMIT" >/dev/null &
	locker=$!
	wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'\")\" = 1 ]"
	ok $? "$mode: the locker holds x's row"

	# y, shorter and more urgent, moves x's planned start; its round must not
	# wait for the locker (in commit mode: its INSERT must not).
	r0=$(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%retry%'")
	t0=$(date +%s.%N)
	y=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, priority, command)
	       VALUES ('y', 'hard', 'a100', 8, '10 min', 20, 'true') RETURNING job_id")
	t1=$(date +%s.%N)
	ok "$(awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 2) }'; echo $?)" \
		"$mode: the submission commits while x's row is locked"
	wait_until 2 "[ \"\$(status_of $y)\" = planned ]"
	ok $? "$mode: y is planned while x's row is still locked"
	is "$(q "SELECT planned_start = '$x_start' FROM mixdnn.jobs WHERE job_id = $x")" t \
		"$mode: x keeps its old plan while locked"
	alive "$locker"
	ok $? "$mode: the locker was still running then"

	wait "$locker"
	# About one retry round a second while the row stays locked, not a
	# worker spinning on it (its own round's wake-up used to start the next
	# retry at once: thousands in 4 s).
	retries=$(( $(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%retry%'") - r0 ))
	ok "$([ "$retries" -le 12 ]; echo $?)" "$mode: $retries retry rounds while x's row was locked for 4 s (at most 12)"
	wait_until 5 "[ \"\$(q \"SELECT x.planned_start >= y.planned_end FROM mixdnn.jobs x, mixdnn.jobs y WHERE x.job_id = $x AND y.job_id = $y\")\" = t ]"
	ok $? "$mode: after the locker's commit a retry round moved x behind y"
	ok "$([ "$(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%retry%'")" -ge 1 ]; echo $?)" \
		"$mode: a round answered the retry event"
done

set_setting mixdnn.plan_mode ''

# A reason that changes alone (idle GPUs come or go while the plan stands)
# is rewritten like a plan, but a locked row's new reason waits for the
# next round: it starts no retry round (docs/model.md, "Reasons").
reset_cluster
z=$(submit z hard a100 8 true '1 hour')
wait_until 10 "[ \"\$(status_of $z)\" = launching ]"
ok $? "reason: z holds all eight A100s"
# w ends sooner on an A100 in an hour (3 h) than on an idle V100 now (4 h)
w=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, min_gpus, max_gpus, duration, command)
       VALUES ('w', 'soft', 'a100', 1, 1, 1, '2 hours', 'true') RETURNING job_id")
like "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $w")" "; ends it no later than free v100 GPUs would\$" \
	"reason: w waits for an A100 and says why it leaves the V100s alone"
psql -X -q -c "BEGIN; SELECT 1 FROM mixdnn.jobs WHERE job_id = $w FOR UPDATE; SELECT pg_sleep(3); COMMIT" >/dev/null &
locker=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'\")\" = 1 ]"
ok $? "reason: the locker holds w's row"
retries0=$(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%retry%'")
v=$(submit v hard v100 2 true '1 hour')
wait_until 10 "[ \"\$(status_of $v)\" = launching ]"
ok $? "reason: v takes both V100s while w's row is locked"
like "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $w")" "no later than free v100" \
	"reason: w's locked row keeps its old reason"
wait "$locker"
sleep 2
is "$(q "SELECT count(*) FROM mixdnn.rounds WHERE event LIKE '%retry%'")" "$retries0" \
	"reason: no retry round for a reason alone"
u=$(submit u hard v100 2 true '1 minute')	# queued behind v: w's plan stays as it is
wait_until 5 "[ \"\$(q \"SELECT reason ~ '^waiting for 1 a100 GPU, expected free at [^;]*\$' FROM mixdnn.jobs WHERE job_id = $w\")\" = t ]"
ok $? "reason: the next round (u's arrival) gives w its new reason, without the V100s" ||
	diag "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $w")"
is "$(q "SELECT count(*) FROM mixdnn.plan_history WHERE job_id = $w")" 1 "reason: w's plan has one revision"
: "$u"

done_testing
