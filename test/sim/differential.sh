#!/bin/sh
# test/sim/differential.sh — the extension and bin/mixdnn-sim make the same
# schedule (docs/simulator.md, "Comparing with the extension").
#
#   PGHOST=... PGPORT=... PGUSER=postgres test/sim/differential.sh [path/to/mixdnn-sim]
#
# Replays traces through the extension inside PostgreSQL on the virtual clock
# and through the simulator, and compares per job name the configuration
# (gpu_type, gpus), the start, finish and first planned start (tolerance 5 ms:
# the simulator prints 3 decimals, the database keeps microseconds), and the
# sequence of rounds that had waiting jobs (instant, number of waiting jobs,
# objective). Prints TAP and a closing "differential: N passed, N failed"
# line; exits 1 on failure. The work is done by test/sim/diff/replay.py
# (Python 3 standard library and psql); its header gives the replay step by
# step. Inputs, in test/sim/diff/ (cluster: 8 k80, 4 p100, 8 v100 GPUs on
# five nodes, with profiles):
#   trace.csv        20 jobs with Gavel-like profiles: hard and soft jobs,
#                    four arriving together at t=0, jobs waiting over an hour,
#                    soft jobs moved to another type or GPU count, priorities
#                    -10..20. Heuristic only (see the MILP below).
#   trace-exact.csv  20 jobs of the same kinds whose profiles are powers of two
#                    and whose times are whole seconds, so every run time and
#                    every time the planner sees is exact both as a double and
#                    in microseconds: the database and the simulator hand the
#                    planner bit-identical snapshots. Heuristic and MILP.
#   trace.csv again under each comparator of SPEC §6 (sjf, hgreedy, hsjf,
#                    k8s-any; SET mixdnn.policy in the database).
#
# Server: an existing one, given by PGHOST/PGPORT/PGUSER (a superuser), with
# shared_preload_libraries = 'mixdnn' and the extension installed. The test
# uses its own database, $MIXDNN_DIFF_DB (default mixdnn_diff), created afresh
# for every replay and dropped at the end, with mixdnn.launch_worker = off:
# the background worker would launch jobs on the real clock behind the
# replay's back (and, with mixdnn.plan_mode = worker, plan them).
#
# Determinism. The heuristic (--no-milp; SET mixdnn.use_milp = off) uses no
# clock. The MILP runs with a 30 s time limit on both sides (--time-limit-ms
# 30000; mixdnn.solver_time_limit = 30000) where every round of these traces
# solves in well under 100 ms; GLPK's branch and bound is deterministic, so a
# round that ends before its limit makes the same plan on every run. The test
# checks that no round on either side stopped at the limit (the solver name
# would say so); should one ever, the test fails rather than compare
# wall-clock luck. The MILP is compared on trace-exact.csv and
# microseconds.csv.
#
# Launch order: jobs due at one instant are placed in planned-start, then
# submit order on both sides (src/sim/simrun.c cmp_launch; src/pg/launch.c,
# the due-jobs query), so nodes and GPU indices are compared too
# (known-launch-order.csv makes two jobs due at one instant).
#
# Microseconds (microseconds.csv, MILP, nodes compared). The database keeps
# timestamps in whole microseconds (src/pg/clock.c mx_epoch_to_ts:
# planned_start, planned_end, hence started_at + run time), the simulator
# doubles (src/sim/simrun.c: s.now, job.submitted, job.prev_start and
# expected_end = epoch + finish, finish = now + duration / utility). This
# trace's durations of x.5 s and speeds give run times that are not whole
# microseconds, so the planner's inputs differ in the last digits on the two
# sides; where two MILP plans were tied to within that, GLPK took different
# ones. It agrees today and is an ordinary test: should it part again, the
# fix is to round those times in simrun.c as the database does, not to mark
# it a known difference.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${1:-$ROOT/bin/mixdnn-sim}

for tool in python3 psql; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "not ok 1 - $tool is installed"
		echo "1..1"
		echo "differential: 0 passed, 1 failed"
		exit 1
	fi
done

exec python3 "$ROOT/test/sim/diff/replay.py" --sim "$SIM" --data "$ROOT/test/sim/diff"
