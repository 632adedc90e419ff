#!/usr/bin/env python3
"""Summarise tools/bench/targets.sh output files (JSON lines, # comments).

    python3 tools/bench/targets_table.py FILE.jsonl [FILE.jsonl ...]

One row per run: variant, dist, W, G, seed, wall p50/p95/max and CPU p95 of
a round (ms), objective, heuristic objective, whole_gap and wct_gap (the
delay gap) in %, the heuristic's delay gap, solver of the last round and
how many of the rounds used GLPK's plan.
"""
import json
import sys


def pct(x):
    return "nan" if x is None else "%.2f" % (100 * x)


def ms(x):
    return "nan" if x is None else "%.3f" % x


print("\t".join(["variant", "dist", "W", "G", "seed", "wall_p50", "wall_p95", "wall_max", "cpu_p95",
                 "objective", "heur_objective", "whole_gap%", "delay_gap%", "heur_delay_gap%",
                 "glpk_rounds", "solver"]))
for path in sys.argv[1:]:
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        d = json.loads(line)
        print("\t".join([d.get("variant", "?"), d["dist"], str(d["waiting"]), str(d["gpus"]), str(d["seed"]),
                         ms(d["solve_ms_p50"]), ms(d["solve_ms_p95"]), ms(d["solve_ms_max"]), ms(d["cpu_ms_p95"]),
                         "%.3f" % d["objective"], "%.3f" % d["heuristic_objective"],
                         pct(d["whole_gap"]), pct(d["wct_gap"]), pct(d["heuristic_wct_gap"]),
                         "%d/%d" % (d["glpk_rounds"], d["rounds"]), d["solver"]]))
