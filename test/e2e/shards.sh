#!/usr/bin/env bash
# test/e2e/shards.sh FILE... — run.sh's files in MIXDNN_E2E_JOBS shards at
# once (default 2), shard k with its own cluster on port MIXDNN_E2E_PORT + k
# (default 5497 + k) and its own scratch directory. Prints every file's
# output in the order given, then "e2e: N passed, N failed, N skipped"
# summed over the shards; exits non-zero if any shard failed.
#
# The split is fixed, not a shared queue, so a file always follows the same
# files on its cluster and a failure can be rerun as it happened
# ("# shard k: FILE..." lines name them): longest first, each onto the shard
# with the least time so far, from the weights below (seconds, measured on a
# clean clone; a file not listed counts 10). Only their balance depends on
# them. What a file uses outside its cluster and scratch directory must not
# collide with another file's: 00_cli.sh a default state directory under
# /tmp (of an account no other file runs a launcher as), 11_accounts.sh the
# OS accounts only it creates, 10_process_tree.sh pgrep/pkill of "sleep
# 3017".."sleep 3028" (markers no other file uses), 70_fork_fails.sh and
# 71_launcher_gone_while_waiting.sh an OS account each (mxe2e_nproc,
# mxe2e_nproc71), 13_pytorch.sh TCP ports
# from 29500, 14_foreign_keeper.sh processes of nobody, 81_gantt.sh
# Chromium's default profile; parts' cgroups are named by installation.
#
# Each shard is a session of its own (setsid): an interrupt or a CI
# time-out stops every shard's files, launchers and jobs, and run.sh's exit
# trap stops its cluster (a background job of a script ignores SIGINT).
set -u
cd "$(dirname "$0")" || exit 2
jobs=${MIXDNN_E2E_JOBS:-2}
port=${MIXDNN_E2E_PORT:-5497}

weight() {
	case "$(basename "$1" .sh)" in
	18_lease_keeper) echo 54 ;;
	52_supervisor_restart) echo 41 ;;
	20_bounded_waits) echo 66 ;;
	12_restart) echo 33 ;;
	04_server_restart) echo 23 ;;
	90_fair_share) echo 22 ;;
	10_process_tree | 47_two_launchers_one_dir) echo 20 ;;
	06_worker | 43_two_databases | 48_notify_lock | 51_drop_while_starting) echo 17 ;;
	09_rounds_skip_locked_rows) echo 16 ;;
	53_lost_cancel) echo 5 ;;
	54_keeper_handover) echo 18 ;;
	*) echo 10 ;;
	esac
}

declare -a load shard_of
for ((k = 0; k < jobs; k++)); do load[k]=0; done
# longest first; ties keep the order given
mapfile -t order < <(i=0
	for t in "$@"; do echo "$(weight "$t") $i $t"; i=$((i + 1)); done | sort -k1,1nr -k2,2n)
for line in "${order[@]}"; do
	read -r w i t <<<"$line"
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
