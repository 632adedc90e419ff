#!/usr/bin/env bash
# tools/mutate.sh — mutation check: puts each deliberate bug of
# tools/mutants.txt, one at a time, into a throwaway copy of the tree,
# builds and installs it and runs the fast suites (unit regress pgtap sim
# diff). A mutant some suite fails on is killed; one every suite passes
# survived: a rule no test guards. See docs/testing.md.
#
#   tools/mutate.sh [-f MUTANTS_FILE] [-s "SUITES"] [NAME ...]
#   tools/mutate.sh -n        only check that every mutant still applies to
#                             its file (no build, no suite; the unit suite
#                             runs this, so a mutant the code moved away from
#                             fails CI instead of silently checking nothing).
#                             Skipped while a mutant is applied (below).
#
# Builds and installs into the PostgreSQL of MIXDNN_PG_BINDIR (as
# test/run_tests.sh does) and runs its cluster on MIXDNN_MUTATE_PORT
# (default: MIXDNN_TEST_PORT, else 5499). When done it reinstalls the
# unmutated copy, so that installation is left as it found it. Not part of
# test/run_tests.sh: one mutant costs a build and a suite run.
# Exit status: 0 when every mutant was killed, 1 when one survived or no
# longer applies (STALE), 2 when the unmutated copy itself fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MUTANTS=$ROOT/tools/mutants.txt
SUITES="unit regress pgtap sim diff"
APPLY_ONLY=0
while getopts "f:s:n" opt; do
	case $opt in
		f) MUTANTS=$OPTARG ;;
		s) SUITES=$OPTARG ;;
		n) APPLY_ONLY=1 ;;
		*) echo "usage: $0 [-n] [-f MUTANTS_FILE] [-s \"SUITES\"] [NAME ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ "$APPLY_ONLY" = 1 ]; then
	# In the copy a mutant is applied to, its own substitution (and any
	# other on the same text) no longer changes its file: the check would
	# fail the unit suite for every mutant, so that each read as killed
	# by unit whatever the tests did. It is a check of the unmutated tree.
	if [ -n "${MIXDNN_MUTANT_APPLIED:-}" ]; then
		echo "mutate: $MIXDNN_MUTANT_APPLIED is applied: the check that every mutant applies is skipped"
		exit 0
	fi
	bad=0
	n=0
	while IFS=$'\t' read -r name file expr; do
		case $name in ''|'#'*) continue ;; esac
		n=$((n + 1))
		if ! perl -0pe "$expr" "$ROOT/$file" | cmp -s - "$ROOT/$file"; then
			continue
		fi
		echo "mutate: STALE $name: the substitution does not change $file" >&2
		bad=1
	done <"$MUTANTS"
	[ "$bad" = 0 ] && echo "mutate: all $n mutants apply"
	exit "$bad"
fi
export MIXDNN_TEST_PORT=${MIXDNN_MUTATE_PORT:-${MIXDNN_TEST_PORT:-5499}}

WORK=$(mktemp -d /tmp/mixdnn-mutate.XXXXXX)
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
COPY=$WORK/tree
LOGS=${MIXDNN_MUTATE_LOGS:-$WORK/logs}
mkdir -p "$COPY" "$LOGS"

# The tree as committed plus uncommitted edits, without build outputs.
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 tar cf - ) | tar xf - -C "$COPY" || exit 2

# run_suites LOG: the fast suites in the copy; prints the suites that
# failed and the pgTAP files among them ("build" when it did not get as
# far as running them).
run_suites() {
	(cd "$COPY" && bash test/run_tests.sh $SUITES) </dev/null >"$1" 2>&1
	if grep -q '^failed suites:' "$1"; then
		printf '%s %s\n' "$(sed -n 's/^failed suites: *//p' "$1")" \
			"$(grep -oE 'test/pgtap/[0-9a-z_]+\.sql +\(Wstat' "$1" | sed 's|.*test/pgtap/||; s| .*||' |
				tr '\n' ' ' | sed 's/^\(.\)/(pgtap: \1/; s/ $/)/')"
	elif ! grep -q '^suites: [0-9]* passed, 0 failed' "$1"; then
		echo build
	fi
}

echo "mutate: baseline (no mutant), suites: $SUITES"
base=$(run_suites "$LOGS/baseline.log")
if [ -n "$base" ]; then
	echo "mutate: the unmutated copy fails ($base); see $LOGS/baseline.log" >&2
	[ "$LOGS" = "$WORK/logs" ] && tail -40 "$LOGS/baseline.log" >&2
	exit 2
fi

survived=0
stale=0
total=0
printf '%-26s %-8s %s\n' MUTANT RESULT "FAILED SUITES"
while IFS=$'\t' read -r name file expr; do
	case $name in ''|'#'*) continue ;; esac
	[ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name" && continue
	total=$((total + 1))
	cp "$COPY/$file" "$WORK/orig"
	if ! perl -0pi -e "$expr" "$COPY/$file" || cmp -s "$COPY/$file" "$WORK/orig"; then
		printf '%-26s %-8s %s\n' "$name" STALE "the substitution does not match $file"
		stale=$((stale + 1))
		cp "$WORK/orig" "$COPY/$file"
		continue
	fi
	failed=$(MIXDNN_MUTANT_APPLIED=$name run_suites "$LOGS/$name.log")
	cp "$WORK/orig" "$COPY/$file"
	if [ -n "$failed" ]; then
		printf '%-26s %-8s %s\n' "$name" killed "$failed"
	else
		printf '%-26s %-8s %s\n' "$name" SURVIVED "-"
		survived=$((survived + 1))
	fi
done <"$MUTANTS"

# Leave MIXDNN_PG_BINDIR with the unmutated build installed.
(cd "$COPY" && MIXDNN_SKIP_APT=1 bash tools/setup.sh) >"$LOGS/reinstall.log" 2>&1 ||
	echo "mutate: could not reinstall the unmutated build; see $LOGS/reinstall.log" >&2

echo "mutate: $total mutants, $((total - survived - stale)) killed, $survived survived, $stale stale"
[ $survived -eq 0 ] && [ $stale -eq 0 ]
