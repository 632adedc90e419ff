#!/usr/bin/env python3
"""opt_workloads.py - the generated workloads of docs/model.md ("Configuration LP").

Writes TRACE.csv files for bin/mixdnn-sim from the public data: job types and
their per-type throughputs from Gavel's matrix (PROFILES.csv), GPU counts and
durations from philly.csv (Philly's jobs, clamped to 1/2/4/8 GPUs and
2 min .. --max-duration), the reference type drawn in proportion to the cluster's GPUs
per type, and each job soft with probability --soft-share (soft: 1/2 .. 1 x
its requested count, any type). Arrivals are online (Poisson, offered load
--load of the cluster's GPU-seconds) or a batch (every job at time 0).
--sigma > 0 adds estimate_s = duration_s x lognormal(0, sigma) (what the user
asked for; planners plan with it, jobs run duration_s).

Standard library only; every random choice is seeded (--seed).
"""
import argparse
import csv
import math
import os
import random


def load_profiles(path):
    prof = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            prof.setdefault(r["model"], {})[(r["gpu_type"], int(r["gpus"]))] = float(r["throughput"])
    return prof


def load_nodes(path):
    per = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            per[r["gpu_type"]] = per.get(r["gpu_type"], 0) + int(r["gpus"])
    return per


def load_philly(data, rng, n, a_maxdur):
    rows = []
    with open(os.path.join(data, "pollux", "philly.csv"), newline="") as f:
        for r in csv.DictReader(f):
            d, g = float(r["duration"]), int(r["num_gpus"])
            if 120 <= d <= a_maxdur and g >= 1:
                rows.append((d, min(8, 1 << int(math.floor(math.log2(g))))))
    return [rows[rng.randrange(len(rows))] for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--profiles", required=True)
    ap.add_argument("--nodes", required=True)
    ap.add_argument("--jobs", type=int, default=240)
    ap.add_argument("--soft-share", type=float, default=0.5)
    ap.add_argument("--arrivals", choices=["online", "batch"], default="online")
    ap.add_argument("--load", type=float, default=1.0)
    ap.add_argument("--sigma", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-duration", type=float, default=6 * 3600.0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    rng = random.Random(a.seed)
    prof = load_profiles(a.profiles)
    per = load_nodes(a.nodes)
    types = sorted(per)
    models = sorted(m for m in prof if all(prof[m].get((t, 1), 0) > 0 for t in types))
    jobs = load_philly(a.data, rng, a.jobs, a.max_duration)
    total = sum(per.values())
    rows, work = [], 0.0
    for i, (dur, g) in enumerate(jobs):
        m = rng.choice(models)
        t = rng.choices(types, weights=[per[x] for x in types])[0]
        while g > 1 and prof[m].get((t, g), 1) <= 0:
            g //= 2
        g = min(g, per[t])
        soft = rng.random() < a.soft_share
        est = dur * math.exp(rng.gauss(0.0, a.sigma)) if a.sigma > 0 else dur
        rows.append([m, t, g, dur, soft, est])
        work += dur * g
    gap = work / (total * a.load) / len(rows)   # mean inter-arrival for the offered load
    t = 0.0
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "submit_s", "model", "model_class", "gpu_type", "gpus", "duration_s",
                    "min_gpus", "max_gpus", "allowed_types", "priority", "estimate_s"])
        for i, (m, ty, g, dur, soft, est) in enumerate(rows):
            if a.arrivals == "online" and i > 0:
                t += rng.expovariate(1.0 / gap)
            w.writerow(["j%04d" % i, "%.3f" % t, m, "soft" if soft else "hard", ty, g, "%.3f" % dur,
                        max(1, g // 2) if soft else "", g if soft else "", "", 0, "%.3f" % est])


if __name__ == "__main__":
    main()
