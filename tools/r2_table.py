#!/usr/bin/env python3
"""r2_table.py - docs/model.md's table R2 from evaluation directories
(tools/evaluate.sh with EVAL_DIR and SIM_OPTS): mixdnn against the best of
the comparators of issue #13 (k8s, backfill, sjf, hgreedy, hsjf, k8s-any)
per trace family and estimate model.

  cp -a build/eval /tmp/ev-l01 && rm /tmp/ev-l01/runs/*-mixdnn.* /tmp/ev-l01/runs/*-mixdnn-noglpk.json
  EVAL_DIR=/tmp/ev-l01 EVAL_KEEP=1 SIM_OPTS="--critical-trade 0.1" EVAL_NO_REPORT=1 tools/evaluate.sh
  tools/r2_table.py "0.1=/tmp/ev-l01" "3=build/eval"

A group is a workload at one soft share; its ratio is the geomean over
the seeds that ran both mixdnn and every comparator, the family's the
geomean over its groups; "worst" and "> 1 %" / "> 3 %" count groups, as
issue #13 counts workloads. backfill ignores the job class and runs at
soft share 0 only (evaluate.sh): its result stands for every share.
"""
import json
import math
import os
import sys

COMPARATORS = ("k8s", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any")
SHARE_FREE = ("backfill",)


def load(d, wl, seed, share, est, policy):
    s = 0 if policy in SHARE_FREE else share
    try:
        with open(os.path.join(d, "runs", "%s-r%d-s%d-%s-%s.json" % (wl, seed, s, est, policy))) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    return r if r.get("finished") == r.get("jobs") and r.get("avg_jct_s") else None


def read_list(d, name):
    with open(os.path.join(d, name)) as f:
        return f.read().split()


def workloads(d):
    with open(os.path.join(d, "workloads.txt")) as f:
        return [line.split()[0] for line in f if line.strip()]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def group(d, wl, share, est, seeds):
    """(JCT ratio, makespan ratio, JCT ratio to GLPK off) of one workload and share, or None."""
    jct, mk, off = [], [], []
    for sd in seeds:
        m = load(d, wl, sd, share, est, "mixdnn")
        comps = [load(d, wl, sd, share, est, p) for p in COMPARATORS]
        if m is None or any(c is None for c in comps):
            continue
        jct.append(m["avg_jct_s"] / min(c["avg_jct_s"] for c in comps))
        mk.append(m["makespan_s"] / min(c["makespan_s"] for c in comps))
        n = load(d, wl, sd, share, est, "mixdnn-noglpk")
        if n is not None:
            off.append(m["avg_jct_s"] / n["avg_jct_s"])
    if not jct:
        return None
    return geomean(jct), geomean(mk), geomean(off) if off else None


def main():
    dirs = [a.split("=", 1) for a in sys.argv[1:]]
    if not dirs or any(len(x) != 2 for x in dirs):
        sys.exit("usage: r2_table.py LABEL=EVAL_DIR ...")
    print("| traces, estimates | variant | groups | avg JCT | worst | > 1 % | makespan | worst | > 3 % | JCT ÷ GLPK off |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    base = dirs[0][1]
    families = sorted({w.split("-")[0] for w in workloads(base)})
    for fam in families:
        for est in read_list(base, "estimates.txt"):
            for label, d in dirs:
                seeds = [int(s) for s in read_list(d, "seeds.txt")]
                rows = [g for wl in workloads(d) if wl.split("-")[0] == fam
                        for share in (0, 50, 100) for g in [group(d, wl, share, est, seeds)] if g]
                if not rows:
                    continue
                j = [r[0] for r in rows]
                m = [r[1] for r in rows]
                o = [r[2] for r in rows if r[2] is not None]
                print("| %s, %s | %s | %d | %.3f | %.3f | %d | %.3f | %.3f | %d | %s |" % (
                    fam, est, label, len(rows), geomean(j), max(j), sum(x > 1.01 for x in j),
                    geomean(m), max(m), sum(x > 1.03 for x in m), "%.3f" % geomean(o) if o else "—"))


if __name__ == "__main__":
    main()
