#!/usr/bin/env python3
"""test/soak/records.py OUT JOBS_CSV FAULTS_LOG ADMIN_LOG MAX_ATTEMPTS LEASE_S

The invariants checked from the jobs' own record of what ran where and
when (test/soak/job.sh), not from the tables: no GPU of a node ran two
parts at once, no job ran more attempts than allowed or than the table
knows, and no exit code of a run that ended was lost. JOBS_CSV is
"job_id,attempt,status,exit_code,parts" per job (parts: of its last
attempt). Prints one line per violation; exits 1 if there is any."""
import csv
import os
import re
import sys

LONGEST_JOB_S = 10  # clients.sh: 4 s estimates, overrunning 2.5 times


def read_runs(out):
    """{(job, attempt, node): (node, gpus, start, end, code or None)}"""
    runs = {}
    for name in os.listdir(out):
        m = re.fullmatch(r"(\d+)-(\d+)-(\S+)", name)
        if not m:
            continue
        start = end = code = None
        with open(os.path.join(out, name)) as f:
            for line in f:
                w = line.split()
                if w and w[0] == "start" and len(w) == 4:
                    node, gpus, start = w[1], w[2].split(","), float(w[3])
                elif w and w[0] == "end" and len(w) == 3:
                    end, code = float(w[1]), int(w[2])
        if start is None:
            continue
        if end is None:
            try:
                with open(os.path.join(out, name + ".tick")) as f:
                    end = float(f.read().strip() or start)
            except (OSError, ValueError):
                end = start
        runs[(int(m[1]), int(m[2]), m[3])] = (node, gpus, start, end, code)
    return runs


def overlaps(runs):
    by_gpu = {}
    for (job, attempt, _), (node, gpus, start, end, _) in runs.items():
        for g in gpus:
            by_gpu.setdefault((node, g), []).append((start, end, job, attempt))
    for (node, g), spans in sorted(by_gpu.items()):
        spans.sort()
        last = None
        for span in spans:
            if last and span[0] < last[1]:
                yield ("GPU %s/%s ran two parts at once: job %d attempt %d until %.3f, "
                       "job %d attempt %d from %.3f" % (node, g, last[2], last[3], last[1],
                                                        span[2], span[3], span[0]))
            if not last or span[1] > last[1]:
                last = span


def exit_codes(runs, jobs, excused, max_attempts):
    ended = {}      # (job, attempt) -> [codes of parts that ran to their end]
    ran = {}        # job -> attempts seen running
    for (job, attempt, _), (node, _, _, end, code) in runs.items():
        ran.setdefault(job, set()).add(attempt)
        if code is not None:
            ended.setdefault((job, attempt), []).append(code)
            # Its launcher could not report it: the lease decides (at least once).
            if any(n == node and a <= end <= b for n, a, b in excused["launchers"]):
                excused["parts"].add((job, attempt))
    for job, attempts in sorted(ran.items()):
        if job not in jobs:
            yield "job %d ran but the table does not have it" % job
            continue
        j = jobs[job]
        if max(attempts) > j["attempt"] or max(attempts) > max_attempts:
            yield "job %d ran attempt %d; the table says %d, at most %d allowed" % (
                job, max(attempts), j["attempt"], max_attempts)
        for a in sorted(attempts):
            codes = ended.get((job, a), [])
            if (job, a) in excused["parts"] or not codes:
                continue
            if a < j["attempt"] and codes and all(c == 0 for c in codes) and len(codes) >= j["parts_of"].get(a, 1):
                yield "job %d attempt %d ended with 0 on every part, yet ran again (attempt %d)" % (job, a, j["attempt"])
        codes = ended.get((job, j["attempt"]), [])
        if (job, j["attempt"]) in excused["parts"] or j["status"] == "cancelled" or len(codes) < j["parts"]:
            continue
        want = "completed" if all(c == 0 for c in codes) else "failed"
        if j["status"] != want or (want == "failed" and j["exit_code"] not in [str(c) for c in codes]):
            yield "job %d attempt %d: its parts ended with %s, the table says %s with exit code %s" % (
                job, j["attempt"], codes, j["status"], j["exit_code"] or "NULL")


def read_faults(path, admin_log, lease):
    """The runs whose exit code may be lost by design: a killed keeper's part
    (reported 137), a part that ended while its node's launcher was killed
    or stopped (until its next launcher ran, or past the lease), and a part
    running when an admin set its node down (design.md: down re-queues its
    jobs; a part runs at most LONGEST_JOB_S more)."""
    excused = {"parts": set(), "launchers": []}
    if os.path.exists(admin_log):
        with open(admin_log) as f:
            for t, node, status in (l.split() for l in f if len(l.split()) == 3):
                if status == "down":
                    excused["launchers"].append((node, float(t) - 1, float(t) + LONGEST_JOB_S + 1))
    if not os.path.exists(path):
        return excused
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) != 4:
                continue
            m = re.fullmatch(r"j(\d+)/a(\d+)", w[2])
            if w[0] == "keeper_kill" and m:
                excused["parts"].add((int(m[1]), int(m[2])))
            elif w[0] in ("launcher_kill", "launcher_stop"):
                down = (lease + 2 if w[0] == "launcher_stop" else 0) + max(0.0, float(w[3]))
                excused["launchers"].append((w[2], float(w[1]) - 1, float(w[1]) + down + 1))
    return excused


def main():
    out, jobs_csv, faults_log, admin_log, max_attempts, lease = \
        sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), float(sys.argv[6])
    jobs = {}
    with open(jobs_csv) as f:
        for job_id, attempt, status, exit_code, parts, parts_of in csv.reader(f):
            jobs[int(job_id)] = {"attempt": int(attempt), "status": status, "exit_code": exit_code,
                                 "parts": int(parts),
                                 "parts_of": {int(a): int(n) for a, n in
                                              (p.split(":") for p in parts_of.split() if p)}}
    excused = read_faults(faults_log, admin_log, lease)
    runs = read_runs(out)
    bad = list(overlaps(runs)) + list(exit_codes(runs, jobs, excused, max_attempts))
    for b in bad:
        print(b)
    print("# records: %d runs of %d jobs checked" % (len(runs), len({k[0] for k in runs})), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
