#!/usr/bin/env bash
# Stopping jobs: a cancel stops every process of the part (its cgroup, or
# every descendant of its keeper); one failed rank fails a
# multi-node job and stops the other ranks; exit codes and signals are
# reported; a launcher stopped with SIGTERM stops its jobs and reports them.
. "$(dirname "$0")/../lib.sh"

reset_cluster
for n in n1 n2 n3; do start_launcher "$n"; done

# --- cancel
job=$(submit cancel-me hard v100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "the job's process started"
pid=$(env_of "$job" 1 0 PID)
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job"
wait_until 5 "! alive $pid"
ok $? "cancel killed the job's process within 5 s"
is "$(status_of "$job")" cancelled "the job is cancelled"
is "$(q "SELECT state FROM mixdnn.job_parts WHERE job_id = $job")" cancelled "its part is cancelled"
is "$(q "SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = $job")" 0 "its GPU is free"
wait_until 5 "grep -q 'job $job attempt 1: reported exit code 143 (stale' '$T/launcher-n3.log'"
ok $? "the launcher's late report of the killed process was ignored as stale"

# --- one rank of a multi-node job fails
fail_rank1="if [ \"\$NODE_RANK\" = 1 ]; then sleep 1; exit 3; fi; $(job_cmd 60)"
job=$(submit gang-fails hard a100 6 "$fail_rank1" '60 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "rank 0 of the gang started"
pid=$(env_of "$job" 1 0 PID)
wait_until 15 "[ \"\$(status_of $job)\" = failed ]"
ok $? "the job failed when rank 1 exited with 3"
is "$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $job")" 3 "its exit code is rank 1's"
node1=$(q "SELECT node FROM mixdnn.job_parts WHERE job_id = $job AND node_rank = 1")
is "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $job")" "exited with code 3 on node $node1" "the reason names the node"
wait_until 8 "! alive $pid"
ok $? "rank 0's process was stopped"
is "$(q "SELECT string_agg(state || ':' || coalesce(exit_code::text, '-'), ',' ORDER BY node_rank) FROM mixdnn.job_parts WHERE job_id = $job")" \
	"failed:-,failed:3" "rank 1 failed with 3, rank 0 was failed with the job"

# --- exit codes: plain, by signal, no command
job_a=$(submit exits-7 hard a100 1 "exit 7")
job_b=$(submit killed hard a100 1 'kill -KILL $$')
job_c=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('no-command', 'hard', 'a100', 1, '1 s') RETURNING job_id")
wait_until 15 "[ \"\$(q \"SELECT count(*) FROM mixdnn.jobs WHERE job_id IN ($job_a, $job_b, $job_c) AND status = 'failed'\")\" = 3 ]"
ok $? "the three jobs failed"
is "$(q "SELECT string_agg(exit_code::text, ',' ORDER BY job_id) FROM mixdnn.jobs WHERE job_id IN ($job_a, $job_b, $job_c)")" \
	"7,137,127" "exit codes: 7, 128 + SIGKILL, 127 for a job without a command"

# --- a repeated or stale report changes nothing
is "$(q "SELECT mixdnn.finish($job_a, 0, 'n1')")" f "a second report of a finished job returns false"
is "$(q "SELECT mixdnn.finish($job_a, 0)")" f "also without the node"
is "$(status_of "$job_a")" failed "and leaves the job as it was"

# --- bad input gets clear errors
sqlstate() { psql -X -q -A -t -v VERBOSITY=sqlstate -c "$1" 2>&1 | sed -n 's/^ERROR: *//p'; }
is "$(sqlstate "SELECT * FROM mixdnn.claim('no-such-node')")" 42704 "claim for an unknown node: undefined_object"
is "$(sqlstate "SELECT mixdnn.heartbeat(NULL)")" 22004 "heartbeat(NULL): null_value_not_allowed"
is "$(sqlstate "SELECT mixdnn.finish(NULL, 0, 'n1')")" 22004 "finish with a NULL job: null_value_not_allowed"
is "$(sqlstate "SELECT mixdnn.finish(999999, 0, 'n1')")" P0002 "finish of an unknown job: no_data_found"
is "$(PGUSER=$E2E_LAUNCHER_ROLE sqlstate "SELECT mixdnn.expire_leases()")" 42501 "launchers may not expire leases"
is "$(PGUSER=$E2E_LAUNCHER_ROLE sqlstate "SELECT count(*) FROM mixdnn.jobs")" 42501 "nor read the jobs table"

# --- SIGTERM to a launcher stops its jobs and reports them
job=$(submit outlived hard v100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "a long job runs on n3"
pid=$(env_of "$job" 1 0 PID)
lpid=$(launcher_pid n3)
kill -TERM "$lpid"
wait_until 10 "! alive $lpid"
ok $? "the launcher exited after SIGTERM"
wait "$lpid"
is "$?" 0 "with status 0"
rm -f "$T/launcher-n3.pid"
wait_until 3 "! alive $pid"
ok $? "its job's process is gone"
is "$(q "SELECT status || ':' || exit_code FROM mixdnn.jobs WHERE job_id = $job")" "failed:143" \
	"the job was reported failed with 128 + SIGTERM"
done_testing
