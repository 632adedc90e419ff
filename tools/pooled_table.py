#!/usr/bin/env python3
"""pooled_table.py RUNS... - table U of docs/model.md: MixDNN against the best
comparator per workload over several sets of runs, pooled, and each
comparator put to the same per-workload test against the other five.

Each RUNS is a directory of result files WL.LABEL.json, as written by
tools/opt_bench.sh (OPT_DIR/runs: the defaults as "lp", GLPK off as
"noglpk") or tools/fresh_bench.sh (FRESH_DIR/seed-N/runs: "mixdnn",
"nomilp"); the labels are taken from whichever the directory holds.
--label NAME reads another variant's results as MixDNN's (e.g. w60).
--by REGEX (repeatable) adds a table of the pooled workloads whose names
match each expression (e.g. -s80-x: the generated workloads with 80 %
soft jobs and exact estimates).
Geomeans of the ratios; a workload counts above the goal's limits when
its average JCT is more than 1 % or its makespan more than 3 % above the
best comparator's.
"""
import argparse
import json
import math
import os
import re
import sys

COMP = ["k8s", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any"]


def gm(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def load(path):
    with open(path) as f:
        d = json.load(f)
    if d["unfinished"] != 0:
        sys.exit("pooled_table.py: %s left %d jobs unfinished" % (path, d["unfinished"]))
    if d["avg_jct_s"] is None:
        sys.exit("pooled_table.py: %s finished no job (its averages are null)" % path)
    return d["avg_jct_s"], d["makespan_s"]


def labels(runs, label):
    """MixDNN's and GLPK off's labels in this directory."""
    names = os.listdir(runs)
    mine = label or ("lp" if any(n.endswith(".lp.json") for n in names) else "mixdnn")
    off = "noglpk" if any(n.endswith(".noglpk.json") for n in names) else "nomilp"
    return mine, off


def one_set(runs, label):
    mine, off = labels(runs, label)
    wls = sorted({n.split(".")[0] for n in os.listdir(runs) if n.endswith(".hsjf.json")})
    rows = []
    for wl in wls:
        r = {p: load(os.path.join(runs, "%s.%s.json" % (wl, p))) for p in COMP + [mine, off]}
        rows.append((r[mine], r[off], {p: r[p] for p in COMP}, wl))
    if not rows:
        sys.exit("pooled_table.py: no workload in %s" % runs)
    return rows


def summary(rows):
    j = [m[0] / min(c[0] for c in cs.values()) for m, _, cs, _ in rows]
    k = [m[1] / min(c[1] for c in cs.values()) for m, _, cs, _ in rows]
    oj = [m[0] / o[0] for m, o, _, _ in rows]
    ok = [m[1] / o[1] for m, o, _, _ in rows]
    return (len(rows), gm(j), max(j), sum(x > 1.01 for x in j), gm(k), max(k),
            sum(x > 1.03 for x in k), gm(oj), gm(ok))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--label", help="MixDNN's results under this label (default lp or mixdnn)")
    ap.add_argument("--by", action="append", default=[], metavar="REGEX",
                    help="also a row for the pooled workloads whose names match (repeatable)")
    a = ap.parse_args()
    sets = [(r, one_set(r, a.label)) for r in a.runs]
    print("| runs | workloads | JCT ÷ best | worst | > +1 % | makespan ÷ best | worst | > +3 % | JCT ÷ GLPK off | makespan ÷ GLPK off |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r, rows in sets + [("**pooled**", [x for _, rows in sets for x in rows])]:
        print("| %s | %d | %.3f | %.3f | %d | %.3f | %.3f | %d | %.3f | %.3f |" % ((r,) + summary(rows)))
    print()
    print("| policy | workloads with JCT > +1 % | with makespan > +3 % | JCT, geomean | makespan, geomean |")
    print("|---|---:|---:|---:|---:|")
    pool = [x for _, rows in sets for x in rows]
    for p in COMP + ["mixdnn"]:
        j, k = [], []
        for m, _, cs, _ in pool:
            mine = m if p == "mixdnn" else cs[p]
            others = [v for q, v in cs.items() if q != p]
            j.append(mine[0] / min(v[0] for v in others))
            k.append(mine[1] / min(v[1] for v in others))
        name = "**mixdnn** (against all six)" if p == "mixdnn" else p
        print("| %s | %d | %d | %.3f | %.3f |" % (name, sum(x > 1.01 for x in j), sum(x > 1.03 for x in k), gm(j), gm(k)))
    if a.by:
        print()
        print("| workloads matching | workloads | JCT ÷ best | worst | > +1 % | makespan ÷ best | worst | > +3 % | JCT ÷ GLPK off | makespan ÷ GLPK off |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for rx in a.by:
            rows = [x for x in pool if re.search(rx, x[3])]
            if rows:
                print("| `%s` | %d | %.3f | %.3f | %d | %.3f | %.3f | %d | %.3f | %.3f |" % ((rx,) + summary(rows)))


if __name__ == "__main__":
    main()
