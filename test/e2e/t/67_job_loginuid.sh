#!/usr/bin/env bash
# A job's audit login uid (/proc/self/loginuid) is its account's, as a
# login's is (pam_loginuid): not the launcher's, and not unset, which the
# job itself could then set to root's or another user's uid, so that the
# kernel's audit log would name that user for what it does.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to create an OS user and run a root launcher"
[ -w /proc/self/loginuid ] || skip_all "the kernel has no audit login uid (/proc/self/loginuid)"
reset_cluster
id -u mxe2e_alice >/dev/null 2>&1 || useradd -m -s /bin/sh mxe2e_alice
user_roles mxe2e_alice
uid=$(id -u mxe2e_alice)
chmod 1777 "$T/out"
# The launcher as a service would start: with an unset login uid, where it can.
cat /proc/self/loginuid >"$T/launcher-loginuid"
start_launcher n1
start_launcher n2
q "SET ROLE mxe2e_alice; INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('auid', 'hard', 'a100', 1, '1 s', \$c\${ echo \"before=\$(cat /proc/self/loginuid)\"
	if (echo 0 >/proc/self/loginuid) 2>/dev/null; then echo set; else echo refused; fi
	echo \"after=\$(cat /proc/self/loginuid)\"; } >$T/out/auid.txt\$c\$)" >/dev/null
wait_until 20 '[ "$(unfinished)" = 0 ]'
ok $? "the job finished"
got=$(tr '\n' ' ' <"$T/out/auid.txt" 2>/dev/null)
is "$got" "before=$uid refused after=$uid " "the job's login uid is its account's ($uid), and it cannot set it to root's (launcher's: $(cat "$T/launcher-loginuid"))"
stop_all_launchers
done_testing
