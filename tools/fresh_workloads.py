#!/usr/bin/env python3
"""fresh_workloads.py - 24 workloads for mixdnn-sim unlike the families of
tools/opt_workloads.py, which the defaults were tuned on: an out-of-sample
check (docs/model.md, table R2). Written by an independent reviewer for
issue #13. Standard library only, every draw seeded.

  tools/fresh_workloads.py --out DIR [--seed N]   types/profiles/nodes/traces
  tools/fresh_workloads.py --list                 the workloads and clusters
  tools/fresh_bench.sh                            runs them (make eval-fresh)

What differs from tools/opt_workloads.py (which draws Philly durations and GPU
counts, reference type by capacity, Poisson or batch arrivals, soft =
g/2..g on any type, lognormal noise) -- per workload, see WORKLOADS below:
  * clusters: two types (v100+k80, p100+v100), big slow pool + small fast pool,
    8-GPU nodes, four types (a synthetic 'a100' = v100 x a per-model factor
    1.4..2.6, profiled), a fast-heavy cluster, a 24-GPU cluster
  * GPU counts: 'multi' = {1:30%, 2:25%, 4:25%, 8:20%} (Philly is ~97 % 1-GPU)
  * arrivals: bursty (bursts of 1..30 jobs within 120 s), batch+online mix,
    diurnal (sinusoidal rate, thinning), light (0.5) and heavy (8) loads
  * soft jobs: 0 % and 100 %; 'wide' (1..2g GPUs), 'typed' (ref type + one
    other allowed), 'notype' (no gpu_type: duration at speed 1.0)
  * estimates: lognormal sigma 0.5 / 1.0, systematic bias x2 and x0.5 (with
    sigma 0.3 noise), per-user bias (10 users, lognormal(0,0.7) each, 0.3 noise)
  * reference type drawn by capacity or by capacity x relative throughput
  * durations from Philly 120 s .. 6 h, or 24 h (heavy tail), or Gavel msr
    trace steps / throughput (job type + scale factor from the Gavel trace)
"""
import argparse
import csv
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mixdnn_data as MD  # noqa: E402  (load_matrix, throughput, speeds)

# the public data, as tools/mixdnn_data.py finds it
DATA = os.environ.get("MIXDNN_DATA") or MD.default_data_dir()

# cluster name -> (list of (type, gpus, gpus_per_node))
CLUSTERS = {
    "two-vk": [("v100", 24, 4), ("k80", 72, 4)],
    "two-pv": [("v100", 32, 8), ("p100", 32, 8)],
    "slowbig": [("v100", 16, 4), ("k80", 128, 8)],
    "n8": [("v100", 32, 8), ("p100", 32, 8), ("k80", 32, 8)],
    "four": [("a100", 16, 8), ("v100", 32, 8), ("p100", 32, 8), ("k80", 32, 8)],
    "fastbig": [("v100", 64, 4), ("p100", 16, 4), ("k80", 16, 4)],
    "gavel": [("v100", 36, 4), ("p100", 36, 4), ("k80", 36, 4)],
    "small": [("v100", 8, 4), ("p100", 8, 4), ("k80", 8, 4)],
    "medium": [("v100", 16, 4), ("p100", 16, 4), ("k80", 16, 4)],
}

# name cluster arrivals load soft softkind est gpus dur reftype jobs
#   arrivals: online | bursty | batch | mixed (40 % at 0, rest online) | diurnal
#   est: exact | ln:S | bias:B:S | user:S
#   gpus: philly | multi        dur: philly | long (24 h cap) | gavel (msr steps)
#   reftype: cap | thr
WORKLOADS = """
f01 two-vk  online  2.0 0.5 half   exact     philly philly cap 300
f02 two-vk  online  1.0 1.0 half   ln:0.5    philly philly cap 300
f03 two-pv  online  3.0 0.5 half   ln:1.0    multi  philly cap 300
f04 slowbig online  2.0 0.5 half   exact     philly philly cap 300
f05 slowbig batch   1   0.8 half   ln:0.5    multi  philly cap 300
f06 n8      online  3.0 0.5 half   exact     multi  philly cap 300
f07 n8      batch   1   0.5 half   ln:1.0    multi  philly cap 300
f08 four    online  3.0 0.5 half   exact     philly philly cap 300
f09 four    bursty  2.0 0.8 half   ln:0.5    multi  philly cap 300
f10 fastbig online  0.5 0.5 half   exact     philly philly cap 300
f11 gavel   online  0.6 0.0 half   ln:0.5    philly philly cap 300
f12 gavel   online  8.0 0.5 half   exact     philly philly cap 300
f13 gavel   bursty  3.0 0.5 half   ln:1.0    philly philly cap 300
f14 gavel   online  3.0 0.0 half   exact     multi  philly cap 300
f15 gavel   online  3.0 1.0 half   bias:2:0.3   multi philly cap 300
f16 gavel   online  3.0 0.5 half   bias:0.5:0.3 philly philly cap 300
f17 medium  mixed   2.0 0.5 half   user:0.3  philly philly cap 200
f18 small   online  2.0 0.5 half   exact     multi  philly cap 200
f19 gavel   online  3.0 0.5 wide   exact     philly philly thr 300
f20 two-vk  bursty  4.0 0.3 half   ln:1.0    multi  philly cap 300
f21 fastbig diurnal 2.0 0.8 typed  bias:0.7:0.5 philly philly cap 300
f22 n8      online  2.0 0.5 half   ln:0.5    philly gavel  thr 300
f23 gavel   online  3.0 0.5 notype exact     philly long   cap 300
f24 four    mixed   3.0 0.5 wide   ln:1.0    multi  philly thr 300
"""


def parse_workloads():
    out = []
    for line in WORKLOADS.strip().splitlines():
        f = line.split()
        out.append(dict(name=f[0], cluster=f[1], arrivals=f[2], load=float(f[3]), soft=float(f[4]),
                        softkind=f[5], est=f[6], gpus=f[7], dur=f[8], reftype=f[9], jobs=int(f[10])))
    return out


def a100_factor(model):
    return random.Random("a100-" + model).uniform(1.4, 2.6)


def build_matrix():
    """Gavel's matrix plus a synthetic a100 (= v100 x per-model factor)."""
    m = MD.load_matrix(DATA)
    for jt in m:
        f = a100_factor(jt)
        m[jt]["a100"] = {g: v * f for g, v in m[jt]["v100"].items()}
    return m


def write_common(out, m):
    types = ["k80", "p100", "v100", "a100"]
    sp = MD.speeds(m)
    logs = [math.log(a100_factor(jt)) for jt in m if m[jt]["v100"].get(1, 0) > 0]
    sp["a100"] = math.exp(sum(logs) / len(logs))
    with open(os.path.join(out, "types.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["gpu_type", "speed"])
        for t in types:
            w.writerow([t, "%.4f" % sp[t]])
    with open(os.path.join(out, "profiles.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["model", "gpu_type", "gpus", "throughput"])
        for jt in sorted(m):
            for t in types:
                for g in sorted(m[jt][t]):
                    v = m[jt][t][g]
                    w.writerow([jt, t, g, repr(v) if v > 0 else "0"])
    for name, spec in CLUSTERS.items():
        with open(os.path.join(out, "nodes-%s.csv" % name), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["node", "gpu_type", "gpus"])
            for t, n, gpn in spec:
                i = 0
                while n > 0:
                    g = min(gpn, n)
                    w.writerow(["%s-%02d" % (t, i), t, g])
                    n -= g
                    i += 1


_PHILLY = None


def philly_pool():
    global _PHILLY
    if _PHILLY is None:
        rows = []
        with open(os.path.join(DATA, "pollux", "philly.csv"), newline="") as f:
            for r in csv.DictReader(f):
                rows.append((float(r["duration"]), int(r["num_gpus"])))
        _PHILLY = rows
    return _PHILLY


_GAVEL = None


def gavel_pool():
    global _GAVEL
    if _GAVEL is None:
        rows = []
        d = os.path.join(DATA, "gavel", "traces")
        for fn in sorted(os.listdir(d)):
            for line in open(os.path.join(d, fn)):
                f = line.rstrip("\n").split("\t")
                rows.append((f[0], float(f[4]), int(f[6])))
        _GAVEL = rows
    return _GAVEL


def gen(wl, m, out, seed=1):
    rng = random.Random("fresh-" + wl["name"] + ("" if seed == 1 else "-s%d" % seed))
    per = {t: n for t, n, _ in CLUSTERS[wl["cluster"]]}
    types = [t for t in ["k80", "p100", "v100", "a100"] if t in per]
    total = sum(per.values())
    models = sorted(jt for jt in m if all(m[jt][t].get(1, 0) > 0 for t in types))
    maxdur = 24 * 3600.0 if wl["dur"] == "long" else 6 * 3600.0
    pool = [(d, g) for d, g in philly_pool() if 120 <= d <= maxdur and g >= 1]
    users = [math.exp(rng.gauss(0, 0.7)) for _ in range(10)]
    rows, work = [], 0.0
    for i in range(wl["jobs"]):
        if wl["dur"] == "gavel":
            while True:
                jt, steps, sf = rng.choice(gavel_pool())
                if jt in models:
                    break
            g = min(8, 1 << int(math.floor(math.log2(max(sf, 1)))))
        else:
            d0, g0 = rng.choice(pool)
            jt = rng.choice(models)
            if wl["gpus"] == "multi":
                g = rng.choices([1, 2, 4, 8], weights=[30, 25, 25, 20])[0]
            else:
                g = min(8, 1 << int(math.floor(math.log2(g0))))
        # reference type: by capacity, or capacity x throughput relative to best
        okt = [t for t in types if per[t] >= 1]
        if wl["reftype"] == "thr":
            best = max(MD.throughput(m, jt, t, 1) for t in okt)
            wts = [per[t] * MD.throughput(m, jt, t, 1) / best for t in okt]
        else:
            wts = [per[t] for t in okt]
        t = rng.choices(okt, weights=wts)[0]
        while g > 1 and MD.throughput(m, jt, t, g) <= 0:
            g //= 2
        g = min(g, per[t])
        if wl["dur"] == "gavel":
            dur = steps / MD.throughput(m, jt, t, g)
            dur = min(max(dur, 120.0), 8 * 3600.0)
        else:
            dur = d0
        soft = rng.random() < wl["soft"]
        z = rng.gauss(0.0, 1.0)
        user = rng.randrange(10)
        e = wl["est"]
        if e == "exact":
            est = dur
        elif e.startswith("ln:"):
            est = dur * math.exp(float(e[3:]) * z)
        elif e.startswith("bias:"):
            _, b, s = e.split(":")
            est = dur * float(b) * math.exp(float(s) * z)
        elif e.startswith("user:"):
            est = dur * users[user] * math.exp(float(e[5:]) * z)
        est = max(est, 1.0)
        other = rng.choice([x for x in types if x != t] or [t])
        rows.append(dict(model=jt, t=t, g=g, dur=dur, est=est, soft=soft, other=other, user=user))
        work += dur * g
    n = len(rows)
    gap = work / (total * wl["load"]) / n
    # submit times
    arr = wl["arrivals"]
    times = []
    if arr == "batch":
        times = [0.0] * n
    elif arr == "online":
        t = 0.0
        for i in range(n):
            if i:
                t += rng.expovariate(1.0 / gap)
            times.append(t)
    elif arr == "mixed":
        k = int(0.4 * n)
        t = 0.0
        for i in range(n):
            if i >= k:
                t += rng.expovariate(1.0 / gap)
            times.append(t)
    elif arr == "bursty":
        t = 0.0
        while len(times) < n:
            b = min(n - len(times), rng.randint(1, 30))
            for _ in range(b):
                times.append(t + rng.uniform(0, 120))
            t += rng.expovariate(1.0 / (gap * b))
        times.sort()
        times = [x - times[0] for x in times]
    elif arr == "diurnal":
        span = gap * n
        period = span / 2.0
        lam = 1.0 / gap
        t = 0.0
        while len(times) < n:
            t += rng.expovariate(lam * 1.8)
            if rng.random() < (1 + 0.8 * math.sin(2 * math.pi * t / period)) / 1.8:
                times.append(t)
        times = [x - times[0] for x in times]
    path = os.path.join(out, "%s.csv" % wl["name"])
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "submit_s", "model", "model_class", "gpu_type", "gpus", "duration_s",
                    "min_gpus", "max_gpus", "allowed_types", "priority", "estimate_s"])
        for i, (r, s) in enumerate(zip(rows, times)):
            g, kind = r["g"], wl["softkind"]
            mn = mx = allowed = ""
            gt = r["t"]
            dur = r["dur"]
            est = r["est"]
            if r["soft"]:
                mn, mx = max(1, g // 2), g
                if kind == "wide":
                    mn, mx = 1, min(2 * g, 8)
                elif kind == "typed":
                    allowed = "|".join(sorted({r["t"], r["other"]}))
                elif kind == "notype":
                    # no gpu_type: its Philly duration is read as the run time on
                    # g GPUs of speed 1.0 (the simulator's convention)
                    gt = ""
            w.writerow(["j%04d" % i, "%.3f" % s, r["model"], "soft" if r["soft"] else "hard", gt, g,
                        "%.3f" % dur, mn, mx, allowed, 0, "%.3f" % est])
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--seed", type=int, default=1, help="1 = the reported set; others redraw every job")
    a = ap.parse_args()
    wls = parse_workloads()
    if a.list:
        for wl in wls:
            print(wl["name"], wl["cluster"])
        return
    if not a.out:
        ap.error("--out DIR is needed")
    os.makedirs(a.out, exist_ok=True)
    m = build_matrix()
    write_common(a.out, m)
    for wl in wls:
        gen(wl, m, a.out, a.seed)


if __name__ == "__main__":
    main()
