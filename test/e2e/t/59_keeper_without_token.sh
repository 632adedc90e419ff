#!/usr/bin/env bash
# A keeper started by a launcher before launch tokens (its socket named by
# job and attempt alone, jJOB-aATTEMPT.sock) is still adopted after the
# update, taken for the launch the database lists for its job, attempt
# and node, bound to that launch's token from then on, and its exit is
# counted. Such a keeper is made here from one of today's by renaming its
# socket while no launcher runs (its cgroup keeps today's name, which the
# adopting launcher then does not use: an old keeper's has the old name).
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n3
job=$(submit legacy hard v100 1 "$(job_cmd 8 5)" '8 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ] && [ \"\$(status_of $job)\" = running ]"
ok $? "(setup) the job runs on n3"
pid=$(env_of "$job" 1 0 PID)
token=$(q "SELECT pg_catalog.replace(launch_token::text, '-', '') FROM mixdnn.job_parts WHERE job_id = $job")

lpid=$(launcher_pid n3)
kill -USR2 "$lpid"
wait "$lpid"
rm -f "$T/launcher-n3.pid"
sock=$(ls "$T"/state-n3/*/"j$job-a1-t$token.sock" 2>/dev/null)
[ -S "$sock" ]
ok $? "the keeper's socket is named with its launch's token"
mv "$sock" "$(dirname "$sock")/j$job-a1.sock"

start_launcher n3
wait_until 10 "grep -q 'job $job attempt 1: adopted its keeper, of an earlier launcher version' '$T/launcher-n3.log'"
ok $? "the next launcher adopts a keeper whose socket names no token" || diag "$(tail -5 "$T/launcher-n3.log")"
wait_until 10 "grep -q 'job $job attempt 1: its keeper, of an earlier launcher version, is taken for launch $token' '$T/launcher-n3.log'"
ok $? "and takes it for the launch the database lists for the job, attempt and node"
alive "$pid"
ok $? "its process runs on"
wait_until 20 "[ \"\$(status_of $job)\" = failed ]"
ok $? "its end is reported"
is "$(q "SELECT attempt || ' ' || exit_code FROM mixdnn.jobs WHERE job_id = $job")" "1 5" \
	"and counted: attempt 1, the command's exit code 5"
done_testing
