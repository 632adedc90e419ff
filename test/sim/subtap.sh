# test/sim/subtap.sh — sourced by the sub-suites that test/sim/run.sh runs
# as one test each (tenancy.sh, headroom.sh, batchbound.sh): TAP lines behind "# ", a
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
