#!/usr/bin/python3
"""opt_clairvoyant.py - a real schedule on the LP bound's configurations.

Table O's LP bound (opt_lpbound.py) is below the optimum by an unknown
amount: it lets jobs start in fractions. This gives the other side: every
job pinned to the configuration that carries most of its share in the
LP's solution (opt_lpbound.py --pins-out) and planned with its true run
time, the simulator's hsjf schedules the trace. The result is a schedule
of the original trace (each job on one of its configurations, from its
submission, within every type's GPUs), so its average JCT is at or above
the optimum: the optimum lies between the bound and the best schedule
known.

    opt_clairvoyant.py pin [--estimates true|trace] --trace TRACE.csv --pins PINS.csv --out PINNED.csv
    opt_clairvoyant.py record [--as NAME] --configs CONFIGS.csv --nodes NODES.csv --bound BOUND.json RUN.csv

`pin` writes the trace with every job hard on its pinned configuration,
`duration_s` its true run time there and `estimate_s` the same (`true`,
the default) or the trace's estimate on that configuration (`trace`:
hindsight of the configurations only, not of the run times). `record`
checks the simulator's jobs file of that trace against the original
trace (every job on a configuration of the file, as opt_lpbound.py
--check does, submitted when the trace says, started no earlier and
running its run time) and the cluster (no type above its GPUs at any
time), and against the bound, and adds its average JCT and makespan to
BOUND.json as NAME_jct_s and NAME_makespan_s (NAME: clairvoyant, the
default, for hsjf with true run times; pinned_estimates for hsjf with
the trace's; pinned_mixdnn for mixdnn with the trace's).

docs/model.md, "A clairvoyant schedule (table P)".
"""
import argparse
import csv
import json

from opt_bound import gpus_per_type
from opt_lpbound import check_run, die, read_configs, read_csv


def pin(a):
    rows = read_csv(a.trace)
    if not rows or "name" not in rows[0] or "duration_s" not in rows[0]:
        die("%s: not a trace (no name and duration_s columns, or no job)" % a.trace)
    pins = {}
    for r in read_csv(a.pins):
        try:
            pins[r["name"]] = (r["gpu_type"], int(r["gpus"]), float(r["runtime_s"]))
        except (KeyError, ValueError):
            die("%s: not a --pins-out file of opt_lpbound.py (row %r)" % (a.pins, r))
    if {r["name"] for r in rows} != set(pins):
        die("%s and %s: not the same jobs" % (a.trace, a.pins))
    with open(a.out, "w", newline="") as f:
        written = ("model_class", "gpu_type", "gpus", "duration_s", "min_gpus", "max_gpus", "allowed_types", "estimate_s")
        w = csv.DictWriter(f, fieldnames=list(rows[0]) + [k for k in written if k not in rows[0]], lineterminator="\n")
        w.writeheader()
        for r in rows:
            k, g, p = pins[r["name"]]
            w.writerow(dict(r, model_class="hard", gpu_type=k, gpus=str(g), duration_s="%.3f" % p,
                            estimate_s="%.3f" % (p if a.estimates == "true" else estimate(r, p)),
                            min_gpus="", max_gpus="", allowed_types=""))


def estimate(r, p):
    """The trace's estimate of the run on a configuration of true run time p:
    a run time on any configuration is the duration (or the estimate) over
    its utility, so the estimate scales with p / duration."""
    try:
        d = float(r["duration_s"])
        e = float(r.get("estimate_s") or 0) or d
        return e * p / d
    except (ValueError, ZeroDivisionError):
        die("%s: duration_s %r, estimate_s %r: not a run time" % (r["name"], r["duration_s"], r.get("estimate_s")))


def record(a):
    try:
        with open(a.bound) as f:
            bound = json.load(f)
        lb = float(bound["avg_jct_lb_s"])
    except (OSError, ValueError, KeyError) as e:
        die("%s: not a bound of opt_lpbound.py (%s)" % (a.bound, e))
    per_type = gpus_per_type(a.nodes)
    jobs = read_configs(a.configs, per_type)
    check_run(a.run, jobs)		# the same jobs, each on a configuration of the file
    rows = read_csv(a.run)
    jct = sum(check_times(a.run, r, jobs[r["name"]][0]) for r in rows) / len(rows)
    check_capacity(a.run, rows, per_type)
    if jct < lb:
        die("%s: average JCT %.1f s is below the bound %.1f s: the bound is wrong" % (a.run, jct, lb))
    bound[a.as_ + "_jct_s"] = jct
    bound[a.as_ + "_makespan_s"] = max(float(r["finish_s"]) for r in rows)
    with open(a.bound, "w") as f:
        f.write(json.dumps(bound) + "\n")


def check_times(path, r, submit):
    """A job's JCT in the original trace: submitted when the trace says,
    started no earlier, running its run time (times are written to the
    millisecond, so three of them differ by up to 2 ms)."""
    start, finish, run = float(r["start_s"]), float(r["finish_s"]), float(r["runtime_s"])
    if abs(float(r["submit_s"]) - submit) > 2e-3:
        die("%s: %s was submitted at %s s, the trace says %.3f s" % (path, r["name"], r["submit_s"], submit))
    if start < submit - 2e-3:
        die("%s: %s started at %s s, before its submission at %.3f s" % (path, r["name"], r["start_s"], submit))
    if abs(finish - start - run) > 2e-3:
        die("%s: %s ran from %s s to %s s, not its run time of %s s" % (path, r["name"], r["start_s"], r["finish_s"], r["runtime_s"]))
    return finish - submit


def check_capacity(path, rows, per_type):
    """No type ever runs more GPUs at once than it has (an end frees its GPUs before a start at the same time)."""
    events = sorted((float(r[t]), d * int(r["gpus"]), r["gpu_type"])
                    for r in rows for t, d in (("start_s", 1), ("finish_s", -1)))
    busy = dict.fromkeys(per_type, 0)
    for t, g, k in events:
        busy[k] += g
        if busy[k] > per_type[k]:
            die("%s: %d GPUs of %s busy at %.3f s, the cluster has %d" % (path, busy[k], k, t, per_type[k]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pin")
    p.add_argument("--estimates", choices=("true", "trace"), default="true")
    p.add_argument("--trace", required=True)
    p.add_argument("--pins", required=True)
    p.add_argument("--out", required=True)
    r = sub.add_parser("record")
    r.add_argument("--as", dest="as_", choices=("clairvoyant", "pinned_estimates", "pinned_mixdnn"), default="clairvoyant")
    r.add_argument("--configs", required=True)
    r.add_argument("--nodes", required=True, help="the cluster (GPUs per type)")
    r.add_argument("--bound", required=True)
    r.add_argument("run")
    a = ap.parse_args()
    if a.cmd == "pin":
        pin(a)
    else:
        record(a)


if __name__ == "__main__":
    main()
