#!/usr/bin/env python3
"""test/soak/report.py WORK SECONDS WC_BOUND_S SOLVER_BOUND_S — the soak's figures, from its logs and
the soak schema, and the two bounds checked on samples: server memory (the
largest PostgreSQL process) and the history's size with retention on. A
bound broken is appended to WORK/log/violations.log."""
import os
import subprocess
import sys

RSS_BOUND_KB = 300 * 1024       # any one server process
HISTORY_BOUND = 64 * 1024 * 1024  # plan_history + job_events + rounds, bytes


def lines(path):
    try:
        with open(path) as f:
            return [l.split() for l in f if l.strip()]
    except OSError:
        return []


def sql(q):
    r = subprocess.run(["psql", "-X", "-A", "-t", "-F", " ", "-c", q], capture_output=True, text=True)
    return [l.split() for l in r.stdout.splitlines() if l.strip()]


def p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.95 * len(xs)))] if xs else float("nan")


def fault_windows(faults):
    """[start, end) per fault: the fault, its recovery, 10 s more."""
    out = []
    for f in faults:
        rec = float(f[3]) if f[3] != "-1" else 120.0
        extra = 8.0 if f[0] == "launcher_stop" else 0.0
        out.append((float(f[1]), float(f[1]) + extra + rec + 10.0))
    return out


def inside(t, windows):
    return any(a <= t < b for a, b in windows)


def split(pairs, windows):
    """p95 of (t, value) pairs inside and outside the fault windows."""
    during = [v for t, v in pairs if inside(t, windows)]
    calm = [v for t, v in pairs if not inside(t, windows)]
    return "p95 %.0f ms during faults (n=%d), %.0f ms otherwise (n=%d)" % (
        p95(during) * 1000, len(during), p95(calm) * 1000, len(calm))


def main():
    work, seconds, wc_bound, solver_bound = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    log = os.path.join(work, "log")
    faults = [f for f in lines(os.path.join(log, "faults.log")) if len(f) == 4]
    windows = fault_windows(faults)
    bad = []
    print("soak figures (%d s of load)" % seconds)
    for status, n in sql("SELECT status, count(*) FROM mixdnn.jobs GROUP BY 1 ORDER BY 1"):
        print("  jobs %-10s %s" % (status, n))
    subs = [l for f in os.listdir(log) if f.startswith("submit-") for l in lines(os.path.join(log, f))]
    ok = [s for s in subs if s[3] == "0"]
    print("  submissions %d (%d rows), %d failed (server restarting)" % (
        len(subs), sum(int(s[2]) for s in ok), len(subs) - len(ok)))
    done = sql("SELECT count(*), count(*) FILTER (WHERE attempt > 1), coalesce(sum(attempt), 0) FROM mixdnn.jobs "
               "WHERE status = 'completed'")[0]
    print("  throughput %.1f completed jobs/min; %s completed after a re-queue; %s launches in all" % (
        int(done[0]) * 60.0 / seconds, done[1], sql("SELECT count(DISTINCT (job_id, attempt)) FROM mixdnn.job_parts")[0][0]))
    kinds = {}
    for f in faults:
        kinds.setdefault(f[0], []).append(float(f[3]))
    for k, recs in sorted(kinds.items()):
        good = [r for r in recs if r >= 0]
        print("  fault %-17s %3d  recovery mean %.2f s, max %.2f s%s" % (
            k, len(recs), sum(good) / max(1, len(good)), max(good or [0]),
            "" if len(good) == len(recs) else ", %d NOT recovered" % (len(recs) - len(good))))
        if len(good) != len(recs):
            bad.append("no recovery within the bound after %d %s faults" % (len(recs) - len(good), k))
    skipped = lines(os.path.join(log, "faults-skipped.log"))
    print("  faults without a target (tried later): %d" % len(skipped))
    checks = lines(os.path.join(log, "checks.log"))
    print("  invariant checks: %d while running, %d after the drain" % (
        sum(1 for c in checks if c[1] == "false"), sum(1 for c in checks if c[1] == "true")))
    print("  submission (commit mode: includes its round): " +
          split([(float(s[0]), float(s[1]) - float(s[0])) for s in ok], windows))
    plan = sql("SELECT extract(epoch FROM submitted_at), extract(epoch FROM first_plan_at - submitted_at) FROM soak.latency")
    print("  first plan after submission: " + split([(float(a), float(b)) for a, b in plan], windows))
    launch = sql("SELECT extract(epoch FROM launching_at), extract(epoch FROM claimed_at - launching_at) FROM soak.launch")
    print("  launch to claim by the launcher: " + split([(float(a), float(b)) for a, b in launch], windows))
    samples = [s for s in lines(os.path.join(log, "samples.log")) if len(s) >= 4]
    rss = max([int(s[1]) for s in samples] or [0])
    hist = [int(s[2]) for s in samples]
    print("  largest server process %.0f MB (bound %d MB); history %.1f MB at most, %.1f MB at the end (bound %d MB)" % (
        rss / 1024, RSS_BOUND_KB // 1024, max(hist or [0]) / 2**20, (hist or [0])[-1] / 2**20, HISTORY_BOUND // 2**20))
    if samples:
        # size and rows at the end of each quarter: growth under retention shows here
        q = [samples[min(len(samples) - 1, (i * len(samples)) // 4 - 1)] for i in (1, 2, 3, 4)]
        print("  history at the end of each quarter: " + ", ".join(
            "%.1f MB / %s rows" % (int(s[2]) / 2**20, s[4] if len(s) > 4 else "?") for s in q))
    print("  longest wait of a job whose configuration had idle GPUs, no exception named: %.1f s (bound %s s)" % (
        max([float(s[3]) for s in samples] or [0]), wc_bound))
    print("  longest wait of a job whose configuration had idle GPUs, the round's choice included: %.1f s (bound %s s)" % (
        max([float(s[5]) for s in samples if len(s) > 5] or [0]), solver_bound))
    admin = lines(os.path.join(log, "admin.log"))
    print("  admin: %s; plan_mode phases: %d" % (
        ", ".join("%s %d" % (k, sum(1 for a in admin if a[2] == k)) for k in ("draining", "down", "up")),
        len(lines(os.path.join(log, "phases.log")))))
    if rss > RSS_BOUND_KB:
        bad.append("server memory: a process reached %d kB" % rss)
    if hist and max(hist) > HISTORY_BOUND:
        bad.append("history size: %d bytes" % max(hist))
    if bad:
        with open(os.path.join(log, "violations.log"), "a") as f:
            for b in bad:
                f.write("0 %s\n" % b)


if __name__ == "__main__":
    main()
