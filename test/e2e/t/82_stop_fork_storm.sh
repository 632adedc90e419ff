#!/usr/bin/env bash
# A job that forks as fast as it can while it is stopped: four spawners,
# deaf to SIGTERM, each forking every 20 ms a child that leaves its session
# and a chain of ten short-lived processes, and never reaping one, so thousands
# of orphans and zombies come to the keeper. The part must end at the
# grace's cgroup.kill (2 s here) plus the kernel's time to end it: the
# keeper has to go on reading its launcher and running its timers while
# the orphans come (docs/launcher.md, "A part that forks without end is
# stopped on time"). The job runs as an account of its own.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to create an OS user and run a root launcher"
command -v perl >/dev/null || skip_all "needs perl"
user=mxe2e_storm
id -u "$user" >/dev/null 2>&1 || useradd -m -s /bin/sh "$user"
# a machine's leftover of a run killed half-way
pkill -KILL -u "$user" 2>/dev/null
reset_cluster
user_roles "$user"
chmod 1777 "$T/out"
beat=$T/out/storm-beat
# TERM ignored everywhere; each spawner writes the time to the beat file
# every 10 forks and forks at most MAX children, each leaving a zombie of
# the spawner and a sleeper for 30 s (8 MAX processes of the four), and the
# chain's CHAIN ended links, zombies of the keeper until it reaps them:
# about 6 000 processes at the cancel with this keeper; with one that reaped
# too slowly, all of the kernel's default 32 768 pids soon after. So the
# file runs alone (shards.sh). Everything ends by itself after 180 s.
cat >"$T/out/storm.pl" <<'EOF'
use POSIX ();
my ($beat, $max, $chain) = @ARGV;
$SIG{TERM} = 'IGNORE';
my $end = time + 180;
for my $s (1 .. 4) {
	next if fork;
	my $n = 0;
	while (time < $end && $n < $max) {
		my $pid = fork;
		if (defined $pid && $pid == 0) {
			POSIX::setsid();
			for (1 .. $chain) { my $p = fork; POSIX::_exit(0) if $p; last unless defined $p }
			sleep 30;
			POSIX::_exit(0);
		}
		if (++$n % 10 == 0 && open(my $h, '>', "$beat.$s")) { print $h time, "\n"; close $h }
		select(undef, undef, undef, 0.02);
	}
	POSIX::_exit(0);
}
sleep 1 while time < $end;
EOF
chmod 644 "$T/out/storm.pl"
count() { local n; n=$(pgrep -c -u "$user" 2>/dev/null); echo "${n:-0}"; }

start_launcher n1 ${MIXDNN_E2E_STORM_OPTS:-}
job=$(q "SET ROLE $user; INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('storm', 'hard', 'a100', 1, '1 h', \$c\$exec perl $T/out/storm.pl $beat ${MIXDNN_E2E_STORM_FORKS:-1500} ${MIXDNN_E2E_STORM_CHAIN:-10}\$c\$) RETURNING job_id")
wait_until 90 "[ \"\$(count)\" -ge ${MIXDNN_E2E_STORM_MIN:-5000} ]"
ok $? "the storm runs ($(count) processes of $user)"
grep -q "gets a cgroup under" "$T/launcher-n1.log" || diag "no cgroup per part here: the subreaper's walk is measured"
diag "$(count) processes of $user at the cancel"
stopped_at=$(date +%s.%N)
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $job" >/dev/null
# generous: the grace (2 s) plus what a loaded machine adds
bound=${MIXDNN_E2E_STORM_BOUND:-15}
wait_until "$bound" '[ "$(count)" = 0 ]'
ok $? "cancelled, every process of the storm is gone within $bound s ($(count) left)"
took=$(awk -v a="$stopped_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
diag "from the cancel to no process left: $took s"
latest=$(cat "$beat".* 2>/dev/null | sort -n | tail -1)
diag "the spawners' last beat: $((${latest:-0} - ${stopped_at%.*})) s after the cancel"
wait_until 20 "[ \"\$(status_of $job)\" = cancelled ] && grep -q 'job $job attempt 1: reported exit code' '$T/launcher-n1.log'"
ok $? "the launcher reported the part's end"
pkill -KILL -u "$user" 2>/dev/null
stop_all_launchers
done_testing
