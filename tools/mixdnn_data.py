#!/usr/bin/env python3
"""mixdnn_data.py - import the public data in ../shared/data into the
simulator's CSV inputs (TYPES.csv, NODES.csv, PROFILES.csv, TRACE.csv).

Standard library only. Every choice made here is documented in
docs/simulator.md ("Importers"); every random choice is seeded, so the same
command line always writes the same file.

  types          Gavel's matrix -> TYPES.csv   (speed: geometric mean vs v100)
  profiles       Gavel's matrix -> PROFILES.csv (consolidated columns)
  nodes          a cluster of N GPUs per type as nodes of G GPUs
  gavel-trace    Gavel msr_seed0_<vc>.trace -> TRACE.csv
  pollux-trace   Pollux workload-N.csv -> TRACE.csv (durations from philly.csv)
  philly-trace   a window of philly.csv -> TRACE.csv, at a load factor
  stats          offered load of a trace on a cluster, and its lower bounds
"""

import argparse
import bisect
import calendar
import csv
import datetime
import math
import os
import random
import sys

TYPES = ["k80", "p100", "v100"]      # Gavel's worker types
REF_SPEED_TYPE = "v100"              # speed 1.0
ALPHA = 0.75                         # the core's fitted scaling exponent (planner.c)
MAX_GPUS = 8                         # Gavel measured 1, 2, 4, 8 GPUs

HEADER = ["name", "submit_s", "model", "model_class", "gpu_type", "gpus", "duration_s",
          "min_gpus", "max_gpus", "allowed_types", "priority", "estimate_s"]

# Round values users pick for a requested run time (Tsafrir, Etsion and
# Feitelson, "Modeling User Runtime Estimates", JSSPP 2005: estimates cluster
# on a few round values); above the last, whole days.
ROUND_ESTIMATES = [m * 60.0 for m in (5, 10, 15, 20, 30, 45)] + \
    [h * 3600.0 for h in (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 16, 18, 20, 24)]
# Overestimation model: accuracy (run time / estimate) uniform on (MIN_ACCURACY, 1].
MIN_ACCURACY = 0.02


def parse_estimate(spec):
    """exact | lognormal:SIGMA | overestimate -> (tag for file names, spec)."""
    if spec == "exact":
        return "exact"
    if spec == "overestimate":
        return "over"
    if spec.startswith("lognormal:"):
        try:
            sigma = float(spec.split(":", 1)[1])
        except ValueError:
            sigma = -1
        if sigma > 0:
            return "ln%g" % sigma
    die("--estimate %r: expected exact, lognormal:SIGMA (SIGMA > 0) or overestimate" % spec)


def estimate(spec, dur, z, u):
    """The user's estimate of a run time dur, from the job's own draws z ~ N(0,1)
    and u ~ U[0,1) (docs/simulator.md, "Estimates"). None = exact."""
    if spec == "exact":
        return None
    if spec == "overestimate":
        e = dur / (MIN_ACCURACY + (1.0 - MIN_ACCURACY) * (1.0 - u))
        for r in ROUND_ESTIMATES:
            if e <= r:
                return r
        return math.ceil(e / 86400.0) * 86400.0
    sigma = float(spec.split(":", 1)[1])
    return max(dur * math.exp(sigma * z), 1.0)


def die(msg):
    sys.stderr.write("mixdnn_data: %s\n" % msg)
    sys.exit(2)


def default_data_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "..", "shared", "data"),
                 os.path.join(here, "..", "shared", "data"),
                 "/work/shared/data"):
        if os.path.isdir(cand):
            return os.path.normpath(cand)
    return "../shared/data"


# ---------------------------------------------------------------- Gavel matrix

def load_matrix(data):
    """{job_type: {type: {gpus: thr}}} from throughput_matrix.csv (consolidated)."""
    path = os.path.join(data, "gavel", "throughput_matrix.csv")
    try:
        f = open(path, newline="")
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    m = {}
    with f:
        for row in csv.DictReader(f):
            jt = row["job_type"]
            g = int(row["scale_factor_gpus"])
            for t in TYPES:
                v = row["%s_steps_per_s" % t]
                thr = float(v) if v.strip() else 0.0
                m.setdefault(jt, {}).setdefault(t, {})[g] = thr
    return m


def speeds(m):
    """Geometric mean over job types of thr(type, 1 GPU) / thr(v100, 1 GPU)."""
    out = {}
    for t in TYPES:
        logs = []
        for jt, byt in m.items():
            a, b = byt[t].get(1, 0.0), byt[REF_SPEED_TYPE].get(1, 0.0)
            if a > 0 and b > 0:
                logs.append(math.log(a / b))
        out[t] = math.exp(sum(logs) / len(logs))
    return out


def throughput(m, jt, t, n, alpha=ALPHA):
    """The core's rule (utility.c): exact point, else the nearest measured count
    of that type (log distance, ties to the smaller) scaled by (n/m)^alpha; a
    zero point stays zero."""
    pts = m[jt][t]
    if n in pts:
        return pts[n]
    best = min(pts, key=lambda g: (abs(math.log(n / g)), g))
    if pts[best] <= 0:
        return 0.0
    return pts[best] * (n / best) ** alpha


def cmd_types(a):
    m = load_matrix(a.data)
    sp = speeds(m)
    w = csv.writer(open_out(a.out), lineterminator="\n")
    w.writerow(["gpu_type", "speed"])
    for t in TYPES:
        w.writerow([t, "%.4f" % sp[t]])


def cmd_profiles(a):
    m = load_matrix(a.data)
    w = csv.writer(open_out(a.out), lineterminator="\n")
    w.writerow(["model", "gpu_type", "gpus", "throughput"])
    for jt in sorted(m):
        for t in TYPES:
            for g in sorted(m[jt][t]):
                w.writerow([jt, t, g, repr(m[jt][t][g]) if m[jt][t][g] > 0 else "0"])


# ---------------------------------------------------------------- clusters

PRESETS = {
    "small": (8, 4),      # 8 GPUs per type, 4-GPU nodes: 24 GPUs
    "medium": (16, 4),    # 48 GPUs
    "gavel": (36, 4),     # Gavel's 36 V100 + 36 P100 + 36 K80: 108 GPUs
    "large": (64, 8),     # 192 GPUs
}


def cmd_nodes(a):
    per, gpn = PRESETS[a.preset] if a.preset else (a.per_type, a.gpus_per_node)
    if a.per_type:
        per = a.per_type
    if a.gpus_per_node:
        gpn = a.gpus_per_node
    counts = {}
    if a.mix:
        for part in a.mix.split(","):
            t, n = part.split("=")
            counts[t.strip()] = int(n)
    else:
        counts = {t: per for t in TYPES}
    w = csv.writer(open_out(a.out), lineterminator="\n")
    w.writerow(["node", "gpu_type", "gpus"])
    for t in TYPES[::-1] + sorted(set(counts) - set(TYPES)):
        if t not in counts:
            continue
        n, i = counts[t], 0
        while n > 0:
            g = min(gpn, n)
            w.writerow(["%s-%02d" % (t, i), t, g])
            n -= g
            i += 1


def cluster_totals(path):
    tot = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("status", "up") in ("", "up"):
                tot[row["gpu_type"]] = tot.get(row["gpu_type"], 0) + int(row["gpus"])
    return tot


# ---------------------------------------------------------------- traces

class TraceWriter:
    """Reference type, soft share and rows, shared by every trace importer."""

    def __init__(self, a, m):
        self.a = a
        self.m = m
        self.rng_type = random.Random("type-%d" % a.seed)
        self.rng_soft = random.Random("soft-%d" % a.seed)
        self.rng_est = random.Random("estimate-%d" % a.seed)
        self.totals = cluster_totals(a.nodes) if a.nodes else {t: 10 ** 9 for t in TYPES}
        self.rows = []
        self.dropped = 0

    def pick_type(self, jt, g):
        """Requested (reference) type: --ref-type, or for 'mix' a seeded draw
        among the types that can run (jt, g) and have g GPUs, weighted by the
        cluster's GPUs of each type (--type-draw capacity) times, by default
        (--type-draw throughput), the job's throughput there relative to its
        fastest type: a user rarely asks for a GPU that runs the job 5x slower."""
        ok = [t for t in TYPES if throughput(self.m, jt, t, g) > 0 and self.totals.get(t, 0) >= g]
        if not ok:
            return None
        if self.a.ref_type != "mix":
            return self.a.ref_type if self.a.ref_type in ok else None
        weights = [self.totals.get(t, 0) if self.a.nodes else 1 for t in ok]
        if self.a.type_draw == "throughput":
            best = max(throughput(self.m, jt, t, g) for t in ok)
            weights = [w * throughput(self.m, jt, t, g) / best for w, t in zip(weights, ok)]
        r = self.rng_type.random() * sum(weights)
        for t, wt in zip(ok, weights):
            if r < wt:
                return t
            r -= wt
        return ok[-1]

    def fastest_runtime(self, jt, g, t, duration):
        """A recorded run time taken as the run time on the job's fastest type,
        as the run time on the requested type t (its measured throughput)."""
        best = max(throughput(self.m, jt, k, g) for k in TYPES)
        return duration * best / throughput(self.m, jt, t, g)

    def add(self, name, submit, jt, g, t, duration):
        """One job; its soft draw and estimate draws come from their own
        streams, one draw each per job, so every variant has the same jobs."""
        self.rows.append((name, submit, jt, g, t, max(duration, 1.0), self.rng_soft.random(),
                          self.rng_est.gauss(0.0, 1.0), self.rng_est.random()))

    def write(self):
        """One file per (soft share, estimate model) of --soft-share and --estimate
        (comma-separated); --out may name them with {share} (percent) and {est}."""
        self.rows.sort(key=lambda r: r[1])
        shares = [float(x) for x in str(self.a.soft_share).split(",")]
        ests = self.a.estimate.split(",")
        if (len(shares) > 1 or len(ests) > 1) and "{" not in (self.a.out or ""):
            die("several --soft-share or --estimate values need {share} and {est} in --out")
        for share in shares:
            for spec in ests:
                tag = parse_estimate(spec)
                path = (self.a.out or "-").replace("{share}", "%g" % round(share * 100, 6)).replace("{est}", tag)
                w = csv.writer(open_out(path), lineterminator="\n")
                w.writerow(HEADER)
                for name, submit, jt, g, t, dur, u_soft, z, u in self.rows:
                    e = estimate(spec, dur, z, u)
                    w.writerow([name, "%.3f" % submit, jt, "soft" if u_soft < share else "hard", t, g,
                                "%.3f" % dur, "", "", "", 0, "" if e is None else "%.3f" % e])
        if self.dropped:
            sys.stderr.write("mixdnn_data: %d jobs dropped (no type of the cluster can run them)\n"
                             % self.dropped)


def clamp_gpus(g):
    """Counts above 8 (Gavel measured up to 8) become 8; the caller keeps the
    job's work (steps, or GPU-seconds) unchanged."""
    return min(max(g, 1), MAX_GPUS)


def cmd_gavel_trace(a):
    m = load_matrix(a.data)
    tw = TraceWriter(a, m)
    path = a.trace if os.path.exists(a.trace) else os.path.join(
        a.data, "gavel", "traces", "msr_seed0_%s.trace" % a.trace)
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    t0 = None
    for i, line in enumerate(lines):
        f = line.split("\t")
        if len(f) != 7:
            die("%s:%d: expected 7 tab-separated fields" % (path, i + 1))
        jt, steps, arrival, sf = f[0], float(f[4]), float(f[5]), int(f[6])
        if jt not in m:
            die("%s:%d: job type %r is not in the matrix" % (path, i + 1, jt))
        if t0 is None:
            t0 = arrival
        g = clamp_gpus(sf)
        t = tw.pick_type(jt, g)
        if t is None:
            tw.dropped += 1
            continue
        dur = steps / throughput(m, jt, t, g)
        tw.add("%s-%04d" % (os.path.basename(path).split(".")[0].replace("msr_seed0_", ""), i),
               (arrival - t0) / a.load, jt, g, t, dur)
    tw.write()


def load_philly(data):
    path = os.path.join(data, "pollux", "philly.csv")
    rows = []
    try:
        f = open(path, newline="")
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    with f:
        for r in csv.DictReader(f):
            d, t = r["timestamp"].split(" ")
            y, mo, da = d.split("-")
            h, mi, se = t.split(":")
            ts = calendar.timegm((int(y), int(mo), int(da), int(h), int(mi), int(se)))
            rows.append((ts, float(r["duration"]), int(r["num_gpus"]), r["cluster"]))
    rows.sort()
    return rows


def gpu_bucket(g):
    return 0 if g <= 1 else 1 if g <= 4 else 2 if g <= 8 else 3


# Pollux application -> (Gavel model family, its batch sizes); the variant is
# the batch size nearest (log scale) to the job's per-GPU batch size.
POLLUX_MAP = {
    "cifar10": "ResNet-18",          # ResNet-18 on CIFAR-10 in both
    "imagenet": "ResNet-50",         # ResNet-50 on ImageNet in both
    "bert": "Transformer",           # a Transformer encoder
    "deepspeech2": "LM",             # recurrent (LSTM/GRU) sequence model
    "yolov3": "ResNet-50",           # convolutional backbone, large images
    "ncf": "Recommendation",         # collaborative filtering on MovieLens
}


def gavel_variant(m, family, per_gpu_batch):
    cands = []
    for jt in m:
        if jt.split(" (")[0] == family and "batch size" in jt:
            b = int(jt.split("batch size ")[1].rstrip(")"))
            cands.append((abs(math.log(max(per_gpu_batch, 1) / b)), b, jt))
    return min(cands)[2]


def cmd_pollux_trace(a):
    m = load_matrix(a.data)
    tw = TraceWriter(a, m)
    path = a.workload if os.path.exists(a.workload) else os.path.join(
        a.data, "pollux", "workload-%s.csv" % a.workload)
    philly = load_philly(a.data)
    pool = {}
    for ts, d, g, vc in philly:
        if a.min_duration <= d <= a.max_duration:
            pool.setdefault(gpu_bucket(g), []).append(d)
    rng = random.Random("pollux-duration-%d-%s" % (a.seed, os.path.basename(path)))
    try:
        f = open(path, newline="")
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    with f:
        for r in csv.DictReader(f):
            app = r["application"]
            if app not in POLLUX_MAP:
                die("%s: unknown application %r" % (path, app))
            orig = int(r["num_replicas"])
            jt = gavel_variant(m, POLLUX_MAP[app], int(r["batch_size"]) / max(orig, 1))
            d = rng.choice(pool[gpu_bucket(orig)])
            g = clamp_gpus(orig)
            d *= orig / g          # same GPU-seconds after clamping
            t = tw.pick_type(jt, g)
            if t is None:
                tw.dropped += 1
                continue
            tw.add(r["name"], float(r["time"]) / a.load, jt, g, t, tw.fastest_runtime(jt, g, t, d))
    tw.write()


def cmd_philly_trace(a):
    m = load_matrix(a.data)
    tw = TraceWriter(a, m)
    rows = [r for r in load_philly(a.data) if a.vc in ("", "all") or r[3] == a.vc]
    if not rows:
        die("no philly.csv jobs in virtual cluster %r" % a.vc)
    span = a.days * 86400.0
    if a.start == "auto":
        # the day-aligned window with the most submissions
        ts = [r[0] for r in rows]
        day0 = math.floor(ts[0] / 86400) * 86400
        best = None
        d = day0
        while d <= ts[-1]:
            n = bisect.bisect_left(ts, d + span) - bisect.bisect_left(ts, d)
            if best is None or n > best[0]:
                best = (n, d)
            d += 86400
        start = best[1]
    else:
        start = datetime.datetime.strptime(a.start, "%Y-%m-%d").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    win = [r for r in rows if start <= r[0] < start + span]
    if not win:
        die("no philly.csv jobs in that window")
    first = win[0][0]
    models = sorted(m)
    rng = random.Random("philly-model-%d" % a.seed)
    for i, (ts, d, orig, vc) in enumerate(win):
        g = clamp_gpus(orig)
        d = min(max(d, 1.0), a.max_duration) * orig / g
        jt = None
        for _ in range(100):
            c = rng.choice(models)
            if tw.pick_type(c, g) is not None:
                jt = c
                break
        t = tw.pick_type(jt, g) if jt else None
        if t is None:
            tw.dropped += 1
            continue
        tw.add("philly-%s-%05d" % (vc, i), (ts - first) / a.load, jt, g, t, tw.fastest_runtime(jt, g, t, d))
    sys.stderr.write("mixdnn_data: philly window %s + %g days of %s: %d jobs\n" % (
        datetime.datetime.fromtimestamp(start, datetime.timezone.utc).strftime("%Y-%m-%d"),
        a.days, a.vc or "all", len(win)))
    tw.write()


# ---------------------------------------------------------------- stats / bounds

def read_types(path):
    with open(path, newline="") as f:
        return {r["gpu_type"]: float(r.get("speed") or 1.0) for r in csv.DictReader(f)}


def read_profiles(path):
    m = {}
    if not path:
        return m
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            m.setdefault(r["model"], {}).setdefault(r["gpu_type"], {})[int(r["gpus"])] = float(r["throughput"])
    return m


def thr_any(prof, speed, model, ref_type, t, n):
    """mx_throughput of utility.c for the cases the importers produce."""
    p = prof.get(model)
    if p:
        if t in p:
            return throughput(prof, model, t, n)
        anchor = ref_type if ref_type in p and any(v > 0 for v in p[ref_type].values()) else None
        if anchor is None:
            for k in speed:
                if k in p and any(v > 0 for v in p[k].values()):
                    anchor = k
                    break
        if anchor:
            v = throughput(prof, model, anchor, n)
            return v * speed[t] / speed[anchor] if v > 0 else 0.0
    return speed[t] * n ** ALPHA


def job_configs(job, prof, speed, totals, cls):
    """(run time, GPUs, type) of every configuration the job may use: the
    requested one for a hard job; every allowed type and min..max GPUs that
    the cluster holds for a soft one (as utility.c, whose candidate counts
    are a subset of these, so bounds computed from them stay valid)."""
    model, rt, g, dur = job["model"], job["gpu_type"], int(job["gpus"]), float(job["duration_s"])
    if cls == "hard":
        return [(dur, g, rt)]
    ref = thr_any(prof, speed, model, rt, rt, g) if rt else g ** ALPHA
    lo = int(job["min_gpus"]) if job.get("min_gpus") else max(1, g // 2)
    hi = int(job["max_gpus"]) if job.get("max_gpus") else g
    types = job["allowed_types"].split("|") if job.get("allowed_types") else list(speed)
    out = []
    for t in types:
        for n in range(lo, hi + 1):
            if n > totals.get(t, 0):
                continue
            thr = thr_any(prof, speed, model, rt, t, n)
            if thr > 0 and ref > 0:
                out.append((dur * ref / thr, n, t))
    return out or [(dur, g, rt)]


def bounds(jobs, prof, speed, totals, classes=None):
    """Lower bounds for any non-preemptive schedule of the jobs on the cluster:
    makespan >= max(total GPU work at each job's least-work configuration / GPUs,
                    hard jobs' work on each type / that type's GPUs,
                    max over jobs of (submit - first submit + best run time));
    average JCT >= mean best run time."""
    gpus = sum(totals.values())
    first = min(float(j["submit_s"]) for j in jobs)
    work = 0.0
    hard_work = {}
    longest = 0.0
    sum_best = 0.0
    for j in jobs:
        cls = classes or (j["model_class"] or "soft")
        cf = job_configs(j, prof, speed, totals, cls)
        best = min(c[0] for c in cf)
        work += min(c[0] * c[1] for c in cf)
        if cls == "hard":
            hard_work[j["gpu_type"]] = hard_work.get(j["gpu_type"], 0.0) + cf[0][0] * cf[0][1]
        longest = max(longest, float(j["submit_s"]) - first + best)
        sum_best += best
    by_type = {t: w / totals[t] for t, w in hard_work.items() if totals.get(t)}
    per_type = max(list(by_type.values()) or [0.0])
    return {"makespan_lb_s": max(work / gpus, per_type, longest),
            "work_lb_s": work / gpus, "type_lb_s": per_type, "type_lb_by_type_s": by_type,
            "longest_lb_s": longest, "avg_jct_lb_s": sum_best / len(jobs)}


def cmd_stats(a):
    speed = read_types(a.types)
    prof = read_profiles(a.profiles)
    totals = cluster_totals(a.nodes)
    for path in a.trace:
        trace_stats(path, speed, prof, totals)


def trace_stats(path, speed, prof, totals):
    """One JSON line: offered load and lower bounds of the trace at path."""
    import json
    gpus = sum(totals.values())
    with open(path, newline="") as f:
        jobs = list(csv.DictReader(f))
    submits = [float(j["submit_s"]) for j in jobs]
    span = max(submits) - min(submits)
    work_req = sum(float(j["duration_s"]) * int(j["gpus"]) for j in jobs)
    out = {"jobs": len(jobs), "span_s": span, "cluster_gpus": gpus,
           "offered_load": work_req / (gpus * span) if span > 0 else None,
           "soft_jobs": sum(1 for j in jobs if (j["model_class"] or "soft") == "soft")}
    out.update(bounds(jobs, prof, speed, totals))
    print(json.dumps(out))


# ---------------------------------------------------------------- main

def open_out(path):
    if path in (None, "-"):
        return sys.stdout
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    return open(path, "w", newline="")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=default_data_dir(), help="the shared data directory (default %(default)s)")
    sub = p.add_subparsers(dest="cmd", required=True)

    def out(sp):
        sp.add_argument("--out", default="-", help="output file (default stdout)")

    def trace_opts(sp):
        out(sp)
        sp.add_argument("--nodes", help="NODES.csv: reference types are drawn by its GPUs per type")
        sp.add_argument("--ref-type", default="mix", choices=TYPES + ["mix"],
                        help="requested/reference GPU type (default mix: seeded draw)")
        sp.add_argument("--soft-share", default="0", help="fraction of soft jobs (seeded); comma-separated for several files")
        sp.add_argument("--estimate", default="exact",
                        help="exact, lognormal:SIGMA or overestimate (docs/simulator.md); comma-separated for several files")
        sp.add_argument("--type-draw", default="throughput", choices=["throughput", "capacity"],
                        help="weights of the requested-type draw (default %(default)s)")
        sp.add_argument("--seed", type=int, default=1)
        sp.add_argument("--load", type=float, default=1.0,
                        help="load factor: inter-arrival times are divided by it")

    out(sub.add_parser("types", help="TYPES.csv from Gavel's matrix"))
    out(sub.add_parser("profiles", help="PROFILES.csv from Gavel's matrix"))
    sp = sub.add_parser("nodes", help="NODES.csv")
    out(sp)
    sp.add_argument("--preset", choices=sorted(PRESETS), help="small, medium, gavel (36/type), large")
    sp.add_argument("--per-type", type=int, default=0, help="GPUs of each type")
    sp.add_argument("--gpus-per-node", type=int, default=0)
    sp.add_argument("--mix", help="explicit GPUs per type, e.g. v100=36,p100=36,k80=36")
    sp = sub.add_parser("gavel-trace", help="TRACE.csv from a Gavel msr trace")
    trace_opts(sp)
    sp.add_argument("--trace", required=True, help="trace file, or its id (e.g. 0e4a51)")
    sp = sub.add_parser("pollux-trace", help="TRACE.csv from a Pollux workload")
    trace_opts(sp)
    sp.add_argument("--workload", required=True, help="workload file, or its number 1..8")
    sp.add_argument("--min-duration", type=float, default=60.0)
    sp.add_argument("--max-duration", type=float, default=8 * 3600.0)
    sp = sub.add_parser("philly-trace", help="TRACE.csv from a window of philly.csv")
    trace_opts(sp)
    sp.add_argument("--vc", default="11cb48", help="virtual cluster id, or 'all' (default %(default)s)")
    sp.add_argument("--start", default="2017-11-15",
                    help="YYYY-MM-DD (UTC), or auto (the window with most submissions); default %(default)s")
    sp.add_argument("--days", type=float, default=3.0)
    sp.add_argument("--max-duration", type=float, default=float("inf"),
                    help="cut longer durations to this (s); default: keep them")
    sp = sub.add_parser("stats", help="offered load and makespan lower bound")
    sp.add_argument("--types", required=True)
    sp.add_argument("--nodes", required=True)
    sp.add_argument("--profiles")
    sp.add_argument("--trace", required=True, action="append",
                    help="TRACE.csv; repeat for several (one JSON line each, in order)")
    a = p.parse_args(argv)
    {"types": cmd_types, "profiles": cmd_profiles, "nodes": cmd_nodes,
     "gavel-trace": cmd_gavel_trace, "pollux-trace": cmd_pollux_trace,
     "philly-trace": cmd_philly_trace, "stats": cmd_stats}[a.cmd](a)


if __name__ == "__main__":
    main()
