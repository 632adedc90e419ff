#!/usr/bin/env bash
# A slow lookup of a job owner's OS account (NSS: LDAP, sssd) holds only
# that part's set-up: the lookup runs in the process that becomes the
# command, so neither the launcher (its other parts, claims, heartbeats)
# nor the part's keeper (the launcher's connection, lease renewals, a
# cancel) waits for it. Before, it ran in the launcher's loop, and every
# part of the node waited. The launcher here is the test build whose
# lookup of owners mxe2e_slow* takes 15 s (Makefile: TEST_LAUNCHERS), with
# a 5 s lease: a part whose keeper stopped reading for the lookup would be
# killed when it ran out.
. "$(dirname "$0")/../lib.sh"

SLOW=$E2E_DIR/../../build/test/mixdnn-launcher-slow-lookup
[ -x "$SLOW" ] || skip_all "$SLOW is not built (make all)"
reset_cluster
set_setting mixdnn.lease_timeout 5s
for r in mxe2e_slow mxe2e_slow_ok; do
	q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$r') THEN
		CREATE ROLE $r; END IF; END \$\$; GRANT mixdnn_user TO $r" >/dev/null
done
echo "mxe2e_slow_ok nobody" >"$T/usermap"
# On n1 (a100, 4 GPUs), claimed by one call in job order: the two slow
# jobs first (mxe2e_slow has no OS account; mxe2e_slow_ok is mapped to
# nobody), then the other.
ids=$(q "INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration, command) VALUES
	('slow-none', 'mxe2e_slow', 'hard', 'a100', 1, '60 s', 'true'),
	('slow-ok', 'mxe2e_slow_ok', 'hard', 'a100', 1, '60 s', 'true'),
	('other', current_user, 'hard', 'a100', 1, '60 s', \$cmd\$$(job_cmd 30)\$cmd\$) RETURNING job_id")
none=$(sed -n 1p <<<"$ids")
okjob=$(sed -n 2p <<<"$ids")
other=$(sed -n 3p <<<"$ids")
start=$(date +%s)
MIXDNN_LAUNCHER=$SLOW start_launcher n1 --user-map "$T/usermap"
wait_until 20 "[ -f '$T/out/$other-1-0.env' ]"
ok $? "the other job's command runs"
took=$(($(date +%s) - start))
ok "$([ "$took" -lt 10 ]; echo $?)" "within 10 s of the launcher's start ($took s), while the slow jobs' lookups take 15 s"
# 10 s into the lookups: the launcher heartbeats (every poll, 2 s here)
wait_until 12 "[ \$((\$(date +%s) - start)) -ge 10 ]"
is "$(q "SELECT mixdnn.now() - last_heartbeat < interval '5 s' FROM mixdnn.gpu_nodes WHERE node = 'n1'")" t \
	"the launcher heartbeats during the lookups"
is "$(status_of "$none"),$(status_of "$okjob")" running,running "both slow parts are still being set up"
ok "$(! grep -q "job $okjob attempt 1 rank 0: owner" "$T/launcher-n1.log"; echo $?)" \
	"and the mapped one has not found its account yet (the test build's lookup is slow)"
wait_until 40 "[ \"\$(status_of $none)\" = failed ] && [ \"\$(status_of $okjob)\" = completed ]"
ok $? "once the lookups end, the job without an account fails and the mapped one completes" ||
	diag "$(status_of "$none") $(status_of "$okjob"); $(tail -5 "$T/launcher-n1.log")"
is "$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $none")" 126 "the first with 126"
like "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $none")" 'role "mxe2e_slow" has no OS account' "and the reason"
is "$(q "SELECT exit_code, attempt FROM mixdnn.jobs WHERE job_id = $okjob")" "0|1" \
	"the second with 0, in its first attempt: its 15 s set-up outlived three 5 s leases"
grep -q "job $okjob attempt 1 rank 0: owner mxe2e_slow_ok is OS user nobody (uid $(id -u nobody))" "$T/launcher-n1.log"
ok $? "the launcher's log says whom it ran as"
is "$(q "SELECT extract(epoch FROM finished_at - claimed_at) >= 14 FROM mixdnn.job_parts WHERE job_id = $okjob")" t \
	"its part took the 15 s of its lookup"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $other" >/dev/null
set_setting mixdnn.lease_timeout ''

# A launcher whose log is a pipe with no reader left (a tee that exited, a
# lost journald stream) runs its jobs: it ignores SIGPIPE from its first
# line on (it died of its first log lines), and the part writes its line
# into that log before exec, with SIGPIPE still ignored (a review: with
# SIGPIPE back to its default there, every part died of it, exit 141).
PGUSER=$E2E_LAUNCHER_ROLE "$MIXDNN_LAUNCHER" --node n3 --poll-interval 2 --kill-grace 2 \
	--state-dir "$T/state-n3" "${E2E_MIN_UID[@]}" >/dev/null 2> >(exec true) &
echo $! >"$T/launcher-n3.pid"
job=$(submit piped hard v100 1 "$(job_cmd 1)" '5 s')
wait_until 30 "[ \"\$(status_of $job)\" = completed ] || [ \"\$(status_of $job)\" = failed ]"
is "$(status_of "$job"),$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $job")" completed,0 \
	"a launcher whose log lost its reader runs a job to completion" ||
	diag "$(q "SELECT status, exit_code, reason FROM mixdnn.jobs WHERE job_id = $job"); launcher $(kill -0 "$(launcher_pid n3)" 2>&1 && echo alive)"
done_testing
