#!/usr/bin/env python3
"""comparators.py - an independent implementation of MixDNN's six comparators
(k8s, sjf, backfill, hgreedy, hsjf, k8s-any), written from the contract
(SPEC.md section 6, docs/contract.md) alone, without reading
src/core/comparators.c, baselines.c or docs/simulator.md, as an outside
evaluator of issue #13 would. Standard library only. test/sim/independent.sh
runs it beside bin/mixdnn-sim and compares every job's start and
configuration.

Lookups outside SPEC (each one a point SPEC leaves open):
  L1 docs/model.md "Throughput of a configuration": thr() steps 1-4.
  L2 docs/model.md "Scaling exponent alpha": alpha = 0.75.
  L3 docs/model.md "Reference, utility and run time": ref_thr, utility,
     runtime = duration / utility; soft job without gpu_type: ref_thr on a
     registered speed-1.0 type that can run it.
  L4 docs/reference.md "Submitting": min_gpus default max(1, gpus/2) for soft,
     max_gpus default gpus (or min_gpus when that is given and larger).
Own choices where SPEC and the lookups are silent (marked CHOICE in the code):
  C1 events at the same instant (completions and arrivals) -> one round.
  C2 "requested type" of a soft job without gpu_type = the speed-1.0 type
     that L3 takes as its reference (else the first type in TYPES order
     that can run it).
  C3 EASY backfill: one reservation (the first job in submit order that does
     not fit); a later job starts if it fits now and either runs on another
     type, or is expected to end by the shadow time, or uses only the extra
     GPUs of the head's type at the shadow time.
  C4 hgreedy/hsjf: earliest start of a configuration counts only running jobs
     (those started earlier in the same round included), no reservations for
     jobs that did not start; the chosen configuration starts only if it
     physically fits now.
  C5 configurations that can never run (thr <= 0, or more GPUs than the
     cluster has of that type) are not candidates; hsjf's key is the minimum
     over the remaining ones.
  C6 ties in submit time (and in sjf/hsjf keys) by trace order.
"""
import argparse
import csv
import json
import math
import sys

ALPHA = 0.75  # L2


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class World:
    def __init__(self, types_csv, nodes_csv, profiles_csv):
        self.types = []
        self.speed = {}
        for r in read_csv(types_csv):
            t = r["gpu_type"].strip()
            self.types.append(t)
            self.speed[t] = float(r.get("speed") or 1.0)
        self.tidx = {t: i for i, t in enumerate(self.types)}
        self.cap = {t: 0 for t in self.types}
        for r in read_csv(nodes_csv):
            st = (r.get("status") or "up").strip()
            if st not in ("", "up"):
                continue
            self.cap[r["gpu_type"].strip()] += int(r["gpus"])
        self.prof = {}
        if profiles_csv:
            for r in read_csv(profiles_csv):
                self.prof.setdefault(r["model"], {}).setdefault(r["gpu_type"], {})[int(r["gpus"])] = float(r["throughput"])

    # L1 -----------------------------------------------------------------
    def _thr_type(self, p, t, n):
        """steps 1-2 for a measured type t (p[t] non-empty)."""
        pts = p[t]
        if n in pts:
            return pts[n]
        best = None
        for m in sorted(pts):
            d = abs(math.log(n / m))
            if best is None or d < best[0] - 1e-12:
                best = (d, m)
        m = best[1]
        if pts[m] <= 0:
            return 0.0
        return pts[m] * (n / m) ** ALPHA

    def thr(self, model, ref_type, t, n):
        p = self.prof.get(model)
        if p is not None:
            p = {tt: pts for tt, pts in p.items() if pts}
        if not p or not any(v > 0 for pts in p.values() for v in pts.values()):
            return self.speed[t] * n ** ALPHA  # step 4
        if t in p:
            return self._thr_type(p, t, n)  # steps 1-2
        # step 3: convert from a measured type
        cands = []
        if ref_type and ref_type in p:
            cands.append(ref_type)
        for tt in self.types:
            if tt in p and tt not in cands and any(v > 0 for v in p[tt].values()):
                cands.append(tt)
        for a in cands:
            v = self._thr_type(p, a, n)
            if v > 0:
                return v * self.speed[t] / self.speed[a]
        return 0.0


class Job:
    pass


def load_jobs(w, trace_csv):
    jobs = []
    for i, r in enumerate(read_csv(trace_csv)):
        j = Job()
        j.idx = i
        j.name = r["name"]
        j.submit = float(r["submit_s"])
        j.model = r.get("model") or ""
        j.hard = (r.get("model_class") or "soft").strip() == "hard"
        j.ref_type = (r.get("gpu_type") or "").strip() or None
        j.gpus = int(r["gpus"])
        j.duration = float(r["duration_s"])
        est = (r.get("estimate_s") or "").strip()
        j.estimate = float(est) if est else j.duration
        mn = (r.get("min_gpus") or "").strip()
        mx = (r.get("max_gpus") or "").strip()
        if j.hard:
            j.min_gpus = j.max_gpus = j.gpus
        else:  # L4
            j.min_gpus = int(mn) if mn else max(1, j.gpus // 2)
            if mx:
                j.max_gpus = int(mx)
            else:
                j.max_gpus = max(j.gpus, j.min_gpus) if mn else j.gpus
        al = (r.get("allowed_types") or "").strip()
        j.allowed = [t for t in al.split("|") if t] if al else None
        # L3: reference throughput
        j.scaled = False
        if j.ref_type:
            j.req_type = j.ref_type
            j.ref_thr = w.thr(j.model, j.ref_type, j.ref_type, j.gpus)
        else:
            j.ref_thr = 0.0
            j.req_type = None
            for t in w.types:  # a registered speed-1.0 type that can run it
                if w.speed[t] == 1.0:
                    v = w.thr(j.model, None, t, j.gpus)
                    if v > 0:
                        j.ref_thr, j.req_type = v, t
                        break
            if j.ref_thr <= 0:
                p = w.prof.get(j.model) or {}
                for t in w.types:
                    if t in p and p[t]:
                        v = w._thr_type(p, t, j.gpus)
                        if v > 0:
                            j.ref_thr = v / w.speed[t]
                            break
            if j.ref_thr <= 0:
                j.ref_thr = j.gpus ** ALPHA
            if j.req_type is None:  # C2
                for t in w.types:
                    if w.thr(j.model, None, t, j.gpus) > 0:
                        j.req_type = t
                        break
        if not j.hard and j.ref_thr <= 0:
            j.scaled = True  # L3: own reference infeasible -> scaling model
            j.ref_thr = w.speed[j.ref_type or j.req_type or w.types[0]] * j.gpus ** ALPHA
        jobs.append(j)
    return jobs


def job_thr(w, j, t, n):
    v = w.thr(j.model, j.ref_type, t, n)
    if j.scaled and v > 0:
        v = w.speed[t] * n ** ALPHA
    return v


def utility(w, j, t, n):
    if j.hard:
        return 1.0
    return job_thr(w, j, t, n) / j.ref_thr


def soft_counts(j):
    s = {j.min_gpus, j.max_gpus}
    if j.min_gpus <= j.gpus <= j.max_gpus:
        s.add(j.gpus)
    p = 1
    while p < j.max_gpus:
        if p > j.min_gpus:
            s.add(p)
        p *= 2
    return sorted(s)


def configs(w, j):
    """every allowed configuration that can ever run (C5), with its utility."""
    if j.hard:
        if w.cap.get(j.ref_type, 0) >= j.gpus:
            return [(j.ref_type, j.gpus, 1.0)]
        return []
    out = []
    types = [t for t in w.types if j.allowed is None or t in j.allowed]
    for t in types:
        for n in soft_counts(j):
            if n > w.cap.get(t, 0):
                continue
            u = utility(w, j, t, n)
            if u > 0:
                out.append((t, n, u))
    return out


def requested(w, j):
    t = j.ref_type if j.ref_type else j.req_type
    if t is None:
        return None
    return (t, j.gpus, 1.0 if (j.hard or j.ref_type) else utility(w, j, t, j.gpus))


class Sim:
    def __init__(self, w, jobs, policy):
        self.w, self.jobs, self.policy = w, jobs, policy
        self.free = dict(w.cap)
        self.running = []  # jobs
        self.rounds = 0

    def start(self, j, t, cfg, now):
        typ, n, u = cfg
        j.start, j.type, j.n, j.util = now, typ, n, u
        j.est_end = now + j.estimate / u
        j.finish = now + j.duration / u
        self.free[typ] -= n
        assert self.free[typ] >= 0
        self.running.append(j)

    def exp_end(self, r, now):
        return max(now, r.est_end)

    def earliest(self, typ, n, now):
        if self.free[typ] >= n:
            return now
        avail = self.free[typ]
        for e, m in sorted((self.exp_end(r, now), r.n) for r in self.running if r.type == typ):
            avail += m
            if avail >= n:
                return e
        return math.inf

    def round(self, now, waiting):
        self.rounds += 1
        w = self.w
        p = self.policy
        started = []
        if p in ("k8s", "sjf"):
            order = sorted(waiting, key=lambda j: (j.estimate, j.submit, j.idx)) if p == "sjf" else waiting
            for j in order:
                c = requested(w, j)
                if c and self.free[c[0]] >= c[1]:
                    self.start(j, None, c, now); started.append(j)
        elif p == "k8s-any":
            for j in waiting:
                c = requested(w, j)
                if c is None:
                    continue
                if self.free[c[0]] >= c[1]:
                    self.start(j, None, c, now); started.append(j); continue
                if j.hard:
                    continue
                ts = [c[0]] + [t for t in w.types if t != c[0]]
                for t in ts:
                    if j.allowed is not None and t not in j.allowed:
                        continue
                    if self.free[t] >= j.gpus:
                        u = utility(w, j, t, j.gpus)
                        if u > 0:
                            self.start(j, None, (t, j.gpus, u), now); started.append(j)
                            break
        elif p in ("hgreedy", "hsjf"):
            cf = {j.idx: configs(w, j) for j in waiting}
            if p == "hsjf":
                def key(j):
                    cs = cf[j.idx]
                    m = min((j.estimate / u for (_, _, u) in cs), default=math.inf)
                    return (m, j.submit, j.idx)
                order = sorted(waiting, key=key)
            else:
                order = waiting
            for j in order:
                best = None
                for (t, n, u) in cf[j.idx]:
                    s = self.earliest(t, n, now)
                    if s == math.inf:
                        continue
                    k = (s + j.estimate / u, n, w.tidx[t])
                    if best is None or k < best[0]:
                        best = (k, s, (t, n, u))
                if best and best[1] == now and self.free[best[2][0]] >= best[2][1]:
                    self.start(j, None, best[2], now); started.append(j)
        elif p == "backfill":
            resv = None  # (type, shadow, extra)
            for j in waiting:
                c = requested(w, j)
                if c is None:
                    continue
                typ, n, u = c
                fits = self.free[typ] >= n
                if resv is None:
                    if fits:
                        self.start(j, None, c, now); started.append(j); continue
                    # the head: compute its shadow time and extra GPUs
                    avail = self.free[typ]
                    ends = sorted((self.exp_end(r, now), r.n) for r in self.running if r.type == typ)
                    shadow, extra = math.inf, 0
                    k = 0
                    while k < len(ends):
                        e = ends[k][0]
                        while k < len(ends) and ends[k][0] == e:
                            avail += ends[k][1]; k += 1
                        if avail >= n:
                            shadow, extra = e, avail - n
                            break
                    resv = [typ, shadow, extra]
                    continue
                if not fits:
                    continue
                if typ != resv[0]:
                    self.start(j, None, c, now); started.append(j)
                elif now + j.estimate / u <= resv[1]:
                    self.start(j, None, c, now); started.append(j)
                elif n <= resv[2]:
                    resv[2] -= n
                    self.start(j, None, c, now); started.append(j)
        else:
            raise SystemExit("unknown policy " + p)
        return started

    def run(self):
        pend = sorted(self.jobs, key=lambda j: (j.submit, j.idx))
        waiting = []
        i = 0
        while i < len(pend) or self.running:
            ta = pend[i].submit if i < len(pend) else math.inf
            tc = min((r.finish for r in self.running), default=math.inf)
            now = min(ta, tc)
            if now == math.inf:
                break
            # C1: every completion and arrival at this instant, then one round
            for r in [r for r in self.running if r.finish == now]:
                self.running.remove(r)
                self.free[r.type] += r.n
            while i < len(pend) and pend[i].submit == now:
                waiting.append(pend[i]); i += 1
            st = self.round(now, waiting)
            if st:
                ids = {id(j) for j in st}
                waiting = [j for j in waiting if id(j) not in ids]
            if not self.running and i >= len(pend) and waiting:
                break  # nothing can ever start
        return waiting


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--types", required=True)
    ap.add_argument("--nodes", required=True)
    ap.add_argument("--profiles")
    ap.add_argument("--trace", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--out")
    a = ap.parse_args()
    w = World(a.types, a.nodes, a.profiles)
    jobs = load_jobs(w, a.trace)
    sim = Sim(w, jobs, a.policy)
    left = sim.run()
    done = [j for j in jobs if hasattr(j, "finish")]
    if a.out:
        with open(a.out, "w", newline="") as f:
            cw = csv.writer(f)
            cw.writerow(["name", "submit_s", "start_s", "finish_s", "gpu_type", "gpus"])
            for j in jobs:
                if hasattr(j, "finish"):
                    cw.writerow([j.name, "%.3f" % j.submit, "%.3f" % j.start, "%.3f" % j.finish, j.type, j.n])
                else:
                    cw.writerow([j.name, "%.3f" % j.submit, "", "", "", ""])
    avg = sum(j.finish - j.submit for j in done) / len(done) if done else 0
    mk = max(j.finish for j in done) - min(j.submit for j in jobs) if done else 0
    print(json.dumps({"policy": a.policy, "jobs": len(jobs), "finished": len(done), "unfinished": len(left),
                      "avg_jct_s": avg, "makespan_s": mk, "rounds": sim.rounds}))


if __name__ == "__main__":
    main()
