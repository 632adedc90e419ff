#!/usr/bin/env python3
"""opt_table.py - the tables of docs/model.md ("Configuration LP: measured")
from an tools/opt_bench.sh directory.

Per workload: each mixdnn variant's average JCT and makespan divided by the
best comparator's (the lowest over the comparators that ran), then geomeans
over the workloads, the worst workload, and the variant against --no-milp.
"""
import argparse
import json
import math
import os


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="build/opt")
    ap.add_argument("--per-workload", action="store_true")
    a = ap.parse_args()
    runs = {}
    with open(os.path.join(a.dir, "runs.txt")) as f:
        for line in f:
            p = line.split()
            path = os.path.join(a.dir, "runs", "%s.%s.json" % (p[0], p[2]))
            try:
                d = json.loads(open(path).read())
            except (OSError, ValueError):
                continue
            if d.get("avg_jct_s") is None:    # no job finished: no averages (null)
                continue
            runs.setdefault(p[0], {})[p[2]] = (d, p[2] == p[3])
    names = [n for n in runs]
    comps = sorted({l for n in names for l, (d, c) in runs[n].items() if c})
    variants = [l for l, (d, c) in runs[names[0]].items() if not c]
    print("comparators: %s" % " ".join(comps))
    rows = []
    for v in variants:
        rj, rm, rh = [], [], []
        for n in names:
            r = runs[n]
            if v not in r:
                continue
            bj = min(r[c][0]["avg_jct_s"] for c in comps if c in r)
            bm = min(r[c][0]["makespan_s"] for c in comps if c in r)
            rj.append(r[v][0]["avg_jct_s"] / bj)
            rm.append(r[v][0]["makespan_s"] / bm)
            if "noglpk" in r:
                rh.append(r[v][0]["avg_jct_s"] / r["noglpk"][0]["avg_jct_s"])
            if a.per_workload:
                best = min((r[c][0]["avg_jct_s"], c) for c in comps if c in r)
                print("%-16s %-8s jct %.3f (best %s %.0f s) makespan %.3f p95 %.2f ms" % (
                    n, v, rj[-1], best[1], best[0], rm[-1], r[v][0].get("solve_ms_p95", 0)))
        rows.append((v, geomean(rj), max(rj), sum(x > 1.01 for x in rj), geomean(rm), max(rm),
                     sum(x > 1.03 for x in rm), geomean(rh), len(rj),
                     max(runs[n][v][0].get("solve_ms_p95", 0) for n in names if v in runs[n])))
    print_table(rows)
    print()
    print("| variant | hard jobs' JCT / k8s's, geomean | worst | hard jobs' JCT / hsjf's, geomean | worst | p99 JCT / best comparator's p99, geomean |")
    print("|---|---:|---:|---:|---:|---:|")
    for v in variants:
        hk, hh, p99 = [], [], []
        for n in names:
            r = runs[n]
            if v not in r or not r[v][0].get("avg_jct_hard_s"):
                continue
            if "k8s" in r and r["k8s"][0].get("avg_jct_hard_s"):
                hk.append(r[v][0]["avg_jct_hard_s"] / r["k8s"][0]["avg_jct_hard_s"])
            if "hsjf" in r and r["hsjf"][0].get("avg_jct_hard_s"):
                hh.append(r[v][0]["avg_jct_hard_s"] / r["hsjf"][0]["avg_jct_hard_s"])
            p99.append(r[v][0]["p99_jct_s"] / min(r[c][0]["p99_jct_s"] for c in comps if c in r))
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f |" % (v, geomean(hk), max(hk or [math.nan]),
                                                        geomean(hh), max(hh or [math.nan]), geomean(p99)))
    if os.path.isdir(os.path.join(a.dir, "bounds")):
        print()
        print_headroom(a.dir, runs, names, comps, "lp" if "lp" in variants else variants[0])
        print_batch_bound(a.dir, runs, names, comps, "lp" if "lp" in variants else variants[0])
        print_lp_bound(a.dir, runs, names, comps, "lp" if "lp" in variants else variants[0])
        print_clairvoyant(a.dir, runs, names, comps, "lp" if "lp" in variants else variants[0])
        print_clairvoyant_makespan(a.dir, runs, names, comps, "lp" if "lp" in variants else variants[0])


def load_bound(d, name):
    try:
        return json.loads(open(os.path.join(d, "bounds", "%s.nowait.json" % name)).read())
    except (OSError, ValueError):
        return None


def print_headroom(d, runs, names, comps, variant):
    """Table L of docs/model.md: the best comparator and mixdnn against the no-wait bound.

    The bound N is every job's average JCT when it starts at its arrival on its
    fastest configuration (in the simulator's model: no preemption, the
    candidate configurations of mx_job_configs); B - N is the best comparator's waiting (and slower
    configurations). "needed" is the share of it a planner must remove to be
    5 % below B, "removed" the share mixdnn removes.
    """
    rows = []
    def has(n, kind):
        return os.path.exists(os.path.join(d, "bounds", "%s.%s.json" % (n, kind)))
    if not any(has(n, "nowait") for n in names) and any(has(n, "lp") for n in names):
        return		# the bounds of tools/opt_lpbound.sh alone (opt_bench.sh ran with OPT_BOUNDS=0)
    for n in names:
        r = runs[n]
        if variant not in r:
            continue
        nw = load_bound(d, n)
        if nw is None:
            raise SystemExit("opt_table.py: %s: no bound run in %s/bounds (rerun tools/opt_bench.sh)" % (n, d))
        if nw["finished"] != nw["jobs"]:
            raise SystemExit("opt_table.py: %s: the bound run finished %d of %d jobs: not a bound" % (n, nw["finished"], nw["jobs"]))
        if nw["avg_wait_s"] > 1e-6:
            raise SystemExit("opt_table.py: %s: the bound run waited (%.3f s): not a bound" % (n, nw["avg_wait_s"]))
        b, bc = min((r[c][0]["avg_jct_s"], c) for c in comps if c in r)
        for lab in (bc, variant):
            if r[lab][0].get("finished", nw["finished"]) != nw["finished"]:
                raise SystemExit("opt_table.py: %s: %s finished %d jobs, the bound run %d: not the same jobs" % (
                    n, lab, r[lab][0]["finished"], nw["finished"]))
        m, lb = r[variant][0]["avg_jct_s"], nw["avg_jct_s"]
        if not b > lb:
            raise SystemExit("opt_table.py: %s: the bound (%.1f s) is not below the best comparator (%.1f s)" % (n, lb, b))
        rows.append((n, bc, b, lb, b / lb, m / lb, m / b, 0.05 * b / (b - lb), (b - m) / (b - lb)))
    if not rows:
        return
    print("| workload | best comparator | its avg JCT B (s) | no-wait bound N (s) | B ÷ N | %s ÷ N | %s ÷ B | needed: 0.05 B ÷ (B − N) | removed by %s: (B − %s) ÷ (B − N) |" % (
        variant, variant, variant, variant))
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for x in rows:
        print("| %s | %s | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f |" % x)
    print("| geomean (ratios), mean (shares) | | | | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
        geomean([x[4] for x in rows]), geomean([x[5] for x in rows]), geomean([x[6] for x in rows]),
        sum(x[7] for x in rows) / len(rows), sum(x[8] for x in rows) / len(rows)))


def check_bound(n, r, o, what):
    """The bound o of workload n, refused unless every run r covers its jobs and is at or above it."""
    lb = o["avg_jct_lb_s"]
    for lab, (res, _) in sorted(r.items()):
        if res.get("finished") != o["jobs"]:
            raise SystemExit("opt_table.py: %s: %s finished %s of the %s's %d jobs: not the same jobs" % (
                n, lab, res.get("finished"), what, o["jobs"]))
        if res["avg_jct_s"] < lb - 1e-6 * lb:
            raise SystemExit("opt_table.py: %s: %s's average JCT %.1f s is below the %s %.1f s: not a bound" % (
                n, lab, res["avg_jct_s"], what, lb))
    return lb


def bounded(d, runs, names, comps, variant, kind, what):
    """Per workload with a bounds/NAME.KIND.json: (name, the bound's JSON,
    the bound, the best comparator's average JCT and name, the variant's)."""
    for n in names:
        try:
            o = json.loads(open(os.path.join(d, "bounds", "%s.%s.json" % (n, kind))).read())
        except (OSError, ValueError):
            continue
        r = runs[n]
        if variant not in r:
            continue
        lb = check_bound(n, r, o, what)
        b, bc = min((r[c][0]["avg_jct_s"], c) for c in comps if c in r)
        yield n, o, lb, b, bc, r[variant][0]["avg_jct_s"]


def print_batch_bound(d, runs, names, comps, variant):
    """Table M of docs/model.md: batch workloads against the optimum bound O
    of tools/opt_bound.py (the one-GPU jobs' optimal schedule, the wider jobs
    at their fastest run time). Every policy's run must be at or above O."""
    rows = []
    for n, o, lb, b, bc, m in bounded(d, runs, names, comps, variant, "batch", "batch bound"):
        rows.append((n, bc, b, lb, "%d of %d" % (o["wide_jobs"], o["jobs"]), b / lb, m / lb, 0.95 * b / lb))
    if not rows:
        return
    print()
    print("| workload | best comparator | its avg JCT B (s) | batch bound O (s) | jobs that may take more than 1 GPU | B ÷ O | %s ÷ O | the goal, 0.95 B ÷ O |" % variant)
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for x in rows:
        print("| %s | %s | %.0f | %.0f | %s | %.3f | %.3f | %.3f |" % x)
    print("| geomean | | | | | %.3f | %.3f | %.3f |" % (
        geomean([x[5] for x in rows]), geomean([x[6] for x in rows]), geomean([x[7] for x in rows])))


def print_lp_bound(d, runs, names, comps, variant):
    """Table O of docs/model.md: every workload against the time-indexed LP
    bound of tools/opt_lpbound.py (clairvoyant, every non-preemptive
    schedule). Where B's share 0.95 is below the bound, no schedule at all
    is 5 % below the best comparator. Every policy's run must be at or
    above the bound."""
    rows = []
    for n, o, lb, b, bc, m in bounded(d, runs, names, comps, variant, "lp", "LP bound"):
        rows.append((n, bc, b, lb, o["cell_s"], lb / b, m / b, "yes" if lb > 0.95 * b else "no"))
    if not rows:
        return
    print()
    print("| workload | best comparator | its avg JCT B (s) | LP bound (s) | cell (s) | bound ÷ B | %s ÷ B | 5 %% below B excluded by the bound |" % variant)
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for x in rows:
        print("| %s | %s | %.0f | %.0f | %.0f | %.3f | %.3f | %s |" % x)
    print("| geomean | | | | | %.3f | %.3f | %d of %d |" % (
        geomean([x[5] for x in rows]), geomean([x[6] for x in rows]), sum(x[7] == "yes" for x in rows), len(rows)))


def print_clairvoyant(d, runs, names, comps, variant):
    """Table P of docs/model.md: the optimum lies between table O's bound
    and the best schedule known, the lowest of the best comparator's, the
    variant's and the schedules of tools/opt_clairvoyant.py (hsjf on the
    LP's configurations, with true run times: clairvoyant; with the
    trace's estimates: hindsight of the configurations only; mixdnn on
    them with the trace's estimates: its guards on those configurations);
    the last column is how far the variant is above the best known."""
    rows = []
    for n, o, lb, b, bc, m in bounded(d, runs, names, comps, variant, "lp", "LP bound"):
        if "clairvoyant_jct_s" not in o:
            continue
        c = o["clairvoyant_jct_s"]
        e = o.get("pinned_estimates_jct_s", math.inf)
        pm = o.get("pinned_mixdnn_jct_s", math.inf)
        for what, v in (("clairvoyant schedule", c), ("schedule on the LP's configurations", e),
                        ("mixdnn schedule on the LP's configurations", pm)):
            if v < lb - 1e-6 * lb:
                raise SystemExit("opt_table.py: %s: the %s (%.1f s) is below the LP bound %.1f s: not a bound" % (n, what, v, lb))
        k = min(c, e, pm, b, m)
        rows.append((n, bc, b, lb / b, o["cell_s"], c / b, e / b, pm / b, m / b, k / b, m / k))
    if not rows:
        return
    print()
    print("| workload | best comparator | its avg JCT B (s) | LP bound ÷ B | cell (s) | clairvoyant schedule ÷ B | "
          "LP's configurations, trace's estimates ÷ B | the same, mixdnn ÷ B | %s ÷ B | best known ÷ B | %s ÷ best known |"
          % (variant, variant))
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    def r3(v):
        return "%.3f" % v if math.isfinite(v) else "—"
    for x in rows:
        print("| %s | %s | %.0f | %s | %.0f | %s |" % (x[0], x[1], x[2], r3(x[3]), x[4], " | ".join(r3(v) for v in x[5:])))
    print("| geomean | | | %s | | %s |" % (r3(geomean([x[3] for x in rows])), " | ".join(
        r3(geomean([x[i] for x in rows if math.isfinite(x[i])])) for i in (5, 6, 7, 8, 9, 10))))


def print_clairvoyant_makespan(d, runs, names, comps, variant):
    """Table Q of docs/model.md: the makespans of table P's schedules over
    the best comparator's (the lowest makespan of any comparator), and the
    makespan of the schedule with the lowest average JCT known (ties: the
    first of table P's order). The goal of issue #13 asks for both a low
    JCT and a makespan within 3 % of that on every workload."""
    rows = []
    for n, o, lb, b, bc, m in bounded(d, runs, names, comps, variant, "lp", "LP bound"):
        if "clairvoyant_makespan_s" not in o:
            continue
        r = runs[n]
        bm = min(r[c][0]["makespan_s"] for c in comps if c in r)
        sched = [(o["clairvoyant_jct_s"], o["clairvoyant_makespan_s"]),
                 (o.get("pinned_estimates_jct_s", math.inf), o.get("pinned_estimates_makespan_s", math.inf)),
                 (o.get("pinned_mixdnn_jct_s", math.inf), o.get("pinned_mixdnn_makespan_s", math.inf)),
                 (m, r[variant][0]["makespan_s"]),
                 (b, r[bc][0]["makespan_s"])]
        # min() keeps the first of equal JCTs, so a tie goes to table P's order
        best = min(sched, key=lambda x: x[0])
        known = sched[:4] + [(r[c][0]["avg_jct_s"], r[c][0]["makespan_s"]) for c in comps if c in r]
        both = any(j <= 1.01 * b and mk <= 1.03 * bm for j, mk in known)
        rows.append((n, bm) + tuple(x[1] / bm for x in sched[:4]) + (best[1] / bm, both,
                    m <= 1.01 * b and r[variant][0]["makespan_s"] <= 1.03 * bm))
    if not rows:
        return
    print()
    print("| workload | best comparator's makespan (s) | clairvoyant schedule | LP's configurations, trace's estimates | "
          "the same, mixdnn | %s | the schedule of the best known JCT |" % variant)
    print("|---|---:|---:|---:|---:|---:|---:|")
    def r3(v):
        return "%.3f" % v if math.isfinite(v) else "—"
    for x in rows:
        print("| %s | %.0f | %s |" % (x[0], x[1], " | ".join(r3(v) for v in x[2:7])))
    cols = range(2, 7)
    print("| geomean | | %s |" % " | ".join(r3(geomean([x[i] for x in rows if math.isfinite(x[i])])) for i in cols))
    print("| worst | | %s |" % " | ".join(r3(max([x[i] for x in rows if math.isfinite(x[i])] or [math.nan])) for i in cols))
    print("| workloads > +3 %% | | %s |" % " | ".join(
        "%d of %d" % (sum(x[i] > 1.03 for x in rows if math.isfinite(x[i])), sum(math.isfinite(x[i]) for x in rows))
        for i in cols))
    print()
    print("Within both per-workload limits of the goal (average JCT at most 1 %% above B, makespan at most 3 %% "
          "above the best comparator's): some schedule known (the comparators', %s's and these) on %d of %d "
          "workloads, %s on %d." % (variant, sum(x[7] for x in rows), len(rows), variant, sum(x[8] for x in rows)))


def print_table(rows):
    print("| variant | JCT / best, geomean | worst | workloads > +1 % | makespan / best, geomean | worst | workloads > +3 % | JCT / GLPK off, geomean | workloads | round p95 ms (max) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %.3f | %.3f | %d | %.3f | %.3f | %d | %.3f | %d | %.1f |" % r)


if __name__ == "__main__":
    main()
