#!/usr/bin/env bash
# test/unit/run.sh BINARY... — the unit test binaries, MIXDNN_UNIT_JOBS at
# once (default 2, the cores of the machines we run on). Each one's output
# (stdout and stderr) is printed whole, in the order given, so a run reads
# as one after another; exits non-zero if any binary failed or did not
# finish (a crash, a signal: "not ok - NAME exited with N").
#
# The configuration LP's two files take most of the suite's time
# (test_typelp_basis 45 s, test_typelp 26 s, every other file under 7 s on
# 2026-12-07), so they start first; the rest follow in the order given.
set -u
jobs=${MIXDNN_UNIT_JOBS:-2}
out=$(mktemp -d /tmp/mixdnn-unit.XXXXXX)
pids=()
# Each binary runs in a session of its own (setsid, as e2e's shards), so
# that an interrupt or a CI time-out stops the binaries themselves, not
# only the shells around them.
stop() {
	local p
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	wait
}
trap 'rm -rf "$out"' EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM HUP

rank() {
	case "$(basename "$1")" in
	test_typelp_basis) echo 0 ;;
	test_typelp) echo 1 ;;
	*) echo 2 ;;
	esac
}

mapfile -t order < <(for t in "$@"; do echo "$(rank "$t") $t"; done | sort -s -k1,1n | cut -d' ' -f2-)
running=0
for t in "${order[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	b=$(basename "$t")
	setsid sh -c '"$1" >"$2" 2>&1; echo $? >"$3"' unit "$t" "$out/$b.out" "$out/$b.rc" &
	pids+=($!)
	running=$((running + 1))
done
wait

rc=0
for t in "$@"; do
	b=$(basename "$t")
	cat "$out/$b.out" 2>/dev/null
	r=$(cat "$out/$b.rc" 2>/dev/null || echo "no status")
	if [ "$r" != 0 ]; then
		echo "not ok - $b exited with $r"
		rc=1
	fi
done
exit "$rc"
