#!/usr/bin/env python3
"""eval_report.py - turn tools/evaluate.sh's results (build/eval) into
docs/evaluation.md. Standard library only.

  eval_report.py --dir build/eval --out docs/evaluation.md
  eval_report.py --dir build/eval            (the geomean tables on stdout)

Statistics (docs/evaluation.md, "Method"): a cell is (workload, soft share,
estimate model); each cell has one run per seed and policy, on the same
trace for every policy, so MixDNN's ratio to a policy is taken per seed
(paired) and summarised by the geometric mean with a 95 % t-interval of the
log ratios. A ratio whose interval contains 1 is a tie.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import statistics
import sys

POLICIES = ["mixdnn", "k8s", "static", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any"]
BASELINES = POLICIES[1:]
# mixdnn with GLPK switched off (tools/evaluate.sh ABLATIONS); never a comparator
NOGLPK = "mixdnn-noglpk"
SHARE_FREE = {"static", "backfill"}     # run at soft share 0 only (evaluate.sh)
SHARES = [0, 50, 100]
EST_NAMES = {"exact": "exact", "ln0.5": "log-normal σ=0.5", "ln1": "log-normal σ=1",
             "over": "over-estimates"}
# two-sided 95 % Student t quantiles by degrees of freedom
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
        16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086}
# The paper's two makespan figures (MixDNN, Electronics 15(22), 2026).
PAPER = [("k8s", 11.45, "up to 11.45 % less makespan than Kubernetes"),
         ("static", 70.0, "up to 70 % less makespan than static scheduling")]


# ---------------------------------------------------------------- loading

class Results:
    def __init__(self, d):
        self.d = d
        self.workloads = []
        with open(os.path.join(d, "workloads.txt")) as f:
            for line in f:
                if line.strip():
                    self.workloads.append(tuple(line.split()))
        self.seeds = [int(x) for x in open(os.path.join(d, "seeds.txt")).read().split()]
        self.ests = open(os.path.join(d, "estimates.txt")).read().split()
        self.quick = open(os.path.join(d, "quick.txt")).read().strip() == "1" \
            if os.path.exists(os.path.join(d, "quick.txt")) else False
        self.cache = {}

    def _json(self, path):
        if path not in self.cache:
            try:
                txt = open(path).read().strip()
                self.cache[path] = json.loads(txt) if txt else None
            except (OSError, ValueError):
                self.cache[path] = None
        return self.cache[path]

    def result(self, path):
        """A simulation's metrics; None where missing, or where no job finished
        (null averages: no result to compare). Not for the .stats.json files,
        which have no averages."""
        r = self._json(path)
        return None if r is None or r.get("avg_jct_s") is None else r

    def run(self, name, seed, share, est, pol):
        if pol in SHARE_FREE:
            share = 0
        return self.result(os.path.join(self.d, "runs", "%s-r%d-s%d-%s-%s.json" % (name, seed, share, est, pol)))

    def stats(self, name, seed, share):
        return self._json(os.path.join(self.d, "runs", "%s-r%d-s%d.stats.json" % (name, seed, share)))

    def values(self, name, share, est, pol, key):
        """Per seed: the metric, None where missing."""
        out = []
        for seed in self.seeds:
            r = self.run(name, seed, share, est, pol)
            v = r.get(key) if r else None
            out.append(v if isinstance(v, (int, float)) and v == v else None)
        return out


# ---------------------------------------------------------------- statistics

def t975(n):
    return T975.get(n - 1, 1.96) if n > 1 else float("nan")


def mean_ci(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None, None
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None
    return m, t975(len(xs)) * statistics.stdev(xs) / math.sqrt(len(xs))


def log_ratios(a, b):
    """Paired per seed: log(a / b) where both are positive."""
    return [math.log(x / y) for x, y in zip(a, b) if x and y and x > 0 and y > 0]


def ratio_ci(lr):
    """(geometric-mean ratio, low, high) of paired log ratios; None if empty."""
    if not lr:
        return None
    m, h = mean_ci(lr)
    if h is None:
        return (math.exp(m), None, None)
    return (math.exp(m), math.exp(m - h), math.exp(m + h))


# Differences smaller than this are ties even when the interval excludes 1
# (seeds that give identical schedules have a zero-width interval).
MIN_EFFECT = 0.01


def verdict(rc, lower_is_better=True):
    if rc is None or rc[1] is None:
        return "–"
    if abs(rc[0] - 1.0) < MIN_EFFECT:
        return "tie"
    if rc[2] < 1.0:
        return "**win**" if lower_is_better else "loss"
    if rc[1] > 1.0:
        return "**loss**" if lower_is_better else "win"
    return "tie"


# ---------------------------------------------------------------- formatting

def fmt_s(v):
    if v is None:
        return "–"
    if v >= 86400 * 10:
        return "%.1f d" % (v / 86400)
    if v >= 3600 * 10:
        return "%.1f h" % (v / 3600)
    if v >= 100:
        return "%.0f s" % v
    return "%.1f s" % v


def fmt_mci(m, h):
    if m is None:
        return "–"
    if h is None:
        return fmt_s(m)
    return "%s ± %s" % (fmt_s(m), fmt_s(h))


def fmt_r(rc):
    if rc is None:
        return "–"
    if rc[1] is None:
        return "%.3f" % rc[0]
    return "%.3f [%.3f, %.3f]" % rc


def fmt_ms(v):
    if v is None:
        return "–"
    return "%.3f" % v if v < 1 else "%.2f" % v if v < 100 else "%.0f" % v


# ---------------------------------------------------------------- cells

def best_baseline(R, name, share, est, key):
    """The baseline with the lowest mean metric in the cell, and its mean."""
    best = None
    for b in BASELINES:
        m, _ = mean_ci(R.values(name, share, est, b, key))
        if m is not None and (best is None or m < best[1]):
            best = (b, m)
    return best


def cell_vs(R, name, share, est, key, other, pol="mixdnn"):
    return ratio_ci(log_ratios(R.values(name, share, est, pol, key),
                               R.values(name, share, est, other, key)))


def geomean_vs(R, share, est, key, other, pol="mixdnn"):
    """Geomean over workloads of pol / other (each workload: the mean log
    ratio over its seeds), with a 95 % interval across workloads."""
    per = []
    for name, _ in R.workloads:
        lr = log_ratios(R.values(name, share, est, pol, key), R.values(name, share, est, other, key))
        if lr:
            per.append(statistics.fmean(lr))
    return ratio_ci(per)


def geomean_best(R, share, est, key, pol="mixdnn"):
    per = []
    for name, _ in R.workloads:
        b = best_baseline(R, name, share, est, key)
        if b:
            lr = log_ratios(R.values(name, share, est, pol, key), R.values(name, share, est, b[0], key))
            if lr:
                per.append(statistics.fmean(lr))
    return ratio_ci(per)


def tally(R, est, key):
    """(wins, ties, losses, [losses]) of MixDNN against the best baseline over the cells."""
    w = t = l = 0
    lost = []
    for name, _ in R.workloads:
        for s in SHARES:
            b = best_baseline(R, name, s, est, key)
            if not b:
                continue
            rc = cell_vs(R, name, s, est, key, b[0])
            v = verdict(rc)
            if v == "**win**":
                w += 1
            elif v == "**loss**":
                l += 1
                lost.append((name, s, b[0], rc))
            else:
                t += 1
    return w, t, l, lost


# ---------------------------------------------------------------- sections

def sec_intro(R, a, w):
    w("# MixDNN evaluation")
    w("")
    w("Generated by `tools/evaluate.sh`%s on %s from %s (%s, %d CPUs) in %s s; do not edit by hand — edit "
      "`tools/eval_report.py` and re-run. %s"
      % (" in QUICK mode (fewer workloads and seeds)" if R.quick else "",
         datetime.date.today().isoformat(),
         (a.commit + " (resumed with `EVAL_KEEP=1`: the simulations ran from these trees in turn)"
          if "," in (a.commit or "") else a.commit or "an unknown tree"), platform.machine(),
         os.cpu_count() or 0, a.elapsed or "?",
         "mixdnn options: `%s`." % a.sim_opts if a.sim_opts else
         "mixdnn ran with the planner's defaults (the extension's settings)."))
    w("")
    w("Every number here measures the `mixdnn` policy of the tree the simulations ran from "
      "(named above); the comparators are fixed by contract §6 (docs/simulator.md, \"Policies\").")
    w("")


def sec_setup(R, w):
    w("## Setup")
    w("")
    w("**Simulator.** `bin/mixdnn-sim` (docs/simulator.md): every policy plans through the "
      "extension's `mx_plan_round()`; running jobs are never preempted. Rounds run at arrivals and "
      "completions, and at planned starts for the policies that plan ahead (mixdnn, static, "
      "backfill). JCT = finish − submit; makespan = last finish − first submit.")
    w("")
    w("**Policies.** `mixdnn` (the utility model, docs/model.md) against seven comparators: "
      "`k8s` (submit order, requested configuration, first fit, skip), `static` (strict FIFO), "
      "`backfill` (EASY), `sjf` (requested configuration, shortest estimate first), `hgreedy` "
      "(submit order, the allowed configuration expected to finish first, if free now), `hsjf` "
      "(`hgreedy` in shortest-first order) and `k8s-any` (`k8s`, soft jobs may take another type "
      "at their requested count). `hgreedy`, `hsjf` and `k8s-any` use soft jobs' flexibility too; "
      "the other four ignore the job class.")
    w("")
    w("| workloads | jobs | cluster | source |")
    w("|---|---:|---|---|")
    desc = {
        "pollux": "Pollux `workload-N.csv` (8 busy Philly hours each); applications mapped to Gavel "
                  "models; durations drawn from philly.csv (60 s–8 h, seeded)",
        "gavel": "Gavel `msr_seed0_<id>.trace` (one Philly virtual cluster each); run time = steps ÷ "
                 "measured throughput on the requested type",
        "philly": "3 days of philly.csv virtual cluster 11cb48 from 2017-11-15, durations cut at 1 day, "
                  "inter-arrival times ÷ load factor",
    }
    fams = []
    for name, c in R.workloads:
        f = name.split("-")[0]
        if f not in [x[0] for x in fams]:
            fams.append((f, c))
    for fam, c in fams:
        names = [n for n, _ in R.workloads if n.split("-")[0] == fam]
        jobs = sorted(set((R.stats(n, R.seeds[0], 0) or {}).get("jobs", 0) for n in names))
        gpus = (R.stats(names[0], R.seeds[0], 0) or {}).get("cluster_gpus", "?")
        w("| %s | %s | `%s`: %s GPUs, K80/P100/V100 in equal parts, 4-GPU nodes | %s |" % (
            ", ".join(names), "–".join(str(j) for j in (jobs[0], jobs[-1])) if len(jobs) > 1 else jobs[0],
            c, gpus, desc.get(fam, "")))
    w("")
    w("**Trace construction** (tools/mixdnn_data.py, docs/simulator.md \"Importers\"). Real traces "
      "name no GPU type, so each job requests one, drawn (seeded) with weight = the cluster's GPUs of "
      "that type × the job's measured throughput there relative to its fastest type: a job rarely "
      "asks for a GPU that runs it several times slower, and no type is pinned a fixed share of "
      "jobs. A job's run time is consistent with the requested type's measured throughput: Gavel "
      "jobs keep their steps (run time = steps ÷ throughput); Pollux and Philly durations are taken "
      "as the run time on the job's fastest type and scaled by the throughput ratio. GPU counts "
      "above 8 become 8 (same work). Soft jobs may use every type and `max(1, gpus/2)`..`gpus` GPUs.")
    w("")
    w("**Estimates.** Every policy plans with `estimate_s`; jobs run their true `duration_s` "
      "(contract §6). Models: *exact*; *log-normal σ=0.5* and *σ=1* (estimate = run time × e^(σZ), "
      "Z ~ N(0,1): half the jobs overrun their estimate, by ×1.65 (σ=0.5) or ×2.7 (σ=1) or more "
      "for a third of those); *over-estimates*, after the SP2 logs analysed by Mu'alem and Feitelson "
      "(IEEE TPDS 12(6), 2001: the accuracy run time ÷ estimate spread roughly uniformly over "
      "(0, 1]) and Tsafrir, Etsion and Feitelson (JSSPP 2005: estimates cluster on a few round "
      "values): accuracy uniform on (0.02, 1], estimate rounded up to 5/10/15/20/30/45 min, "
      "1/1.5/2/3/4/5/6/8/10/12/16/18/20/24 h or whole days; no job overruns.")
    w("")
    fams = {}
    for name, _ in R.workloads:
        f = name.split("-")[0]
        seeds = [sd for sd in R.seeds if R.stats(name, sd, 0)]
        ests = [e for e in R.ests if any(R.run(name, sd, 0, e, "mixdnn") for sd in seeds)]
        fams.setdefault(f, (len(seeds), ests))
    w("**Seeds.** Each cell (workload × soft share × estimate model) runs several seeds: %s. A seed "
      "redraws the requested types, which jobs are soft (nested: the soft jobs at 50 %% are soft at "
      "100 %% too), the estimate noise and, for Pollux, the durations. All policies of a seed run "
      "the same trace." % "; ".join("%s %d seeds, estimates %s" % (f, n, ", ".join(EST_NAMES.get(e, e) for e in ests))
                                     for f, (n, ests) in fams.items()))
    w("")
    nbest = ncell = 0
    for name, _ in R.workloads:
        for e in ("exact", "over"):
            for sh in SHARES:
                for key in ("avg_jct_s", "makespan_s", "p99_jct_s"):
                    b = best_baseline(R, name, sh, e, key)
                    if b:
                        ncell += 1
                        nbest += b[0] == "static"
    w("**Simulation cost.** A job that outlives its estimate makes static and backfill plan "
      "a start at the end of the overrun grace (60 s), so under log-normal estimates they have a "
      "round every simulated minute while a job overruns; on the Gavel traces (up to 479 days) that "
      "is about 10^5 rounds per run (mixdnn assumes an overdue job needs as long again as it has "
      "overrun, docs/model.md \"The overrun rule\", and has a few thousand). Hence fewer seeds and "
      "one log-normal model for Gavel (kept since, so that the comparators' runs stay comparable), and "
      "`static` (strict FIFO; the best comparator in %d of the %d cell metrics where it ran) only "
      "with estimates that never overrun." % (nbest, ncell))
    w("")


def sec_method(R, w):
    w("## Method")
    w("")
    w("* A **ratio** is MixDNN's metric ÷ the other policy's, per seed (paired: same trace), "
      "summarised as the geometric mean over seeds with a 95 %% Student-t interval of the log "
      "ratios (5 seeds: t = %.2f; 3 seeds: t = %.2f). Below 1 = MixDNN better." % (t975(5), t975(3)))
    w("* **Win / tie / loss**: the interval lies below 1 / contains 1 / lies above 1. Differences "
      "inside the noise are ties, however large the point estimate, and so are differences under "
      "%d %%: some cells have a zero-width interval because every seed gives the same schedule "
      "(Gavel at 100 %% soft with exact estimates, where a soft job's run times do not depend on "
      "the type it requested)." % round(100 * MIN_EFFECT))
    w("* **Best baseline** of a cell: the comparator with the lowest mean metric over the seeds "
      "in that cell (chosen per cell and per metric, which favours the baselines).")
    w("* **Geomean** over workloads: of each workload's mean log ratio; its interval is across "
      "workloads (how much the workloads disagree), not across seeds.")
    w("")


def sec_summary(R, w):
    """The headline in sentences, computed from the same numbers as the tables."""
    w("## Summary")
    w("")
    for key, label in (("avg_jct_s", "Average JCT"), ("makespan_s", "Makespan"), ("p99_jct_s", "p99 JCT")):
        parts = []
        for est in R.ests:
            wi, ti, lo, _ = tally(R, est, key)
            parts.append("%s %d / %d / %d of %d" % (EST_NAMES.get(est, est), wi, ti, lo, wi + ti + lo))
        w("* **%s** against the best comparator of each cell (workload × soft share), won / tied / "
          "lost: %s." % (label, "; ".join(parts)))
    for est in R.ests:
        bits = []
        for s in SHARES:
            g = geomean_best(R, s, est, "avg_jct_s")
            h = geomean_vs(R, s, est, "avg_jct_s", "hsjf")
            k = geomean_vs(R, s, est, "avg_jct_s", "k8s")
            if g and h and k:
                bits.append("%d%% soft %.3f (÷ k8s %.3f, ÷ hsjf %.3f)" % (s, g[0], k[0], h[0]))
        w("* Average JCT ÷ the best comparator per cell, geomean over workloads, %s estimates: %s."
          % (EST_NAMES.get(est, est), "; ".join(bits)))
    bits = []
    for est in R.ests:
        per = [geomean_vs(R, sh, est, "avg_jct_s", NOGLPK) for sh in SHARES]
        if all(per):
            bits.append("%s %s" % (EST_NAMES.get(est, est), " / ".join("%.3f" % g[0] for g in per)))
    if bits:
        w("* Average JCT ÷ itself with GLPK off (`--no-milp`), geomean over workloads at 0 / 50 / "
          "100 %% soft: %s (\"Ablation\" below)." % "; ".join(bits))
    w("")
    w("A ratio below 1 favours MixDNN. The distance between the ÷ k8s and the ÷ best figures is "
      "what the comparators of contract §6 achieve without MixDNN's utility model.")
    w("")


def sec_headline(R, w):
    w("## Headline")
    w("")
    for key, label in (("avg_jct_s", "Average JCT"), ("makespan_s", "Makespan"), ("p99_jct_s", "p99 JCT")):
        w("### %s: MixDNN ÷ each comparator, geomean over the %d workloads" % (label, len(R.workloads)))
        w("")
        w("| estimates | soft | best per cell | %s | cells won / tied / lost vs best |" % " | ".join(BASELINES))
        w("|---|---:|---:|%s---|" % ("---:|" * len(BASELINES)))
        for est in R.ests:
            for s in SHARES:
                wins = ties = losses = 0
                for name, _ in R.workloads:
                    b = best_baseline(R, name, s, est, key)
                    v = verdict(cell_vs(R, name, s, est, key, b[0])) if b else "–"
                    wins += v == "**win**"
                    ties += v == "tie"
                    losses += v == "**loss**"
                w("| %s | %d%% | %s | %s | %d / %d / %d |" % (
                    EST_NAMES.get(est, est), s, fmt_r(geomean_best(R, s, est, key)),
                    " | ".join(("%.3f" % g[0]) if g else "–" for g in
                               (geomean_vs(R, s, est, key, b) for b in BASELINES)),
                    wins, ties, losses))
        w("")
    w("The \"best per cell\" column compares MixDNN with the strongest comparator of each cell "
      "(with the interval across workloads); the per-comparator columns are point geomeans. The "
      "per-cell tables below give every interval.")
    w("")


def sec_loses(R, w):
    w("## Where MixDNN loses")
    w("")
    any_loss = False
    for key, label in (("avg_jct_s", "average JCT"), ("makespan_s", "makespan"), ("p99_jct_s", "p99 JCT")):
        for est in R.ests:
            _, _, l, lost = tally(R, est, key)
            for name, s, b, rc in lost:
                any_loss = True
                w("* %s, %s, %d%% soft, %s: %s ÷ `%s` = %s" % (
                    label, EST_NAMES.get(est, est), s, name, "mixdnn", b, fmt_r(rc)))
    if not any_loss:
        w("No cell where the interval of MixDNN ÷ the best comparator lies above 1.")
    w("")
    w("Geomeans over the workloads above 1.005 (MixDNN worse than that comparator on average, "
      "point estimate; the interval is across workloads):")
    w("")
    rows = []
    for key, label in (("avg_jct_s", "average JCT"), ("makespan_s", "makespan"), ("p99_jct_s", "p99 JCT")):
        for est in R.ests:
            for s in SHARES:
                for b in BASELINES:
                    g = geomean_vs(R, s, est, key, b)
                    if g and g[0] > 1.005:
                        rows.append("%s vs `%s` (%s, %d%% soft): %s" % (label, b, EST_NAMES.get(est, est), s, fmt_r(g)))
    w("\n".join("* " + r for r in rows) if rows else "None.")
    w("")


def sec_cells(R, w, est):
    w("### Estimates: %s" % EST_NAMES.get(est, est))
    w("")
    w("| workload | soft | mixdnn avg JCT | best comparator | its avg JCT | ratio [95 % CI] | | "
      "mixdnn makespan | best | ratio [95 % CI] | | makespan ÷ LB: mixdnn, best |")
    w("|---|---:|---:|---|---:|---:|---|---:|---|---:|---|---|")
    for name, _ in R.workloads:
        for s in SHARES:
            bj = best_baseline(R, name, s, est, "avg_jct_s")
            bm = best_baseline(R, name, s, est, "makespan_s")
            if not bj or not bm:
                continue
            rj = cell_vs(R, name, s, est, "avg_jct_s", bj[0])
            rm = cell_vs(R, name, s, est, "makespan_s", bm[0])
            lb = [(R.stats(name, seed, s) or {}).get("makespan_lb_s") for seed in R.seeds]
            ml = [m / l if m and l else None for m, l in zip(R.values(name, s, est, "mixdnn", "makespan_s"), lb)]
            bl = [m / l if m and l else None for m, l in zip(R.values(name, s, est, bm[0], "makespan_s"), lb)]
            mm, _ = mean_ci(ml)
            bb, _ = mean_ci(bl)
            w("| %s | %d%% | %s | `%s` | %s | %s | %s | %s | `%s` | %s | %s | %s, %s |" % (
                name, s, fmt_mci(*mean_ci(R.values(name, s, est, "mixdnn", "avg_jct_s"))), bj[0], fmt_s(bj[1]),
                fmt_r(rj), verdict(rj), fmt_mci(*mean_ci(R.values(name, s, est, "mixdnn", "makespan_s"))),
                bm[0], fmt_r(rm), verdict(rm),
                "%.3f" % mm if mm else "–", "%.3f" % bb if bb else "–"))
    w("")


def sec_bounds(R, w):
    w("## Makespan and its lower bounds")
    w("")
    w("Lower bounds for any non-preemptive schedule (tools/mixdnn_data.py `stats`, mean over seeds): "
      "**work** = every job's least GPU-time over its allowed configurations ÷ the cluster's GPUs; "
      "**per type** = the hard jobs' GPU-time on a type ÷ that type's GPUs (k80 / p100 / v100); "
      "**longest** = max over jobs of (submit − first submit + its shortest run time). LB = the "
      "largest. Where makespan ÷ LB is about 1 for every policy, the makespan is set by one late or "
      "long job and no policy can differ there.")
    w("")
    w("| workload | soft | work | k80 | p100 | v100 | longest | LB | mixdnn ÷ LB (exact) | best comparator ÷ LB |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, _ in R.workloads:
        for s in SHARES:
            st = [R.stats(name, seed, s) or {} for seed in R.seeds]

            def m(k, t=None):
                xs = [(x.get(k) or {}).get(t) if t else x.get(k) for x in st]
                return mean_ci([v for v in xs if v is not None])[0]
            lb = [x.get("makespan_lb_s") for x in st]
            mix = mean_ci([a / b for a, b in zip(R.values(name, s, "exact", "mixdnn", "makespan_s"), lb) if a and b])[0]
            best = None
            for bp in BASELINES:
                v = mean_ci([a / b for a, b in zip(R.values(name, s, "exact", bp, "makespan_s"), lb) if a and b])[0]
                if v is not None and (best is None or v < best[1]):
                    best = (bp, v)
            w("| %s | %d%% | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, s, fmt_s(m("work_lb_s")), fmt_s(m("type_lb_by_type_s", "k80")),
                fmt_s(m("type_lb_by_type_s", "p100")), fmt_s(m("type_lb_by_type_s", "v100")),
                fmt_s(m("longest_lb_s")), fmt_s(m("makespan_lb_s")),
                "%.3f" % mix if mix else "–", "%.3f (`%s`)" % (best[1], best[0]) if best else "–"))
    w("")


def sec_fairness(R, w):
    w("## Fairness and tail")
    w("")
    w("Geomeans over the workloads, per policy (mean over seeds inside each workload). "
      "**Hard JCT ÷ k8s**: the hard jobs' average JCT under the policy ÷ under `k8s` on the same "
      "trace — what soft jobs' gains cost hard jobs (no hard jobs at 100 %% soft). **FTF**: "
      "finish-time fairness, a job's JCT ÷ its run time alone on its requested configuration "
      "(1 = no wait, no slowdown); mean and p99 over jobs.")
    w("")
    for est in R.ests:
        w("### Estimates: %s" % EST_NAMES.get(est, est))
        w("")
        w("| soft | metric | %s |" % " | ".join(POLICIES))
        w("|---:|---|%s" % ("---:|" * len(POLICIES)))
        for s in SHARES:
            for key, label in (("p99_jct_s", "p99 JCT ÷ k8s"), ("hard", "hard JCT ÷ k8s"),
                               ("ftf_mean", "FTF mean"), ("ftf_p99", "FTF p99")):
                cells = []
                for p in POLICIES:
                    logs = []
                    for name, _ in R.workloads:
                        if key == "hard" and p in SHARE_FREE and s:
                            continue    # its share-0 run has no hard jobs of this share
                        if key in ("p99_jct_s", "hard"):
                            k = "avg_jct_hard_s" if key == "hard" else key
                            lr = log_ratios(R.values(name, s, est, p, k), R.values(name, s, est, "k8s", k))
                        else:
                            lr = [math.log(v) for v in R.values(name, s, est, p, key) if v and v > 0]
                        if lr:
                            logs.append(statistics.fmean(lr))
                    cells.append("%.3f" % math.exp(statistics.fmean(logs)) if logs else "–")
                w("| %d%% | %s | %s |" % (s, label, " | ".join(cells)))
        w("")


def sec_scale(R, w):
    w("## Scalability")
    w("")
    w("Wall-clock time of one round (`mx_plan_round`, rounds with a waiting job), over every run "
      "of the workloads above: the median of the runs' p50, the largest p95 and the largest single "
      "round, in ms, on this machine (shared with other work while it ran).")
    w("")
    w("| policy | runs | p50 (median over runs) | p95 (max over runs) | max |")
    w("|---|---:|---:|---:|---:|")
    for p in POLICIES + [NOGLPK]:
        p50, p95, mx = [], [], []
        for name, _ in R.workloads:
            for est in R.ests:
                for s in SHARES:
                    if p in SHARE_FREE and s:
                        continue
                    for seed in R.seeds:
                        r = R.run(name, seed, s, est, p)
                        if r and r.get("solve_ms_p50") is not None:
                            p50.append(r["solve_ms_p50"])
                            p95.append(r["solve_ms_p95"])
                            mx.append(r.get("solve_ms_max") or 0)
        if p50:
            w("| %s | %d | %s | %s | %s |" % (p, len(p50), fmt_ms(statistics.median(p50)), fmt_ms(max(p95)), fmt_ms(max(mx))))
    w("")
    st = R.stats("large", 1, 50)
    if st:
        w("**Large replay**: every Philly virtual cluster, 3 days from 2017-11-15, inter-arrival "
          "times ÷ 4, %d jobs (50 %% soft, seed 1) on %d GPUs (128 per type, 8-GPU nodes); LB %s."
          % (st["jobs"], st["cluster_gpus"], fmt_s(st["makespan_lb_s"])))
        w("")
        w("| estimates | policy | avg JCT | p99 JCT | makespan | rounds | round p50 / p95 / max (ms) | simulation wall time |")
        w("|---|---|---:|---:|---:|---:|---|---:|")
        for est in ("exact", "ln1"):
            for p in POLICIES:
                r = R.result(os.path.join(R.d, "runs", "large-r1-s50-%s-%s.json" % (est, p)))
                if r:
                    w("| %s | %s | %s | %s | %s | %d | %s / %s / %s | %.1f s |" % (
                        EST_NAMES[est], p, fmt_s(r["avg_jct_s"]), fmt_s(r["p99_jct_s"]), fmt_s(r["makespan_s"]),
                        r["rounds"], fmt_ms(r["solve_ms_p50"]), fmt_ms(r["solve_ms_p95"]),
                        fmt_ms(r["solve_ms_max"]), r["wall_s"]))
        w("")


def sec_ablation(R, w):
    """mixdnn against itself with GLPK switched off, cell by cell."""
    abl = NOGLPK
    if not any(R.run(name, sd, s, est, abl) for name, _ in R.workloads for sd in R.seeds
               for s in SHARES for est in R.ests):
        return
    w("## Ablation: GLPK off (`--no-milp`)")
    w("")
    w("`%s` is the `mixdnn` policy with `--no-milp` (the extension's `mixdnn.use_milp = off`): "
      "the same guards and heuristic, without the configuration LP that GLPK solves in every "
      "round (docs/model.md, \"Configuration LP\"). The ratio is mixdnn ÷ `%s`, paired per "
      "seed like every ratio here; below 1, GLPK helps. Win / tie / loss as in \"Method\", "
      "from GLPK's side. The other components (each guard, the LP's window and backfill) are "
      "switched off one at a time on generated workloads in docs/optimizer-evaluation.md "
      "(`make eval-opt`; `make eval` runs both)." % (abl, abl))
    w("")
    for key, mlabel in (("avg_jct_s", "Average JCT"), ("makespan_s", "Makespan")):
        w("### %s" % mlabel)
        w("")
        w("| estimates | soft | mixdnn ÷ GLPK off, geomean [95 % CI across workloads] | cells won / tied / lost "
          "| GLPK off ÷ best comparator | mixdnn ÷ best comparator |")
        w("|---|---:|---:|---|---:|---:|")
        lost = []
        for est in R.ests:
            for s in SHARES:
                n = {"**win**": 0, "tie": 0, "**loss**": 0}
                for name, _ in R.workloads:
                    rc = cell_vs(R, name, s, est, key, abl)
                    v = verdict(rc)
                    if v in n:
                        n[v] += 1
                    if v == "**loss**":
                        lost.append((name, s, est, rc))
                g = geomean_vs(R, s, est, key, abl)
                ga = geomean_best(R, s, est, key, pol=abl)
                gm = geomean_best(R, s, est, key)
                w("| %s | %d%% | %s | %d / %d / %d | %s | %s |" % (
                    EST_NAMES.get(est, est), s, fmt_r(g), n["**win**"], n["tie"], n["**loss**"],
                    "%.3f" % ga[0] if ga else "–", "%.3f" % gm[0] if gm else "–"))
        w("")
        if lost:
            w("Cells where GLPK makes the %s worse (interval above 1): %s." % (
                {"avg_jct_s": "average JCT", "makespan_s": "makespan"}[key], "; ".join(
                "%s, %d%% soft, %s: %s" % (name, s, EST_NAMES.get(est, est), fmt_r(rc))
                for name, s, est, rc in lost)))
            w("")


def sec_paper(R, w):
    w("## The paper's figures")
    w("")
    w("The paper reports makespan reductions against Kubernetes and static scheduling only. The "
      "comparable cells are MixDNN ÷ `k8s` and ÷ `static` on makespan with exact estimates (the "
      "paper's scheduler is given run times); the strong comparators have no counterpart there.")
    w("")
    w("| paper | soft | geomean change [95 % CI across workloads] | largest reduction in one cell (mean over seeds) |")
    w("|---|---:|---:|---|")
    for b, _, text in PAPER:
        for s in SHARES:
            g = geomean_vs(R, s, "exact", "makespan_s", b)
            best = None
            for name, _ in R.workloads:
                rc = cell_vs(R, name, s, "exact", "makespan_s", b)
                if rc and (best is None or rc[0] < best[1]):
                    best = (name, rc[0])
            w("| %s | %d%% | %s | %s |" % (
                text, s, ("%+.1f %% [%+.1f, %+.1f]" % (100 * (g[0] - 1), 100 * (g[1] - 1), 100 * (g[2] - 1)))
                if g and g[1] is not None else "–",
                "%+.1f %% (%s)" % (100 * (best[1] - 1), best[0]) if best else "–"))
    w("")


def sec_reproduce(w, a):
    w("## How to reproduce")
    w("")
    w("```")
    w("make eval                 # tools/evaluate.sh (inputs and results in build/eval/, this report),")
    w("                          # then tools/opt_report.sh (docs/optimizer-evaluation.md)")
    w("QUICK=1 tools/evaluate.sh # 5 workloads, 3 seeds (2 Gavel), about 2 minutes, report in QUICK mode")
    w("```")
    w("")
    w("The full run takes the time given at the top (2 cores shared with other work while it ran; "
      "most of it is the Gavel traces under log-normal estimates). "
      "`EVAL_JOBS` sets the parallel simulations (default 2), `EVAL_KEEP=1` resumes a run that "
      "was stopped (it keeps the results in `build/eval` and runs only the missing simulations; "
      "the report then names every tree that ran some, and adds their times), `SIM_OPTS` passes options to the "
      "mixdnn runs, `MIXDNN_DATA` points at the shared data, `tools/evaluate.sh --report-only` "
      "rewrites this file from `build/eval`. Each run's metrics are in "
      "`build/eval/runs/<workload>-r<seed>-s<share>-<estimates>-<policy>.json`, its inputs in "
      "`build/eval/in/`. A busy machine stretches a run's wall time, not its schedule: the "
      "configuration LP stops on an iteration limit and checks its budget in CPU time between "
      "chunks of simplex iterations, so only a round whose LP needs more than one chunk and "
      "runs out of budget between two could differ (docs/model.md, \"Determinism and budget\").")
    w("")


def report(a, R):
    L = []
    w = L.append
    sec_intro(R, a, w)
    sec_setup(R, w)
    sec_method(R, w)
    sec_summary(R, w)
    sec_headline(R, w)
    sec_loses(R, w)
    sec_ablation(R, w)
    sec_paper(R, w)
    w("## Per cell")
    w("")
    w("Mean ± 95 % CI over seeds for MixDNN; the best comparator of the cell and MixDNN's paired "
      "ratio to it. Baselines that ignore the job class have the same results at every soft share.")
    w("")
    for est in R.ests:
        sec_cells(R, w, est)
    sec_bounds(R, w)
    sec_fairness(R, w)
    sec_scale(R, w)
    sec_reproduce(w, a)
    L.extend(kept_sections(a.out))
    with open(a.out, "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")


def kept_sections(path):
    """Sections other tools write into the report between <!-- NAME:begin -->
    and <!-- NAME:end --> (tools/eval_tenancy.sh): kept, each after a blank line."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return []
    found = re.finditer(r"<!-- ([\w-]+):begin -->.*?<!-- \1:end -->", text, flags=re.S)
    return [line for m in found for line in [""] + m.group(0).split("\n")]


def summary(R):
    L = []
    sec_headline(R, L.append)
    print("\n".join(L))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--out")
    p.add_argument("--elapsed", default="")
    p.add_argument("--commit", default="", help="the tree the simulations ran from (git describe)")
    p.add_argument("--sim-opts", default="")
    a = p.parse_args()
    R = Results(a.dir)
    if not a.out:
        summary(R)
        return
    report(a, R)


if __name__ == "__main__":
    main()
