# test/sim/subtap.sh — sourced by the sub-suites that test/sim/run.sh runs
# as one test each (tenancy.sh, headroom.sh): TAP lines behind "# ", a
# counter, and a scratch directory $T removed on exit. Set NAME first.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${1:-$ROOT/bin/mixdnn-sim}
T=$(mktemp -d "${TMPDIR:-/tmp}/mixdnn-sim-$NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
N=0
FAILED=0

ok() {			# ok CONDITION-EXIT-CODE DESCRIPTION
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then echo "# ok $N - $2"; else FAILED=$((FAILED + 1)); echo "# not ok $N - $2"; fi
}
is() {			# is GOT EXPECTED DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got '$1', expected '$2'"; fi
}
json() {		# json FILE PYTHON-EXPRESSION-ON-d: of the last line's JSON object
	tail -n 1 "$1" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(eval(sys.argv[1]))' "$2"
}
