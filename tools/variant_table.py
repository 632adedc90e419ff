#!/usr/bin/env python3
"""variant_table.py - one row of docs/model.md's tables C, D and G per
evaluation directory (tools/evaluate.sh with EVAL_DIR and SIM_OPTS):
mixdnn against the best of k8s, static and backfill in each of the 42 cells
(14 workloads x 3 soft shares) and the 21 classes of issue #4.

  EVAL_DIR=/tmp/ev-nu0 SIM_OPTS="--drain-margin 0" EVAL_NO_REPORT=1 tools/evaluate.sh
  tools/variant_table.py "nu 0=/tmp/ev-nu0" "default=build/eval"

Exact estimates; a cell's metric is the mean over the directory's seeds
(evaluate.sh's layout: runs/<workload>-r<seed>-s<share>-<estimates>-<policy>.json).
Makespan cells count as won within 0.05% (ties at the lower bound);
bounded slowdown = JCT / max(run time, 600 s), its p99 per cell and seed
(the mixdnn runs' .jobs.csv), mean over seeds, geomean over cells.
"""
import csv
import json
import math
import os
import sys

BASE = ("k8s", "static", "backfill")
SHARE_FREE = ("static", "backfill")     # evaluate.sh runs them at soft share 0 only


def seeds(d):
    with open(os.path.join(d, "seeds.txt")) as f:
        return [int(x) for x in f.read().split()]


def load(d, n, s, p):
    """The cell's runs of policy p, exact estimates: a dict of means over the seeds that ran."""
    runs = []
    for sd in seeds(d):
        path = os.path.join(d, "runs", "%s-r%d-s%d-exact-%s.json" % (n, sd, 0 if p in SHARE_FREE else s, p))
        try:
            with open(path) as f:
                runs.append(json.load(f))
        except (OSError, ValueError):
            pass
    runs = [r for r in runs if r.get("avg_jct_s") is not None]    # null: no job finished
    return {k: sum(r[k] for r in runs) / len(runs) for k in ("avg_jct_s", "makespan_s")} if runs else None


def p99_slowdown(d, n, s):
    vals = []
    for sd in seeds(d):
        path = os.path.join(d, "runs", "%s-r%d-s%d-exact-mixdnn.jobs.csv" % (n, sd, s))
        if not os.path.exists(path):
            continue
        xs = []
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["status"] == "completed":
                    xs.append(float(r["jct_s"]) / max(float(r["runtime_s"]), 600.0))
        xs.sort()
        if xs:
            vals.append(xs[min(len(xs) - 1, int(math.ceil(0.99 * len(xs))) - 1)])
    return sum(vals) / len(vals) if vals else float("nan")


def gmean_change(rs):
    return 100 * (math.exp(sum(math.log(r) for r in rs) / len(rs)) - 1)


def row(label, d):
    cells = []
    with open(os.path.join(d, "workloads.txt")) as f:
        names = [line.split()[0] for line in f if line.strip()]
    for n in names:
        for s in (0, 50, 100):
            cells.append((n, s))
    jr, mr, jw, mw, sd = [], [], 0, 0, []
    cls = {}
    for n, s in cells:
        m = load(d, n, s, "mixdnn")
        b = [load(d, n, s, p) for p in BASE]
        bj = min(x["avg_jct_s"] for x in b)
        bm = min(x["makespan_s"] for x in b)
        jr.append(m["avg_jct_s"] / bj)
        mr.append(m["makespan_s"] / bm)
        jw += m["avg_jct_s"] <= bj
        mw += m["makespan_s"] <= bm * 1.0005
        sd.append(p99_slowdown(d, n, s))
        key = ("pollux" if n.startswith("pollux-") else n, s)
        acc = cls.setdefault(key, {p: [0.0, 0.0] for p in ("mixdnn",) + BASE})
        for p, x in zip(("mixdnn",) + BASE, [m] + b):
            acc[p][0] += x["avg_jct_s"]
            acc[p][1] += x["makespan_s"]
    cw = sum(1 for a in cls.values()
             if a["mixdnn"][0] <= min(a[p][0] for p in BASE)
             and a["mixdnn"][1] <= min(a[p][1] for p in BASE) * 1.0005)
    return "| %s | %d/%d | %d/%d | %d/%d | %+.1f%% | %+.1f%% | %+.1f%% | %+.1f%% | %.1f |" % (
        label, jw, len(cells), mw, len(cells), cw, len(cls), gmean_change(jr),
        100 * (max(jr) - 1), gmean_change(mr), 100 * (max(mr) - 1),
        math.exp(sum(math.log(x) for x in sd) / len(sd)))


def main():
    print("| variant | JCT cells won | makespan cells ≤ | classes won | JCT geomean | worst "
          "| makespan geomean | worst | p99 bounded slowdown |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for a in sys.argv[1:]:
        label, _, d = a.partition("=")
        print(row(label, d))


if __name__ == "__main__":
    main()
