#!/usr/bin/python3
"""opt_lpbound.py - a lower bound on the average JCT of any workload.

No non-preemptive schedule of the trace on the cluster (in the simulator's
model: a job runs from its start to its end on one configuration, never
before its submission, and a type never runs more GPUs at once than it
has) has a smaller average JCT than the optimum of a time-indexed linear
program, the relaxation below. It is clairvoyant (true run times), so it
bounds every policy under any estimate noise, online or batch, and it
sees what the batch bound of opt_bound.py does not: release times, wide
jobs' GPUs and the types' capacity over time.

Time is cut into cells of d seconds. For a start S, let t = floor(S / d):
the job surely runs all of [t d + d, t d + p), so it holds its g GPUs for
the whole of cells t + 1 .. t + m - 1 (m = floor(p / d)) and for the
share f = p / d - m of cell t + m, and it ends no earlier than
max(t d + p, r + p). With x[j,c,t] the share of job j started in cell t on
configuration c:

    min  sum x[j,c,t] (max(t d + p_c, r_j + p_c) - r_j) / jobs
    s.t. sum_{c,t} x[j,c,t] = 1                       every job
         sum g_c occupancy(c, u - t) x[j,c,t] <= N_k   every type k, cell u < horizon
         x >= 0, t >= floor(r_j / d)

Starts at or after the horizon form one catch-all cell without capacity, so
a short horizon weakens the bound but never invalidates it. Every real
schedule gives a feasible x (its jobs' start cells) of no larger cost, so
the LP's optimum is a lower bound; a smaller d tightens it. The occupancy is
written with cumulative variables Z[j,c,t] = sum_{t' <= t} x[j,c,t'] (a few
non-zeros per column instead of p / d), solved by HiGHS' interior point
method (scipy, Debian's python3-scipy).

The configurations and run times come from the simulator itself
(bin/mixdnn-sim --configs-out: mx_job_configs, the non-dominated
configurations every policy's choice is or is dominated by), not from a
copy of its model; --check runs' jobs files are refused when a job ran on
a configuration that no listed one (same type, no more GPUs, no longer)
covers, or when a run's average JCT is below the bound.

--pins-out writes each job's configuration with the largest share in the
LP's solution: tools/opt_clairvoyant.py schedules the trace on those
configurations, a real schedule and so an upper bound on the optimum.

    opt_lpbound.py --configs CONFIGS.csv --nodes NODES.csv [--cell-s 60]
                   [--horizon-s H] [--check JOBS.csv ...] [--pins-out PINS.csv]
                   --out BOUND.json

docs/model.md, "An online optimum bound (table O)".
"""
import argparse
import collections
import csv
import json
import math
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from opt_bound import gpus_per_type	# GPUs per type of a NODES.csv, as the batch bound reads it

# HiGHS stops at a relative duality gap of about 1e-8; the bound is lowered
# by this share so that a solver tolerance never puts it above the optimum
SOLVER_SLACK = 1e-6


def die(msg):
    sys.exit("opt_lpbound.py: " + msg)


def read_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        die("%s: %s" % (path, e.strerror))


def read_configs(path, per_type):
    """name -> (submit_s, [(type, gpus, runtime_s), ...]) in file order."""
    jobs = collections.OrderedDict()
    for r in read_csv(path):
        try:
            cfg = (r["gpu_type"], int(r["gpus"]), float(r["runtime_s"]))
            submit = float(r["submit_s"])
        except (KeyError, ValueError):
            die("%s: not a --configs-out file of mixdnn-sim (row %r)" % (path, r))
        if cfg[0] not in per_type or cfg[1] < 1 or not cfg[2] > 0 or not submit >= 0:
            die("%s: %s has a configuration the cluster cannot hold: %s x %s for %s s"
                % (path, r["name"], cfg[1], cfg[0], cfg[2]))
        jobs.setdefault(r["name"], (submit, []))[1].append(cfg)
    if not jobs:
        die("%s: no job has a configuration" % path)
    return jobs


def check_run(path, jobs):
    """A run over the same jobs, each on a listed configuration or one a
    listed configuration dominates: its average JCT."""
    rows = read_csv(path)
    if {r["name"] for r in rows} != set(jobs):
        die("%s: not the same jobs as the configurations file" % path)
    total = 0.0
    for r in rows:
        if r["status"] != "completed":
            die("%s: %s did not complete (%s)" % (path, r["name"], r["status"]))
        run = float(r["runtime_s"])
        gpus = int(r["gpus"])
        # the configuration itself, or one that dominates it (mx_job_configs
        # drops a count of a type when a smaller one runs at least as fast;
        # a policy on the requested configuration may still run it): same
        # type, no more GPUs, no longer, so it could run instead from the
        # same start and end no later
        listed = [p for t, g, p in jobs[r["name"]][1] if t == r["gpu_type"] and g <= gpus]
        if not any(p <= run + 1e-6 * max(run, 1.0) + 1e-3 for p in listed):
            die("%s: %s ran %s s on %s x %s, a configuration or run time the bound does not cover"
                % (path, r["name"], r["runtime_s"], r["gpus"], r["gpu_type"]))
        total += float(r["jct_s"])
    return total / len(rows)


class Model:
    """The LP in SciPy's form: A_ub Z <= b_ub, A_eq Z = 1, 0 <= Z <= 1."""

    def __init__(self, types, cells):
        self.cap = {(k, u): i for i, (k, u) in enumerate((k, u) for k in types for u in range(cells))}
        self.cells = cells
        self.nub = len(self.cap)	# monotone rows follow the capacity rows
        self.ub = ([], [], [])		# rows, columns, values
        self.eq = ([], [], [])
        self.cost = []

    def add_config(self, job, tmin, d, r, gpus, p, k):
        """Columns Z[t], t = tmin .. cells (the last one the catch-all);
        returns the index of the last, Z[cells]: the configuration's share."""
        T = self.cells
        m = int(math.floor(p / d))
        f = p / d - m
        base = len(self.cost)

        def end(t):
            return max(t * d + p, r + p) - r
        for t in range(tmin, T + 1):
            col = base + t - tmin
            # x[t] = Z[t] - Z[t-1]: sum_t end(t) x[t] = sum_t (end(t) - end(t+1)) Z[t] + end(T) Z[T]
            self.cost.append(end(t) - (end(t + 1) if t < T else 0.0))
            if t > tmin:		# Z[t-1] - Z[t] <= 0
                self._ub(self.nub, col - 1, 1.0)
                self._ub(self.nub, col, -1.0)
                self.nub += 1
            if t < T:
                # occupancy(u) = Z[u-1] - Z[u-m] + f (Z[u-m] - Z[u-m-1])
                coef = collections.defaultdict(float)
                if m >= 2:
                    coef[t + 1] += gpus
                    coef[t + m] -= gpus
                if m >= 1:
                    coef[t + m] += f * gpus
                    coef[t + m + 1] -= f * gpus
                for u, v in coef.items():
                    if u < T and v != 0.0:
                        self._ub(self.cap[(k, u)], col, v)
        self.eq[0].append(job)
        self.eq[1].append(base + T - tmin)
        self.eq[2].append(1.0)
        return base + T - tmin

    def _ub(self, row, col, v):
        self.ub[0].append(row)
        self.ub[1].append(col)
        self.ub[2].append(v)

    def solve(self, per_type, njobs):
        n = len(self.cost)
        a_ub = sp.csr_matrix((self.ub[2], (self.ub[0], self.ub[1])), shape=(self.nub, n))
        b_ub = np.zeros(self.nub)
        for (k, u), i in self.cap.items():
            b_ub[i] = per_type[k]
        a_eq = sp.csr_matrix((self.eq[2], (self.eq[0], self.eq[1])), shape=(njobs, n))
        return linprog(np.array(self.cost), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.ones(njobs),
                       bounds=(0, 1), method="highs-ipm"), n, self.nub + njobs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--configs", required=True, help="mixdnn-sim --configs-out of the trace")
    ap.add_argument("--nodes", required=True, help="the cluster (GPUs per type)")
    ap.add_argument("--cell-s", type=float, default=60.0, help="cell length d (default 60 s)")
    ap.add_argument("--horizon-s", type=float, default=0.0,
                    help="capacity rows up to here (default: 1.25 x the latest finish of the --check runs)")
    ap.add_argument("--check", action="append", default=[], metavar="JOBS.csv",
                    help="a run's jobs file (mixdnn-sim --out): checked against the configurations and the bound")
    ap.add_argument("--pins-out", metavar="PINS.csv",
                    help="each job's configuration with the largest share in the LP's solution")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not a.cell_s > 0:
        die("--cell-s must be positive")

    per_type = gpus_per_type(a.nodes)
    jobs = read_configs(a.configs, per_type)
    runs = {path: check_run(path, jobs) for path in a.check}
    horizon = a.horizon_s
    if not horizon > 0:
        if not a.check:
            die("--horizon-s or at least one --check run is needed")
        horizon = 1.25 * max(float(r["finish_s"]) for path in a.check for r in read_csv(path))
    cells = int(math.ceil(horizon / a.cell_s))
    t0 = time.time()
    m = Model(sorted(per_type), cells)
    share_col = []		# per job, per configuration: the column of its share
    for i, (submit, cfgs) in enumerate(jobs.values()):
        # a submission at or after the horizon starts in the catch-all cell
        tmin = min(int(math.floor(submit / a.cell_s)), cells)
        share_col.append([m.add_config(i, tmin, a.cell_s, submit, g, p, k) for k, g, p in cfgs])
    res, ncols, nrows = m.solve(per_type, len(jobs))
    if res.status != 0:
        die("HiGHS did not solve the LP: %s" % res.message)
    lb = res.fun / len(jobs) * (1.0 - SOLVER_SLACK)
    for path, jct in runs.items():
        if jct < lb:
            die("%s: average JCT %.1f s is below the bound %.1f s: the bound is wrong" % (path, jct, lb))
    out = {"jobs": len(jobs), "cell_s": a.cell_s, "horizon_s": cells * a.cell_s,
           "columns": ncols, "rows": nrows, "solve_s": round(time.time() - t0, 1),
           "avg_jct_lb_s": lb, "checked_runs": len(runs)}
    with open(a.out, "w") as f:
        f.write(json.dumps(out) + "\n")
    if a.pins_out:
        write_pins(a.pins_out, jobs, share_col, res.x)


def write_pins(path, jobs, share_col, x):
    """Each job's configuration with the largest share (ties: the first listed)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "gpu_type", "gpus", "runtime_s", "share"])
        for (name, (_, cfgs)), cols in zip(jobs.items(), share_col):
            best = max(range(len(cfgs)), key=lambda c: (x[cols[c]], -c))
            k, g, p = cfgs[best]
            w.writerow([name, k, g, "%.3f" % p, "%.6f" % x[cols[best]]])


if __name__ == "__main__":
    main()
