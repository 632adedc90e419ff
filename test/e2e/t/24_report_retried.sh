#!/usr/bin/env bash
# A part's exit code is reported until the database takes it, however long
# its finish() fails (disk full, a statement timeout): the launcher backs
# off, never drops the result. Before, it gave up after three errors; the
# database still listed the part as running, reconcile then gave it up as
# "claimed here but not running", and a job that had exited 0 ran again.
. "$(dirname "$0")/../lib.sh"

reset_cluster
set_setting mixdnn.lease_timeout 6s
# finish() fails (SQLSTATE 53100) while the flag row exists; a sequence
# (not rolled back with the error) counts the calls.
q "SET client_min_messages = warning; DROP TABLE IF EXISTS public.e2e_fail_flag; DROP SEQUENCE IF EXISTS public.e2e_finish_calls;
   CREATE TABLE public.e2e_fail_flag (x int); INSERT INTO public.e2e_fail_flag VALUES (1);
   CREATE SEQUENCE public.e2e_finish_calls;
   CREATE FUNCTION public.e2e_fail_finish() RETURNS trigger LANGUAGE plpgsql AS \$\$
   BEGIN
     IF EXISTS (SELECT FROM public.e2e_fail_flag) THEN
       PERFORM nextval('public.e2e_finish_calls');
       RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = '53100';
     END IF;
     RETURN NEW;
   END \$\$;
   CREATE TRIGGER e2e_fail_finish BEFORE UPDATE ON mixdnn.job_parts FOR EACH ROW
     WHEN (NEW.state = 'completed') EXECUTE FUNCTION public.e2e_fail_finish();" >/dev/null
start_launcher n3 --heartbeat-interval 0.5

job=$(submit once hard v100 2 "$(job_cmd 1 0)" '5 s')
calls() { q "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM public.e2e_finish_calls"; }
logs() { cat "$T"/launcher-n3.log; }
# Four failed reports: one more than the three after which the launcher gave up.
wait_until 90 '[ "$(calls)" -ge 4 ]'
ok $? "finish() failed four times ($(calls) calls)" || diag "$(logs | tail -5)"
ok "$(logs | grep -q "job $job attempt 1: exit code 0 not reported yet"; echo $?)" "the launcher says it will try again"
is "$(status_of "$job")" running "the job stays running while its result waits"
is "$(q "SELECT count(*) FROM mixdnn.job_parts WHERE job_id = $job AND attempt > 1")" 0 "no second attempt was claimed"

q "DELETE FROM public.e2e_fail_flag" >/dev/null
wait_until 90 "[ \"\$(status_of $job)\" = completed ]"
ok $? "once finish() works the job completes ($(status_of "$job"))"
is "$(q "SELECT exit_code, attempt FROM mixdnn.jobs WHERE job_id = $job")" "0|1" "with attempt 1's exit code 0"
ok "$([ ! -e "$T/out/$job-2-0.env" ]; echo $?)" "and it never ran again"
is "$(logs | grep -c "job $job attempt 1: reported exit code 0")" 1 "reported once"

stop_all_launchers
q "DROP TRIGGER e2e_fail_finish ON mixdnn.job_parts; DROP FUNCTION public.e2e_fail_finish();
   DROP TABLE public.e2e_fail_flag; DROP SEQUENCE public.e2e_finish_calls" >/dev/null
set_setting mixdnn.lease_timeout ''
done_testing
