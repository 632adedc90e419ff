#!/usr/bin/env bash
# A slow lookup of a job owner's OS account (NSS: LDAP, sssd) holds only
# that job's keeper, never the launcher: the lookup runs in the keeper, and
# the launcher goes on starting its other parts, heartbeating and renewing
# leases. Before, it ran in the launcher's loop, and every part of the node
# waited for it. The launcher here is the test build whose lookup of the
# owner mxe2e_slow takes 15 s (Makefile: TEST_LAUNCHERS); that role has no
# OS account, so its job then fails with 126 and the reason.
. "$(dirname "$0")/../lib.sh"

SLOW=$E2E_DIR/../../build/test/mixdnn-launcher-slow-lookup
[ -x "$SLOW" ] || skip_all "$SLOW is not built (make all)"
reset_cluster
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mxe2e_slow') THEN
	CREATE ROLE mxe2e_slow; END IF; END \$\$; GRANT mixdnn_user TO mxe2e_slow" >/dev/null
# both on n3 (v100, 2 GPUs), claimed by the same call
both=$(q "INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration, command) VALUES
	('slow', 'mxe2e_slow', 'hard', 'v100', 1, '60 s', 'true'),
	('other', current_user, 'hard', 'v100', 1, '60 s', \$cmd\$$(job_cmd 30)\$cmd\$) RETURNING job_id")
slow=$(sed -n 1p <<<"$both")
other=$(sed -n 2p <<<"$both")
start=$(date +%s)
MIXDNN_LAUNCHER=$SLOW start_launcher n3
wait_until 20 "[ -f '$T/out/$other-1-0.env' ]"
ok $? "the other job's command runs"
took=$(($(date +%s) - start))
ok "$([ "$took" -lt 10 ]; echo $?)" "within 10 s of the launcher's start ($took s), while the slow job's lookup takes 15 s"
is "$(status_of "$slow")" running "the slow job's part is running (its keeper looks the account up)"
wait_until 40 "[ \"\$(status_of $slow)\" = failed ]"
ok $? "once the lookup ends the slow job fails"
is "$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $slow")" 126 "with 126"
like "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $slow")" 'role "mxe2e_slow" has no OS account' "and the reason"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $other" >/dev/null
done_testing
