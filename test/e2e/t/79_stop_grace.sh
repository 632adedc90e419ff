#!/usr/bin/env bash
# A stopped job keeps its kill grace when its shell dies at the SIGTERM.
# A command such as "cd DIR && python train.py" or "python train.py | tee
# LOG" leaves /bin/sh waiting for the training (dash execs neither), and
# that shell dies at the SIGTERM at once: the keeper then SIGKILLed the
# rest 50 ms later, as it does for a command that ended on its own, and
# the training's SIGTERM handler (a checkpoint) never finished. Now the
# rest gets --kill-grace, after a cancel and after SIGTERM to the
# launcher; what ignores SIGTERM still ends at the grace's SIGKILL.
. "$(dirname "$0")/../lib.sh"

S=$(( $$ % 90000 + 10000 ))
# "checkpoints" for 1 s at SIGTERM, into FILE (its sleep is forked after the SIGTERM)
saver() {	# saver FILE
	echo "sh -c 'trap \"sleep 1; echo saved > $1; exit 0\" TERM; echo up > $1.up; while :; do sleep 0.2; done'"
}
ups() {	# ups FILE...: all of them started
	local f
	for f in "$@"; do [ -e "$f.up" ] || return 1; done
}

for mode in cgroup subreaper; do
	reset_cluster
	opts=()
	[ "$mode" = subreaper ] && opts=(--no-cgroups)
	start_launcher n1 --kill-grace 8 "${opts[@]}"
	a=$T/out/$mode-and b=$T/out/$mode-pipe c=$T/out/$mode-stop f=$T/out/$mode-frozen
	ja=$(submit grace hard a100 1 "cd /tmp && $(saver "$a")" '1 h')
	jb=$(submit grace hard a100 1 "$(saver "$b") | cat" '1 h')
	# ignores SIGTERM behind a shell that dies: SIGKILL at the end of the grace
	jc=$(submit stubborn hard a100 1 "cd /tmp && sh -c 'trap \"\" TERM; sleep 3079.$S'" '1 h')
	# stopped (SIGSTOP) when the cancel comes: it gets SIGCONT after its SIGTERM
	jf=$(submit frozen hard a100 1 "exec $(saver "$f")" '1 h')
	wait_until 15 "ups '$a' '$b' '$f' && pgrep -f 'sleep 3079.$S' >/dev/null"
	ok $? "$mode: four jobs run, three of them each behind a shell that waits for it"
	pkill -STOP -f "echo up > $f.up"
	cancelled_at=$(date +%s.%N)
	q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id IN ($ja, $jb, $jc, $jf)" >/dev/null
	wait_until 15 "[ -s '$a' ] && [ -s '$b' ]"
	ok $? "$mode: cancelled, 'cd DIR && ...' and '... | cat' finished their SIGTERM handlers" \
		|| diag "$(grep -E "job ($ja|$jb) " "$T/launcher-n1.log" | tail -4)"
	wait_until 15 "[ -s '$f' ]"
	ok $? "$mode: so did the job that was stopped (SIGSTOP), continued after its SIGTERM"
	wait_until 20 "! pgrep -f 'sleep 3079.$S' >/dev/null"
	ok $? "$mode: what ignores SIGTERM ends at the grace's SIGKILL"
	took=$(awk -v a="$cancelled_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	# a lower bound only, which no load can break: SIGKILL comes 8 s after the stop
	ok "$(awk -v t="$took" 'BEGIN { exit !(t >= 8) }'; echo $?)" "$mode: not before the grace of 8 s ($took s)"
	wait_until 10 "[ \"\$(grep -c 'reported exit code' '$T/launcher-n1.log')\" -ge 4 ]"
	ok $? "$mode: the four parts were reported once they were gone"

	# The launcher's own SIGTERM (systemctl stop) stops its parts the same way.
	jd=$(submit grace hard a100 1 "cd /tmp && $(saver "$c")" '1 h')
	wait_until 15 "ups '$c'"
	ok $? "$mode: another job runs"
	stop_launcher n1
	is "$(cat "$c" 2>/dev/null)" saved "$mode: SIGTERM to the launcher: its SIGTERM handler finished too"
	is "$(status_of "$jd")" failed "$mode: and the job was reported (failed, 143 from its shell)"
	mv "$T/launcher-n1.log" "$T/launcher-n1-$mode.log.old"
done

# The grace never outlasts the part's lease: a cancelled part is renewed no
# more, and what its shell left is killed at its keeper's lease deadline
# (the database may start the job elsewhere after it), not at a longer grace.
reset_cluster
set_setting mixdnn.lease_timeout 5s
start_launcher n1 --kill-grace 60
je=$(submit stubborn hard a100 1 "cd /tmp && sh -c 'trap \"\" TERM; sleep 3080.$S'" '1 h')
wait_until 15 "pgrep -f 'sleep 3080.$S' >/dev/null"
ok $? "a job ignoring SIGTERM behind a shell runs, with a lease of 5 s and a grace of 60 s"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $je" >/dev/null
wait_until 20 "! pgrep -f 'sleep 3080.$S' >/dev/null"
ok $? "cancelled, it ends at its lease deadline, not after the grace" \
	|| pkill -f "sleep 3080.$S"
set_setting mixdnn.lease_timeout ''
done_testing
