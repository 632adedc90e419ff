#!/usr/bin/env python3
"""check_jobs.py - invariants of a bin/mixdnn-sim --out file (test/sim/run.sh).

  check_jobs.py capacity NODES.csv JOBS.csv   no node ever holds more GPUs than it has
  check_jobs.py fifo JOBS.csv                 starts non-decreasing in submit order
  check_jobs.py json FILE KEY...              last line is a JSON object with these keys
Exit 0 when the invariant holds, 1 with a message when not or when the file
has no completed job (an invariant of nothing is no test).
"""
import csv
import json
import sys


def capacity(nodes_path, jobs_path):
    gpus = {r["node"]: int(r["gpus"]) for r in csv.DictReader(open(nodes_path))}
    ev = []
    for j in csv.DictReader(open(jobs_path)):
        if j["status"] != "completed":
            continue
        parts = [p.split(":") for p in j["nodes"].split("|")]
        if sum(int(g) for _, g in parts) != int(j["gpus"]):
            return "job %s: parts %s do not add up to %s GPUs" % (j["name"], j["nodes"], j["gpus"])
        for n, g in parts:
            if n not in gpus:
                return "job %s on unknown node %s" % (j["name"], n)
            ev.append((float(j["finish_s"]), 0, n, -int(g)))   # releases first at equal times
            ev.append((float(j["start_s"]), 1, n, int(g)))
        if float(j["start_s"]) < float(j["submit_s"]) - 1e-6:
            return "job %s starts before its submission" % j["name"]
    if not ev:
        return "no completed job to check"
    ev.sort()
    used = {n: 0 for n in gpus}
    for t, _, n, d in ev:
        used[n] += d
        if used[n] > gpus[n]:
            return "node %s holds %d of %d GPUs at t=%.3f" % (n, used[n], gpus[n], t)
    return None


def fifo(jobs_path):
    rows = [j for j in csv.DictReader(open(jobs_path)) if j["status"] == "completed"]
    if not rows:
        return "no completed job to check"
    rows.sort(key=lambda j: (float(j["submit_s"]), int(j["job_id"])))
    last = -1.0
    for j in rows:
        s = float(j["start_s"])
        if s < last - 1e-6:
            return "job %s starts at %.3f before an earlier-submitted job (%.3f)" % (j["name"], s, last)
        last = max(last, s)
    return None


def jsonline(path, keys):
    lines = [l for l in open(path).read().splitlines() if l.strip()]
    if not lines:
        return "no output"
    try:
        d = json.loads(lines[-1])
    except ValueError as e:
        return "last line is not JSON: %s" % e
    missing = [k for k in keys if k not in d]
    return "missing keys: %s" % missing if missing else None


def main():
    cmd = sys.argv[1]
    if cmd == "capacity":
        err = capacity(sys.argv[2], sys.argv[3])
    elif cmd == "fifo":
        err = fifo(sys.argv[2])
    elif cmd == "json":
        err = jsonline(sys.argv[2], sys.argv[3:])
    else:
        err = "unknown check %s" % cmd
    if err:
        print("# " + err)
        sys.exit(1)


if __name__ == "__main__":
    main()
