#!/usr/bin/env bash
# A job starts with no signal ignored, as at a login: not with what its
# keeper ignores, nor with what the launcher's own starter ignored (a
# script's "launcher &" ignores SIGINT and SIGQUIT, nohup SIGHUP; here
# also SIGUSR1 and SIGALRM), which stays ignored across exec.
. "$(dirname "$0")/../lib.sh"

reset_cluster
# started from a non-interactive shell with &: SIGQUIT (and SIGINT) ignored
( trap '' USR1 ALRM; start_launcher n1; start_launcher n2 )
lpid=$(launcher_pid n1)
wait_until 5 "grep -q listening '$T/launcher-n1.log'"
ign=$(awk '/^SigIgn:/ { print $2 }' /proc/"$lpid"/status)
# SIGQUIT 3, SIGUSR1 10, SIGALRM 14: bits 2, 9, 13
ok "$(( (0x$ign & 0x2204) == 0x2204 ? 0 : 1 ))" "the launcher runs with SIGQUIT, SIGUSR1 and SIGALRM ignored (SigIgn $ign)"
job=$(submit sigs hard a100 1 "awk '/^SigIgn:/ { print \$2 }' /proc/self/status > $T/out/sigign.txt")
wait_until 20 '[ "$(unfinished)" = 0 ]'
ok $? "the job finished"
is "$(cat "$T/out/sigign.txt" 2>/dev/null)" "0000000000000000" "the job ignores no signal"
stop_all_launchers
done_testing
