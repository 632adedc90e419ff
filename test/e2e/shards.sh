#!/usr/bin/env bash
# test/e2e/shards.sh FILE... — run.sh's files in MIXDNN_E2E_JOBS shards at
# once (default 4), shard k with its own cluster on port MIXDNN_E2E_PORT + k
# (default 5500 + k: clear of the suite's cluster, 5499, the soak's, 5496,
# and the demonstration's, 5498) and its own scratch directory. Prints
# every file's output in the order given, then "e2e: N passed, N failed,
# N skipped" summed over the shards; exits non-zero if any shard failed.
#
# The split is fixed, not a shared queue, so a file always follows the same
# files on its cluster and a failure can be rerun as it happened
# ("# shard k: FILE..." lines name them): longest first, each onto the shard
# with the least time so far, from the weights below (seconds, measured on a
# clean clone with four shards; a file not listed counts 3). Only their
# balance depends on them. Four shards, not two: most files wait (leases,
# heartbeats, kill graces, timeouts) rather than compute, so on two cores
# four at once took the suite from 526 to 311 s with the same results.
# What a file uses outside its cluster and scratch directory must not
# collide with another file's: 00_cli.sh a default state directory under
# /tmp (of an account no other file runs a launcher as), 20_bounded_waits.sh
# the default one of node n3 (/run/mixdnn-launcher/n3, no other file's),
# 11_accounts.sh OS accounts it creates (67_job_loginuid.sh creates one of
# them, mxe2e_alice, if missing: each tolerates the other's useradd),
# 10_process_tree.sh pgrep/pkill of "sleep 3017".."sleep 3028", and
# 57_node_down_stops_parts.sh and 79_stop_grace.sh of "sleep 3117.S",
# "3079.S", "3080.S" with S their own process id (markers no other file
# uses), 70_fork_fails.sh and 71_launcher_gone_while_waiting.sh an OS
# account each (mxe2e_nproc, mxe2e_nproc71), 82_stop_fork_storm.sh one
# (mxe2e_storm; it runs alone, below), 13_pytorch.sh TCP ports from
# 29500, 80_metrics.sh TCP port PGPORT + 20000 (its shard's own),
# 78_connect_unanswered.sh one the kernel assigns,
# 14_foreign_keeper.sh processes of nobody, 81_gantt.sh Chromium's default
# profile; parts' cgroups are named by installation.
#
# Each shard is a session of its own (setsid): an interrupt or a CI
# time-out stops every shard's files, launchers and jobs, and run.sh's exit
# trap stops its cluster (a background job of a script ignores SIGINT).
set -u
cd "$(dirname "$0")" || exit 2
jobs=${MIXDNN_E2E_JOBS:-4}
port=${MIXDNN_E2E_PORT:-5500}

weight() {
	case "$(basename "$1" .sh)" in
	20_bounded_waits) echo 90 ;;
	40_dump_restore) echo 78 ;;
	62_launch_worker_reload) echo 63 ;;
	72_hung_backend) echo 57 ;;
	18_lease_keeper) echo 55 ;;
	71_launcher_gone_while_waiting) echo 44 ;;
	52_supervisor_restart) echo 41 ;;
	12_restart) echo 35 ;;
	10_process_tree | 78_connect_unanswered) echo 30 ;;
	06_worker | 79_stop_grace | 83_held_cancel_node_reachable) echo 26 ;;
	04_server_restart) echo 25 ;;
	90_fair_share) echo 24 ;;
	47_two_launchers_one_dir | 54_keeper_handover) echo 21 ;;
	44_failover) echo 19 ;;
	27_slow_lookup | 43_two_databases) echo 18 ;;
	09_rounds_skip_locked_rows | 20_waiting_limit_concurrent | 26_client_stall | 48_notify_lock | 51_drop_while_starting) echo 17 ;;
	70_fork_fails) echo 16 ;;
	03_lost_launcher | 50_reinstall_connected) echo 15 ;;
	60_tokenless_restored) echo 13 ;;
	84_drop_during_step) echo 12 ;;
	08_concurrent_writers | 42_force_drop) echo 11 ;;
	59_keeper_without_token | 76_submission_budget_concurrent) echo 9 ;;
	05_overrun | 13_pytorch) echo 8 ;;
	*) echo 3 ;;
	esac
}

# Files that load the whole machine, so that another file's bounds could
# not hold beside them: run by themselves once the shards are done, on the
# first shard's port. 82_stop_fork_storm.sh forks thousands of processes:
# beside 10_process_tree.sh it took nearly all of the kernel's pids.
alone() {
	case "$(basename "$1" .sh)" in
	82_stop_fork_storm) return 0 ;;
	esac
	return 1
}

declare -a load shard_of
for ((k = 0; k < jobs; k++)); do load[k]=0; done
# longest first; ties keep the order given
mapfile -t order < <(i=0
	for t in "$@"; do echo "$(weight "$t") $i $t"; i=$((i + 1)); done | sort -k1,1nr -k2,2n)
for line in "${order[@]}"; do
	read -r w i t <<<"$line"
	if alone "$t"; then
		shard_of[i]=alone
		continue
	fi
	best=0
	for ((k = 1; k < jobs; k++)); do [ "${load[k]}" -lt "${load[best]}" ] && best=$k; done
	shard_of[i]=$best
	load[best]=$((load[best] + w))
done

out=$(mktemp -d /tmp/mixdnn-e2e-shards.XXXXXX)
pids=()
stop_shards() {
	local k
	for k in "${!pids[@]}"; do kill -TERM -- "-${pids[k]}" 2>/dev/null; done
	wait
}
trap 'rm -rf "$out"' EXIT
trap 'stop_shards; exit 130' INT
trap 'stop_shards; exit 143' TERM HUP
for ((k = 0; k < jobs; k++)); do
	files=()
	i=0
	for t in "$@"; do
		[ "${shard_of[i]}" = "$k" ] && files+=("$t")
		i=$((i + 1))
	done
	[ "${#files[@]}" -gt 0 ] || continue
	echo "# shard $k (port $((port + k))): ${files[*]}"
	MIXDNN_E2E_SHARD=$k MIXDNN_E2E_PORT=$((port + k)) setsid bash run.sh "${files[@]}" >"$out/$k" 2>&1 &
	pids[k]=$!
done
rc=0
for k in "${!pids[@]}"; do wait "${pids[k]}" || rc=1; done
files=()
i=0
for t in "$@"; do
	[ "${shard_of[i]}" = alone ] && files+=("$t")
	i=$((i + 1))
done
if [ "${#files[@]}" -gt 0 ]; then
	echo "# alone (port $port): ${files[*]}"
	MIXDNN_E2E_SHARD=$jobs MIXDNN_E2E_PORT=$port setsid bash run.sh "${files[@]}" >"$out/$jobs" 2>&1 &
	pids[jobs]=$!
	wait "${pids[jobs]}" || rc=1
fi

# each file's block, in the order given: from its "# --- FILE" line to its
# "# FILE: ..." count line
for t in "$@"; do
	cat "$out"/* | awk -v t="$t" '$0 == "# --- " t { on = 1 } on { print } on && index($0, "# " t ": ") == 1 { exit }'
done
# a shard that stopped before its count (a cluster that did not start):
# what it printed, counted as one failure
early=0
for k in "${!pids[@]}"; do
	grep -q '^e2e: ' "$out/$k" && continue
	echo "not ok - shard $k stopped early:"
	sed 's/^/# /' "$out/$k"
	early=$((early + 1))
	rc=1
done
cat "$out"/* | awk -v early="$early" '/^e2e: / { p += $2; f += $4; s += $6 }
	END { printf "e2e: %d passed, %d failed, %d skipped\n", p, f + early, s }'
exit "$rc"
