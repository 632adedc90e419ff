#!/usr/bin/env python3
"""fresh_table.py RUNS - mixdnn against the best comparator per workload of
tools/fresh_workloads.py (results of tools/fresh_bench.sh), and the geomeans."""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fresh_workloads as FW  # noqa: E402

COMP = ["k8s", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any"]


def main():
    runs = sys.argv[1]
    spec = {w["name"]: w for w in FW.parse_workloads()}

    def load(wl, lab):
        d = json.load(open(os.path.join(runs, "%s.%s.json" % (wl, lab))))
        if d["unfinished"] != 0:
            sys.exit("fresh_table.py: %s %s left %d jobs unfinished" % (wl, lab, d["unfinished"]))
        if d["avg_jct_s"] is None:
            sys.exit("fresh_table.py: %s %s finished no job (its averages are null)" % (wl, lab))
        return d

    print("| workload | cluster | arrivals | load | soft | est | GPUs | JCT ÷ best (best) | makespan ÷ best (best) | JCT ÷ GLPK off | makespan ÷ GLPK off |")
    print("|---|---|---|---:|---:|---|---|---:|---:|---:|---:|")
    lj, lm, ln, lnm = [], [], [], []
    for wl, w in spec.items():
        r = {p: load(wl, p) for p in COMP + ["mixdnn", "nomilp"]}
        bj = min(COMP, key=lambda p: r[p]["avg_jct_s"])
        bm = min(COMP, key=lambda p: r[p]["makespan_s"])
        mx = r["mixdnn"]
        rj = mx["avg_jct_s"] / r[bj]["avg_jct_s"]
        rm = mx["makespan_s"] / r[bm]["makespan_s"]
        nj = mx["avg_jct_s"] / r["nomilp"]["avg_jct_s"]
        nm = mx["makespan_s"] / r["nomilp"]["makespan_s"]
        lj.append(rj)
        lm.append(rm)
        ln.append(nj)
        lnm.append(nm)
        print("| %s | %s | %s | %g | %g | %s | %s | %.3f (%s) | %.3f (%s) | %.3f | %.3f |" % (
            wl, w["cluster"], w["arrivals"], w["load"], w["soft"], w["est"], w["gpus"], rj, bj, rm, bm, nj, nm))

    def gm(v):
        return math.exp(sum(map(math.log, v)) / len(v))

    print()
    print("Geomeans: JCT ÷ best %.3f, makespan ÷ best %.3f; JCT ÷ GLPK off %.3f, makespan ÷ GLPK off %.3f. "
          "Workloads with JCT ÷ best > 1.01: %d; makespan ÷ best > 1.03: %d (of %d)." % (
              gm(lj), gm(lm), gm(ln), gm(lnm), sum(x > 1.01 for x in lj), sum(x > 1.03 for x in lm), len(lj)))


if __name__ == "__main__":
    main()
