#!/usr/bin/env bash
# A job that runs past its planned end keeps its GPUs: the job planned after
# it comes due (the worker's timer), cannot start, is re-planned, and starts
# only once the first one has finished.
. "$(dirname "$0")/../lib.sh"

reset_cluster
for n in n1 n2 n3; do start_launcher "$n"; done

long=$(submit overruns hard v100 2 "$(job_cmd 6)" '1 s')
next=$(submit waits hard v100 2 "$(job_cmd 1)" '1 s')
wait_until 10 "[ -f '$T/out/$long-1-0.env' ]"
ok $? "the first job runs on n3's two GPUs"
# Not "at" its planned end: on a busy machine the first job may already be
# past it, and the second re-planned for later.
is "$(q "SELECT planned_start >= (SELECT planned_end FROM mixdnn.jobs WHERE job_id = $long) FROM mixdnn.jobs WHERE job_id = $next")" t \
	"the second is planned no earlier than the first one's planned end"
sleep 2.5
is "$(q "SELECT status FROM mixdnn.jobs WHERE job_id = $long")" running "past its planned end the first job still runs"
is "$(q "SELECT count(*) FROM mixdnn.gpu_holds WHERE job_id = $long")" 2 "and holds its GPUs"
is "$(status_of "$next")" planned "the second job still waits"
ok "$([ "$(q "SELECT count(*) FROM mixdnn.rounds WHERE event = 'due'")" -ge 1 ]; echo $?)" \
	"the worker found it due, could not place it and had it re-planned"
wait_until 20 '[ "$(unfinished)" = 0 ]'
ok $? "both finished"
is "$(q "SELECT string_agg(status, ',' ORDER BY job_id) FROM mixdnn.jobs")" "completed,completed" "both completed"
is "$(gpu_overlaps)" "" "the second started only after the first had ended"
done_testing
