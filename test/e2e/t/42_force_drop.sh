#!/usr/bin/env bash
# DROP EXTENSION with a job running is refused with a hint; a superuser's
# forced drop goes ahead, and the launcher stops the job's process.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"

reset_cluster
start_launcher n3
job=$(submit runs hard v100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "the job's process started"
pid=$(env_of "$job" 1 0 PID)

out=$(psql -X -q -v VERBOSITY=verbose -c "DROP EXTENSION mixdnn" 2>&1)
like "$out" "ERROR: +55006: cannot drop mixdnn: 1 job is launching or running" "DROP EXTENSION is refused (object_in_use)"
like "$out" "HINT: +Cancel them first" "with a hint"
out=$(psql -X -q -c "DROP SCHEMA mixdnn CASCADE" 2>&1)
like "$out" "cannot drop mixdnn" "so is DROP SCHEMA mixdnn CASCADE"
is "$(status_of "$job")" running "the job runs on"
alive "$pid"
ok $? "and so does its process"

out=$(psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" 2>&1)
ok $? "a superuser forces the drop with mixdnn.force_drop"
like "$out" "WARNING: +dropping mixdnn with 1 active job: $job" "which warns about the job"
wait_until 10 "! alive $pid"
ok $? "the launcher stopped the job's process"
grep -q "extension is gone" "$T/launcher-n3.log"
ok $? "and logged why"
reset_cluster
done_testing
