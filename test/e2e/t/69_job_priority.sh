#!/usr/bin/env bash
# A job does not inherit what favours the launcher's CPU time: a unit's
# Nice=-5 or a real-time policy (CPUSchedulingPolicy=rr) goes back to nice
# 0 and SCHED_OTHER, a real-time I/O class (IOSchedulingClass=realtime) to
# none, which is what its account could ask for itself.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to start a launcher at nice -5 and real time"
reset_cluster
MIXDNN_LAUNCHER_REAL=$MIXDNN_LAUNCHER
# nice -n is relative: to nice -5 whatever the test's own (a CI run under nice 10)
adj=$((-5 - $(nice)))
printf '#!/bin/sh\nexec nice -n %s %s "$@"\n' "$adj" "$MIXDNN_LAUNCHER_REAL" >"$T/nice-launcher"
chmod 755 "$T/nice-launcher"
rt=0
chrt -r 1 true 2>/dev/null && rt=1
if [ "$rt" = 1 ]; then
	printf '#!/bin/sh\nexec chrt -r 1 ionice -c 1 nice -n %s %s "$@"\n' "$adj" "$MIXDNN_LAUNCHER_REAL" >"$T/nice-launcher"
fi
MIXDNN_LAUNCHER=$T/nice-launcher start_launcher n1
MIXDNN_LAUNCHER=$T/nice-launcher start_launcher n2
wait_until 5 "grep -q listening '$T/launcher-n1.log'"
stat_of() {	# stat_of PID: nice and policy (fields 19 and 41 of /proc/PID/stat)
	sed 's/.*) //' /proc/"$1"/stat | awk '{ print "nice=" $17 " policy=" $39 }'
}
lstat=$(stat_of "$(launcher_pid n1)")
ok "$(grep -q '^nice=-5 ' <<<"$lstat"; echo $?)" "the launcher runs at nice -5 ($lstat)"
submit prio hard a100 1 "sed 's/.*) //' /proc/self/stat | awk '{ print \"nice=\" \$17 \" policy=\" \$39 }' > $T/out/prio.txt; ionice -p \$\$ > $T/out/ionice.txt" >/dev/null
wait_until 20 '[ "$(unfinished)" = 0 ]'
ok $? "the job finished"
is "$(cat "$T/out/prio.txt" 2>/dev/null)" "nice=0 policy=0" "the job runs at nice 0, SCHED_OTHER (launcher: $lstat, real time tried: $rt)"
if [ "$rt" = 1 ]; then
	lio=$(ionice -p "$(launcher_pid n1)")
	like "$(cat "$T/out/ionice.txt" 2>/dev/null)" '^none' "the job's I/O class is not the launcher's real-time one ($lio)"
else
	skip 1 "real-time scheduling is not allowed here"
fi
stop_all_launchers
done_testing
