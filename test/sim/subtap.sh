# test/sim/subtap.sh — sourced by the sub-suites that test/sim/run.sh runs
# as one test each (tenancy.sh, headroom.sh, batchbound.sh, lpbound.sh): TAP lines behind "# ", a
# counter, a scratch directory $T removed on exit, refused and gen_data. Set NAME first.
PY=/usr/bin/python3		# Debian's Python, with python3-scipy (tools/setup.sh)
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
# fake_runs DIR HSJF K8S LP: a tools/opt_bench.sh directory for
# tools/opt_table.py with one workload w1 of 3 jobs and the average JCTs of
# its hsjf, k8s and lp (mixdnn) runs; DIR/bounds is left for the test
fake_runs() {
	mkdir -p "$1/runs" "$1/bounds"
	printf 'w1 c hsjf hsjf\nw1 c k8s k8s\nw1 c lp mixdnn\n' >"$1/runs.txt"
	fake_run "$1/runs/w1.hsjf.json" "$2"
	fake_run "$1/runs/w1.k8s.json" "$3"
	fake_run "$1/runs/w1.lp.json" "$4"
}
fake_run() {	# fake_run FILE AVG: a simulator result of 3 finished jobs
	printf '{"finished": 3, "avg_jct_s": %s, "makespan_s": 1000, "p99_jct_s": 900, "avg_jct_hard_s": %s, "solve_ms_p95": 1}\n' "$2" "$2" >"$1"
}
refused() {	# refused PATTERN DESCRIPTION COMMAND...: COMMAND exits non-zero saying PATTERN
	pat=$1 desc=$2
	shift 2
	"$@" >"$T/refused.out" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q "$pat" "$T/refused.out"
	ok $? "$desc (exit $rc)"
}
# gen_data: the shared data's types, profiles and small cluster into
# $T/types.csv, $T/gp.csv and $T/gn.csv, $DATA set; 1 when there is no data
gen_data() {
	DATA=$ROOT/../shared/data
	[ -d "$DATA/gavel" ] || DATA=/work/shared/data
	[ -d "$DATA/gavel" ] || return 1
	python3 "$ROOT/tools/mixdnn_data.py" --data "$DATA" types --out "$T/types.csv"
	python3 "$ROOT/tools/mixdnn_data.py" --data "$DATA" profiles --out "$T/gp.csv"
	python3 "$ROOT/tools/mixdnn_data.py" --data "$DATA" nodes --preset small --out "$T/gn.csv"
}
# scipy_or_stop TOOL: the summary and exit when $PY cannot import scipy
scipy_or_stop() {
	$PY -c 'import scipy.optimize' 2>/dev/null && return 0
	echo "# SKIP: $PY has no scipy (Debian package python3-scipy; tools/setup.sh installs it): $1 not tested"
	echo "# $NAME: $((N - FAILED)) passed, $FAILED failed"
	[ $FAILED -eq 0 ]
	exit
}
# fast_slow_types: $T/types.csv with a type "fast" (speed 1) and "slow" (0.5)
fast_slow_types() {
	printf 'gpu_type,speed\nfast,1.0\nslow,0.5\n' >"$T/types.csv"
}
