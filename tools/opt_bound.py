#!/usr/bin/python3
"""opt_bound.py - a lower bound on the average JCT of a batch workload.

For a trace whose jobs all arrive at once, no non-preemptive schedule on
the cluster (in the simulator's model) has a smaller average JCT than

    O = ( OPT1 + sum over wider jobs of their fastest run time ) / jobs

where OPT1 is the least total completion time of the one-GPU jobs alone.
Removing the wider jobs from any schedule leaves a schedule of the one-GPU
jobs, so their completion times sum to at least OPT1; a wider job ends no
earlier than its fastest run time. OPT1 is solved exactly: one-GPU jobs on
GPU types of different speeds are unrelated parallel machines, and
R || sum C_j is an assignment problem (Horn 1973; Bruno, Coffman and Sethi
1974): the job q-th from the end on a GPU delays q completions by its run
time, so a job put there costs q x its run time on that GPU's type.

Run times come from the simulator itself, not from a copy of its model:
one run per GPU type on a cluster of that type alone (tools/opt_bench.sh,
4000 GPUs, nothing waits) gives every job's run time on that type, and
the no-wait bound run gives every job's fastest run time. True durations
are used (the bound is clairvoyant, so it holds for any estimate noise).

    opt_bound.py --trace T.csv --nodes NODES.csv --on TYPE=JOBS.csv ...
                 --nowait JOBS.csv --out BOUND.json

docs/model.md, "A batch optimum bound (table M)".
"""
import argparse
import csv
import json
import math
import sys

import numpy as np
from scipy.optimize import linear_sum_assignment


def die(msg):
    sys.exit("opt_bound.py: " + msg)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def gpus_per_type(nodes):
    n = {}
    for r in read_csv(nodes):
        n[r["gpu_type"]] = n.get(r["gpu_type"], 0) + int(r["gpus"])
    return {t: g for t, g in n.items() if g > 0}


def one_gpu(job):
    """A job whose only GPU count is 1 (hard with 1 GPU, soft with max 1)."""
    if int(job["gpus"]) != 1:
        return False
    return job["model_class"] == "hard" or (job.get("max_gpus") or "1") == "1"


def completed(rows, what):
    """name -> row of every completed job of a run that nothing made wait."""
    out = {}
    for r in rows:
        if r["status"] != "completed":
            continue
        if float(r["wait_s"]) > 1e-6:
            die("%s: %s waited %s s: not a run of its own run time" % (what, r["name"], r["wait_s"]))
        out[r["name"]] = r
    return out


def run_times(trace, on, per_type, fastest):
    """p[i][t]: run time of one-GPU job i on type t (absent where it cannot run).

    The shortest of them must be the job's run time in the no-wait run (its
    fastest configuration): else the runs disagree on the model (say, one
    without the profiles) and the bound would be over other run times.
    """
    runs = {t: completed(read_csv(path), "run on %s" % t) for t, path in on.items()}
    missing = [t for t in per_type if t not in runs]
    if missing:
        die("no run on type(s) %s of the cluster" % ", ".join(missing))
    p = []
    for j in trace:
        row = {}
        for t in per_type:
            r = runs[t].get(j["name"])
            if r is not None:
                if r["gpu_type"] != t or int(r["gpus"]) != 1:
                    die("%s ran on %s x %s in the run on %s" % (j["name"], r["gpus"], r["gpu_type"], t))
                row[t] = float(r["runtime_s"])
        if not row:
            die("%s runs on no type of the cluster" % j["name"])
        best = float(fastest[j["name"]]["runtime_s"])
        if abs(min(row.values()) - best) > 1e-6 * max(best, 1.0):
            die("%s: its shortest run time over the per-type runs (%.3f s) is not its no-wait run time (%.3f s): "
                "the runs disagree" % (j["name"], min(row.values()), best))
        p.append(row)
    return p


def horn(p, per_type):
    """Least total completion time of the one-GPU jobs (an assignment).

    Identical GPUs of a type fill position q from the end on all of them
    before any takes position q + 1 (else moving a job lowers the cost), so
    a type holding at most len(p) jobs needs ceil(len(p) / GPUs) positions.
    """
    cols = []
    for t, n in per_type.items():
        for q in range(1, math.ceil(len(p) / n) + 1):
            cols += [(t, q)] * n
    cost = np.array([[q * row[t] if t in row else np.inf for t, q in cols] for row in p], dtype=float)
    try:
        r, c = linear_sum_assignment(cost)
    except ValueError:
        die("no feasible assignment of the one-GPU jobs")
    # a rectangular matrix may leave rows out: every job must have a place
    if len(r) != len(p):
        die("the assignment placed %d of %d one-GPU jobs" % (len(r), len(p)))
    return float(cost[r, c].sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trace", required=True)
    ap.add_argument("--nodes", required=True, help="the real cluster (GPUs per type)")
    ap.add_argument("--on", action="append", default=[], metavar="TYPE=JOBS.csv",
                    help="the simulator's jobs file of a run on this type alone")
    ap.add_argument("--nowait", required=True, help="jobs file of the no-wait bound run")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    trace = read_csv(a.trace)
    if not trace or len({float(j["submit_s"]) for j in trace}) != 1:
        die("%s: not a batch (jobs arrive at different times); the bound needs one arrival time" % a.trace)
    per_type = gpus_per_type(a.nodes)
    if any("=" not in x for x in a.on):
        die("--on takes TYPE=JOBS.csv")
    on = dict(x.split("=", 1) for x in a.on)
    fastest = completed(read_csv(a.nowait), "no-wait run")
    ones = [j for j in trace if one_gpu(j)]
    wide = [j for j in trace if not one_gpu(j)]
    for j in trace:
        if j["name"] not in fastest:
            die("%s did not complete in the no-wait run: it cannot be bounded" % j["name"])
    opt1 = horn(run_times(ones, on, per_type, fastest), per_type) if ones else 0.0
    wide_sum = sum(float(fastest[j["name"]]["runtime_s"]) for j in wide)
    out = {"jobs": len(trace), "one_gpu_jobs": len(ones), "wide_jobs": len(wide),
           "one_gpu_opt_sum_s": opt1, "wide_fastest_sum_s": wide_sum,
           "avg_jct_lb_s": (opt1 + wide_sum) / len(trace)}
    with open(a.out, "w") as f:
        f.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
