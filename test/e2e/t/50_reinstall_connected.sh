#!/usr/bin/env bash
# The extension is dropped and created again while a launcher stays
# connected. A job of the new installation (whose ids start again at 1)
# must start among the new installation's keepers: the next launcher after
# a SIGUSR2 restart adopts it. Before, the launcher kept the old
# installation's directory until it reconnected; the next launcher did not
# find the part, gave it up and started attempt 2 beside it, both on the
# same GPUs. And no part of the old installation is reported as the new
# job of the same id.
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n3
old=$(submit old hard v100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "[ -f '$T/out/$old-1-0.env' ] && [ \"\$(status_of $old)\" = running ]"
ok $? "a job of the first installation runs"
oldpid=$(env_of "$old" 1 0 PID)

reset_cluster	# a forced DROP EXTENSION and CREATE EXTENSION; the launcher stays connected
wait_until 15 "! alive $oldpid"
ok $? "the forced drop stops the old job's process"
rm -f "$T/out/$old-1-0.env"
new=$(submit new hard v100 1 "$(job_cmd 40)" '40 s')
is "$new" "$old" "the new installation's first job has the old one's id ($new)"
wait_until 15 "[ -f '$T/out/$new-1-0.env' ] && [ \"\$(status_of $new)\" = running ]"
ok $? "it runs, under the launcher that stayed connected"
pid=$(env_of "$new" 1 0 PID)
grep -q "the extension was re-installed" "$T/launcher-n3.log"
ok $? "which noticed the new installation before claiming it"

lpid=$(launcher_pid n3)
kill -USR2 "$lpid"
wait "$lpid"
rm -f "$T/launcher-n3.pid"
start_launcher n3
wait_until 10 "grep -q 'adopted 1 running job parts' '$T/launcher-n3.log'"
ok $? "after a SIGUSR2 restart the next launcher adopts the part"
sleep 3
is "$(q "SELECT attempt || ' ' || status FROM mixdnn.jobs WHERE job_id = $new")" "1 running" \
	"the job runs on in its first attempt"
ok "$([ ! -e "$T/out/$new-2-0.env" ]; echo $?)" "no second attempt started beside it"
alive "$pid"
ok $? "its process lives"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $new" >/dev/null
wait_until 15 "! alive $pid"
ok $? "and stops when cancelled"
# DROP EXTENSION and CREATE EXTENSION in two transactions, as a script or
# pg_restore --clean does. A worker whose cycle found the extension gone
# sleeps until its next; the new installation's first submission then
# wakes that worker, not the supervisor. Before, it exited there, and the
# job waited unlaunched for the supervisor's recheck, 30 s later.
q "SET client_min_messages = error; DROP EXTENSION mixdnn" >/dev/null
ok $? "DROP EXTENSION in a transaction of its own"
sleep 1	# the drop's commit wakes the worker, whose cycle finds the extension gone
q "SET client_min_messages = error; CREATE EXTENSION mixdnn;
	INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
	INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n9', 'v100', 1);
	INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('again', 'hard', 'v100', 1, '1 hour', 'true')" >/dev/null
ok $? "then CREATE EXTENSION and a submission in another"
wait_until 10 "[ \"\$(q \"SELECT status FROM mixdnn.jobs WHERE name = 'again'\")\" = launching ]"
ok $? "the worker launches the new installation's job at once (not after the supervisor's 30 s recheck)" ||
	diag "status: $(q "SELECT status FROM mixdnn.jobs WHERE name = 'again'")"
is "$(q "SELECT string_agg(event, ';' ORDER BY round_id) FROM mixdnn.rounds WHERE event LIKE '%start%'")" start \
	"and runs the round of a worker's start for it"
reset_cluster
done_testing
