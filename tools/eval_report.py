#!/usr/bin/env python3
"""eval_report.py - turn tools/evaluate.sh's results into docs/evaluation.md
and the plots in docs/img/ (gnuplot, SVG). Standard library only.

  eval_report.py --dir build/eval --out docs/evaluation.md --img docs/img
  eval_report.py --dir build/eval --summary      (a short table on stdout)
"""

import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys

POLICIES = ["mixdnn", "k8s", "static", "backfill"]
BASELINES = ["k8s", "static", "backfill"]
SHARES = [0, 50, 100]


def load(d):
    wl = []
    with open(os.path.join(d, "workloads.txt")) as f:
        for line in f:
            if line.strip():
                name, cluster = line.split()
                wl.append((name, cluster))
    res = {}
    stats = {}
    for name, _ in wl:
        for s in SHARES:
            p = os.path.join(d, "runs", "%s-s%d.stats.json" % (name, s))
            if os.path.exists(p):
                stats[(name, s)] = json.load(open(p))
            for pol in POLICIES:
                p = os.path.join(d, "runs", "%s-s%d-%s.json" % (name, s, pol))
                try:
                    txt = open(p).read().strip()
                    res[(name, s, pol)] = json.loads(txt) if txt else None
                except (OSError, ValueError):
                    res[(name, s, pol)] = None
    return wl, res, stats


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


def fmt_ms(v):
    return "–" if v is None else ("%.2f" % v if v < 10 else "%.0f" % v)


def pct(new, old):
    if new is None or old is None or old == 0:
        return "–"
    return "%+.1f%%" % (100.0 * (new - old) / old)


def get(res, key, field):
    r = res.get(key)
    if not r:
        return None
    return r.get(field)


def family(name):
    return name.split("-")[0]


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def summary(wl, res):
    print("%-16s %4s  %12s %12s %12s %12s" % ("workload", "soft", *POLICIES))
    for name, _ in wl:
        for s in SHARES:
            row = [get(res, (name, s, p), "avg_jct_s") for p in POLICIES]
            print("%-16s %3d%%  %s" % (name, s, " ".join("%12s" % fmt_s(v) for v in row)))


# ------------------------------------------------------------------ plots

def read_jobs(path):
    out = []
    try:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["status"] == "completed":
                    out.append(r)
    except OSError:
        pass
    return out


def gnuplot(script, cwd):
    try:
        subprocess.run(["gnuplot"], input=script.encode(), cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        sys.stderr.write("eval_report: gnuplot failed: %s\n" % getattr(e, "stderr", e))
        return False


def plot_cdf(d, img, name, share, title):
    pdir = os.path.join(d, "plot")
    os.makedirs(pdir, exist_ok=True)
    plots = []
    for pol in POLICIES:
        jobs = read_jobs(os.path.join(d, "runs", "%s-s%d-%s.jobs.csv" % (name, share, pol)))
        if not jobs:
            continue
        v = sorted(max(float(j["jct_s"]), 1.0) / 3600.0 for j in jobs)
        fn = os.path.join(pdir, "cdf-%s-s%d-%s.dat" % (name, share, pol))
        with open(fn, "w") as f:
            for i, x in enumerate(v):
                f.write("%.6f %.6f\n" % (x, (i + 1) / len(v)))
        plots.append("'%s' using 1:2 with steps lw 2 title '%s'" % (fn, pol))
    if not plots:
        return None
    out = "jct-cdf-%s-s%d.svg" % (name, share)
    script = """set terminal svg size 720,420 dynamic font 'sans,12'
set output '%s'
set title '%s'
set logscale x
set xlabel 'job completion time (h, log scale)'
set ylabel 'fraction of jobs'
set key bottom right
set grid
set yrange [0:1]
plot %s
""" % (os.path.join(os.path.abspath(img), out), title, ", ".join(plots))
    return out if gnuplot(script, pdir) else None


def plot_util(d, img, name, share, cluster_gpus, title):
    pdir = os.path.join(d, "plot")
    os.makedirs(pdir, exist_ok=True)
    plots = []
    for pol in POLICIES:
        src = os.path.join(d, "runs", "%s-s%d-%s.util.csv" % (name, share, pol))
        try:
            rows = list(csv.reader(open(src)))[1:]
        except OSError:
            continue
        fn = os.path.join(pdir, "util-%s-s%d-%s.dat" % (name, share, pol))
        with open(fn, "w") as f:
            for r in rows:
                f.write("%.6f %.6f\n" % (float(r[0]) / 3600.0, float(r[1]) / cluster_gpus))
        plots.append("'%s' using 1:2 with steps lw 1.5 title '%s'" % (fn, pol))
    if not plots:
        return None
    out = "util-%s-s%d.svg" % (name, share)
    script = """set terminal svg size 720,420 dynamic font 'sans,12'
set output '%s'
set title '%s'
set xlabel 'time since the first submission (h)'
set ylabel 'busy GPUs / cluster GPUs'
set key top right
set grid
set yrange [0:1.05]
plot %s
""" % (os.path.join(os.path.abspath(img), out), title, ", ".join(plots))
    return out if gnuplot(script, pdir) else None


# ------------------------------------------------------------------ report

def report(a, wl, res, stats):
    L = []
    w = L.append
    fams = []
    for name, _ in wl:
        if family(name) not in fams:
            fams.append(family(name))
    clusters = {name: c for name, c in wl}

    w("# MixDNN evaluation")
    w("")
    w("Generated by `tools/evaluate.sh` on %s (%s, %d CPUs); do not edit by hand — edit "
      "`tools/eval_report.py` or `tools/eval_analysis.md` and re-run. "
      "Simulations took %s s of wall time.%s"
      % (datetime.date.today().isoformat(), platform.machine(), os.cpu_count() or 0,
         a.elapsed or "?",
         " mixdnn options: `%s`." % a.sim_opts if a.sim_opts else
         " mixdnn ran with the planner's defaults (the extension's settings)."))
    w("")
    w("Simulator: `bin/mixdnn-sim` (docs/simulator.md): every policy plans through the "
      "extension's `mx_plan_round()`; running jobs are never preempted; a job runs for its "
      "planned configuration's run time. Inputs are generated from `../shared/data` by "
      "`tools/mixdnn_data.py` (docs/simulator.md, \"Importers\"). Metrics are those of SPEC §6: "
      "JCT = finish − submit, makespan = last finish − first submit, GPU util = GPU-seconds used ÷ "
      "(cluster GPUs × makespan); solve times are wall-clock milliseconds per round "
      "(rounds with at least one waiting job).")
    w("")
    w("Soft share = the fraction of jobs submitted as soft-model jobs (any GPU type, "
      "`max(1, gpus/2)`..`gpus` GPUs); the rest are hard. The baselines use every job's "
      "requested configuration only, so their results do not depend on the soft share.")
    w("")
    analysis = os.path.join(os.path.dirname(os.path.abspath(__file__)), "eval_analysis.md")

    w("## Setup")
    w("")
    w("| workloads | jobs | cluster | source and choices |")
    w("|---|---:|---|---|")
    desc = {
        "pollux": "Pollux `workload-N.csv` (8 busy Philly hours each); applications mapped to Gavel "
                  "models, durations drawn from philly.csv (60 s–8 h)",
        "gavel": "Gavel `msr_seed0_<id>.trace` (one Philly virtual cluster each); durations = steps ÷ "
                 "measured throughput on the requested type",
        "philly": "3 days of philly.csv virtual cluster 11cb48 from 2017-11-15, durations cut at 1 day, "
                  "inter-arrival times ÷ load factor",
    }
    seen = set()
    for name, c in wl:
        fam = family(name)
        if fam in seen:
            continue
        seen.add(fam)
        names = [n for n, _ in wl if family(n) == fam]
        jobs = sorted(set(stats.get((n, 0), {}).get("jobs", 0) for n in names))
        gpus = stats.get((names[0], 0), {}).get("cluster_gpus", "?")
        w("| %s | %s | `%s`: %s GPUs, K80/P100/V100 in equal parts, 4-GPU nodes | %s |" % (
            ", ".join(names), "–".join(str(j) for j in (jobs[0], jobs[-1])) if len(jobs) > 1 else jobs[0],
            c, gpus, desc.get(fam, "")))
    w("")
    budget = ""
    if (a.sim_opts or "").strip():
        budget = " The mixdnn runs used `%s` on top of the extension's defaults." % a.sim_opts.strip()
    w("Every job requests one GPU type (a seeded draw weighted by the cluster's GPUs of each type) "
      "and its trace GPU count clamped to 8." + budget)
    w("")

    # ---- headline
    w("## Headline: average JCT")
    w("")
    w("Average JCT per policy; for Pollux the mean over its 8 workloads. The last three columns "
      "are MixDNN's change against each baseline (negative = MixDNN is faster).")
    w("")
    w("| workload | soft | mixdnn | k8s | static | backfill | vs k8s | vs static | vs backfill |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    groups = []
    pol_names = [n for n, _ in wl if family(n) == "pollux"]
    if pol_names:
        groups.append(("Pollux 1–8 (mean)", pol_names))
    for n, _ in wl:
        if family(n) != "pollux":
            groups.append((n, [n]))
    head = {}
    for label, names in groups:
        for s in SHARES:
            vals = {p: mean([get(res, (n, s, p), "avg_jct_s") for n in names]) for p in POLICIES}
            head[(label, s)] = vals
            w("| %s | %d%% | %s | %s | %s | %s | %s | %s | %s |" % (
                label, s, *[fmt_s(vals[p]) for p in POLICIES],
                *[pct(vals["mixdnn"], vals[b]) for b in BASELINES]))
    w("")
    wins, cases, exc = 0, 0, []
    for label, names in groups:
        for s in SHARES:
            vals = head[(label, s)]
            if any(vals[p] is None for p in POLICIES):
                continue
            cases += 1
            best = min(vals[b] for b in BASELINES)
            if vals["mixdnn"] <= best:
                wins += 1
            else:
                exc.append("%s at %d%% soft (%s against %s)" % (
                    label, s, fmt_s(vals["mixdnn"]),
                    min((vals[b], b) for b in BASELINES)[1]))
    w("MixDNN has the lowest average JCT in %d of %d cases%s" % (
        wins, cases, "; it loses on " + "; ".join(exc) + "." if exc else "."))
    w("")

    # ---- makespan, the paper's "parallel training time"
    w("## Headline: makespan")
    w("")
    w("Makespan (the paper's \"parallel training time\": last finish − first submit) per policy, "
      "for Pollux the mean over its 8 workloads, with the lower bound of the section \"All results\" "
      "and MixDNN's change against each baseline.")
    w("")
    w("| workload | soft | lower bound | mixdnn | k8s | static | backfill | vs k8s | vs static | vs backfill |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ms_wins, ms_cases, red = 0, 0, {b: [] for b in BASELINES}
    for label, names in groups:
        for s in SHARES:
            vals = {p: mean([get(res, (n, s, p), "makespan_s") for n in names]) for p in POLICIES}
            lb = mean([stats.get((n, s), {}).get("makespan_lb_s") for n in names])
            w("| %s | %d%% | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, s, fmt_s(lb), *[fmt_s(vals[p]) for p in POLICIES],
                *[pct(vals["mixdnn"], vals[b]) for b in BASELINES]))
            if any(vals[p] is None for p in POLICIES):
                continue
            ms_cases += 1
            if vals["mixdnn"] <= min(vals[b] for b in BASELINES) * (1 + 1e-9):
                ms_wins += 1
            for b in BASELINES:
                red[b].append((1 - vals["mixdnn"] / vals[b], label, s))
    w("")
    if ms_cases:
        parts = []
        for b in ("k8s", "static"):
            r, label, s = max(red[b])
            parts.append("up to %.1f%% less than %s (%s at %d%% soft)" % (100 * r, b, label, s))
        w("MixDNN's makespan is no worse than every baseline's in %d of %d cases; it is %s. "
          "The paper reports up to 11.45%% less than Kubernetes and up to 70%% less than static "
          "scheduling." % (ms_wins, ms_cases, " and ".join(parts)))
        w("")

    # ---- where mixdnn loses (computed)
    w("## Where MixDNN loses")
    w("")
    losses = []
    for name, _ in wl:
        for s in SHARES:
            m = res.get((name, s, "mixdnn"))
            if not m:
                continue
            for field, label in (("avg_jct_s", "avg JCT"), ("p99_jct_s", "p99 JCT"),
                                 ("makespan_s", "makespan"), ("avg_wait_s", "avg wait")):
                best = None
                for b in BASELINES:
                    v = get(res, (name, s, b), field)
                    if v is not None and (best is None or v < best[0]):
                        best = (v, b)
                mv = m.get(field)
                if best and mv is not None and mv > best[0] * 1.01 + 1e-9:
                    losses.append((name, s, label, mv, best[0], best[1]))
    if losses:
        w("Every case where MixDNN is more than 1% worse than the best baseline on a metric:")
        w("")
        w("| workload | soft | metric | mixdnn | best baseline | |")
        w("|---|---:|---|---:|---:|---:|")
        for name, s, label, mv, bv, b in losses:
            w("| %s | %d%% | %s | %s | %s (%s) | %s |" % (name, s, label, fmt_s(mv), fmt_s(bv), b,
                                                        pct(mv, bv)))
        w("")
    else:
        w("MixDNN is within 1% of, or better than, the best baseline on every metric and workload.")
        w("")
    if os.path.exists(analysis):
        w(open(analysis).read().strip())
        w("")

    # ---- plots
    w("## Plots")
    w("")
    os.makedirs(a.img, exist_ok=True)
    picks = []
    for fam in ("pollux", "gavel", "philly"):
        for name, c in wl:
            if family(name) == fam:
                picks.append((name, c))
                break
    if any(n == "philly-x2" for n, _ in wl):
        picks = [p for p in picks if family(p[0]) != "philly"] + [("philly-x2", clusters["philly-x2"])]
    for name, c in picks:
        share = 50
        cg = get(res, (name, share, "k8s"), "cluster_gpus") or 1
        f1 = plot_cdf(a.dir, a.img, name, share, "JCT CDF, %s, soft share %d%%" % (name, share))
        f2 = plot_util(a.dir, a.img, name, share, cg, "GPU utilisation, %s, soft share %d%%" % (name, share))
        if f1:
            w("![JCT CDF %s](img/%s)" % (name, f1))
            w("")
        if f2:
            w("![utilisation %s](img/%s)" % (name, f2))
            w("")

    # ---- details
    w("## All results")
    w("")
    w("Lower bounds (for the soft share's job classes, any non-preemptive schedule): "
      "makespan ≥ max(total GPU work at each job's least-work configuration ÷ cluster GPUs, "
      "hard jobs' work on a type ÷ that type's GPUs, submit offset + best run time of any job); "
      "average JCT ≥ mean best run time. Solve times in ms. *moved* = jobs run on a configuration "
      "other than the requested one; *util* = mean utility of the configurations jobs ran on.")
    w("")
    for name, c in wl:
        st0 = stats.get((name, 0), {})
        w("### %s" % name)
        w("")
        w("%d jobs, cluster `%s` (%s GPUs), arrivals over %s, offered load %.2f (GPU-seconds "
          "requested ÷ cluster GPU-seconds over the arrival span)." % (
              st0.get("jobs", 0), c, st0.get("cluster_gpus", "?"), fmt_s(st0.get("span_s")),
              st0.get("offered_load") or 0))
        w("")
        w("| soft | policy | avg JCT | p99 JCT | makespan | avg wait | GPU util | solve p50 | solve p95 | moved | utility |")
        w("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for s in SHARES:
            st = stats.get((name, s), {})
            for p in POLICIES:
                r = res.get((name, s, p))
                if not r:
                    w("| %d%% | %s | failed | | | | | | | | |" % (s, p))
                    continue
                w("| %d%% | %s | %s | %s | %s | %s | %.1f%% | %s | %s | %d | %.2f |" % (
                    s, p, fmt_s(r["avg_jct_s"]), fmt_s(r["p99_jct_s"]), fmt_s(r["makespan_s"]),
                    fmt_s(r["avg_wait_s"]), 100 * r["gpu_util"], fmt_ms(r["solve_ms_p50"]),
                    fmt_ms(r["solve_ms_p95"]), r.get("moved", 0), r.get("avg_utility") or 0))
            if st:
                w("| %d%% | *lower bound* | %s | | %s | | | | | | |" % (
                    s, fmt_s(st.get("avg_jct_lb_s")), fmt_s(st.get("makespan_lb_s"))))
        w("")
    w("## How to reproduce")
    w("")
    w("```")
    w("make bin/mixdnn-sim")
    w("tools/evaluate.sh          # inputs and results in build/eval/, report here")
    w("```")
    w("")
    w("`EVAL_JOBS` sets the parallel simulations (default 2), `SIM_OPTS` passes options to the "
      "mixdnn runs (default none: the extension's defaults; e.g. `--reserve-all` for the "
      "planner before the guards), `MIXDNN_DATA` points at the shared data. "
      "Per-job results are in `build/eval/runs/<workload>-s<share>-<policy>.jobs.csv`, busy GPUs "
      "over time in `.util.csv`. With the MILP's wall-clock time limit, runs whose rounds hit "
      "the limit can differ slightly from run to run; everything else is deterministic.")
    w("")
    with open(a.out, "w") as f:
        f.write("\n".join(L))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--out")
    p.add_argument("--img", default="docs/img")
    p.add_argument("--summary", action="store_true")
    p.add_argument("--elapsed", default="")
    p.add_argument("--sim-opts", default="")
    a = p.parse_args()
    wl, res, stats = load(a.dir)
    if a.summary or not a.out:
        summary(wl, res)
        return
    report(a, wl, res, stats)


if __name__ == "__main__":
    main()
