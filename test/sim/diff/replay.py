#!/usr/bin/env python3
"""replay.py - the differential test behind test/sim/differential.sh.

Replays a trace through the extension inside PostgreSQL on the virtual clock
(mixdnn.virtual_now) and through bin/mixdnn-sim, and compares per job name the
configuration (planned_gpu_type, planned_gpus), start (started_at - epoch),
finish (finished_at - epoch) and first planned start (plan_history) with the
simulator's --out columns gpu_type, gpus, start_s, finish_s and
first_planned_start_s (and, where asked, the nodes: job_parts against the
nodes column); and the rounds that had waiting jobs, in order: instant,
number of waiting jobs and objective. Prints TAP and a closing
"differential: N passed, N failed" line; exits 1 on failure.

  replay.py [--sim bin/mixdnn-sim] [--data test/sim/diff] [--db mixdnn_diff] [--keep DIR]
  replay.py ... --trace FILE [--modes heuristic,milp] [--nodes]

Without --trace it runs the suite (SUITE below): trace.csv with the heuristic
and under each comparator (mixdnn.policy), trace-exact.csv with the heuristic
and with the MILP, known-launch-order.csv with the heuristic,
microseconds.csv with the MILP, and trace-overrun.csv and three seeded random
traces whose estimates are off (random_trace) in every mode, nodes included,
all of which must agree (an
entry may name a known difference as a TODO test; none does now). With
--trace it compares that one trace, on the cluster of --data (types.csv,
nodes.csv, profiles.csv), in the given modes.

Python 3 standard library only; one psql session per replay (PGHOST, PGPORT,
PGUSER as usual; a superuser). The database --db is dropped and created for
every replay, so job ids start at 1 as the simulator's do, and dropped at the
end unless --keep.

The replay follows the simulator's event semantics (docs/simulator.md,
src/sim/simrun.c) with the extension's own moving parts, driven the way the
background worker drives them:

  next event t = min(next submission, min planned_end of launching/running
                 jobs, min planned_start > now of planned jobs)
  SET mixdnn.virtual_now = epoch + t
  BEGIN
    UPDATE jobs SET status = 'completed' WHERE launching/running AND planned_end <= t
    INSERT every job with submit_s = t, in trace order, in one statement
  COMMIT                              -- the round runs here (at most one per instant)
  SELECT mixdnn.launch_due()          -- what the worker does next

so at one instant: completions, then arrivals, then one round, then the
launches, as in the simulator. A job completes at its start plus its planned
run (planned_end - started_at) times duration_s / estimate_s: it was planned
with the estimate and runs its true time, as in the simulator, so jobs run
past their expected end and the overrun rule plans around them. At an
instant where only a planned start comes due the simulator runs a round;
the extension runs one only when a due job cannot be placed, and then before
it launches any (docs/design.md, "A round", step 6). When every due job can
be placed no forecast was wrong, and the round should change nothing (only
what depends on time alone, such as aging, could); the rounds check would
show an instant where it did.
"""
import argparse
import csv
import datetime
import itertools
import os
import random
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

EPOCH = 1704067200          # the simulator's default --epoch, 2024-01-01 00:00:00 UTC
TOL_S = 0.005               # the simulator prints 3 decimals, the database keeps microseconds
MILP_LIMIT_MS = 30000       # generous: every round of these traces solves in a few ms
UTC = datetime.timezone.utc

# Nodes (which nodes and how many GPUs on each) are compared everywhere
# since both sides place jobs due at one instant in submit order; a suite
# entry can leave them out with NODES.
NODES = ("nodes",)

# A mode is heuristic, milp (the mixdnn policy) or one of these policies (mixdnn.policy).
COMPARATORS = ("k8s", "static", "backfill", "sjf", "hgreedy", "hsjf", "k8s-any")
# The suite: (name, trace, modes, fields not compared, TODO reason or None).
SUITE = [
    ("trace.csv", "trace.csv", ("heuristic",), (), None),
    ("trace-exact.csv", "trace-exact.csv", ("heuristic", "milp"), (), None),
    ("launch order", "known-launch-order.csv", ("heuristic",), (), None),
    ("comparators", "trace.csv", COMPARATORS, (), None),
    ("microseconds", "microseconds.csv", ("milp",), (), None),
    ("overruns", "trace-overrun.csv", ("heuristic", "milp") + COMPARATORS, (), None),
] + [("random overruns, seed %d" % seed, "random:%d" % seed, ("heuristic", "milp") + COMPARATORS, (), None)
     for seed in (1, 2, 3)]
RANDOM_JOBS = 40


# ---------------------------------------------------------------- TAP

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        self.todo = 0

    def ok(self, cond, desc, diag=(), todo=None):
        self.n += 1
        line = "%s %d - %s" % ("ok" if cond else "not ok", self.n, desc)
        if todo:
            line += " # TODO " + todo
            if not cond:
                self.todo += 1
        elif not cond:
            self.failed += 1
        print(line)
        if not cond:
            for d in diag:
                print("#   " + d)
        sys.stdout.flush()
        return cond

    def diag(self, line):
        print("# " + line)
        sys.stdout.flush()

    def finish(self):
        print("1..%d" % self.n)
        if self.todo:
            print("# %d known difference(s) marked TODO (not failures)" % self.todo)
        print("differential: %d passed, %d failed" % (self.n - self.failed, self.failed))
        return 1 if self.failed else 0


# ---------------------------------------------------------------- psql

class PsqlError(Exception):
    pass


class Psql:
    """One psql process; q() sends SQL and returns its rows (tab-separated, unaligned)."""
    MARK = "__mixdnn_diff_done__"

    def __init__(self, db):
        self.p = subprocess.Popen(
            ["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=0", "-d", db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        self.messages = []      # every ERROR / WARNING / FATAL the session printed
        self.q("SET client_min_messages = warning;")

    def q(self, sql):
        # every statement must end with ';' or \echo would run before it
        self.p.stdin.write(sql.rstrip() + "\n\\echo " + self.MARK + "\n")
        self.p.stdin.flush()
        rows = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise PsqlError("psql exited: " + "; ".join(self.messages[-5:]))
            line = line.rstrip("\n")
            if line == self.MARK:
                return rows
            if "ERROR:" in line or "WARNING:" in line or "FATAL:" in line or line.startswith("psql:"):
                self.messages.append(line)
            elif not (line.startswith(("LINE ", "DETAIL:", "HINT:", "CONTEXT:")) or line.strip() == "^"):
                rows.append(line.split("\t"))

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except Exception:
            self.p.kill()


def admin(sql):
    """One statement on the maintenance database; its unaligned output."""
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", "postgres",
                        "-c", "SET client_min_messages = warning", "-c", sql],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise PsqlError(r.stdout.strip())
    return r.stdout.strip()


def ts(us):
    """An exact timestamptz literal for epoch microseconds."""
    d = datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=us)
    return "'" + d.isoformat() + "'"


def sql_str(v):
    return "NULL" if v is None or v == "" else "'" + v.replace("'", "''") + "'"


def sql_int(v):
    return "NULL" if v is None or v.strip() == "" else str(int(v))


# ---------------------------------------------------------------- inputs

def load_trace(path):
    # csv skips blank lines between rows, but DictReader takes the first
    # line for the header, blank or not; the simulator skips blank lines
    # before the header too (src/sim/csv.c), and so does this
    lines = itertools.dropwhile(lambda line: line in ("\n", "\r\n", "\r"), open(path, newline=""))
    rows = list(csv.DictReader(lines))
    for r in rows:
        r["submit_us"] = int((Decimal(r["submit_s"]) + EPOCH) * 1000000)
        # what the job asks for (the simulator plans with it) and the share
        # of it the job really runs: its true end is its start plus its
        # planned run (planned_end - started_at) times this
        est = Decimal(r.get("estimate_s") or 0)
        r["asked_s"] = est if est > 0 else Decimal(r["duration_s"])
        r["true_ratio"] = Decimal(r["duration_s"]) / r["asked_s"]
    return rows


def insert_sql(jobs):
    """One INSERT for the jobs arriving at one instant (hard jobs: no min/max/allowed)."""
    vals = []
    for r in jobs:
        hard = r["model_class"] == "hard"
        allowed = r.get("allowed_types") or ""
        vals.append("(%s, %s, %s, %s, %d, %s, %s, %s, %d, make_interval(secs => %s), to_timestamp(%s))" % (
            sql_str(r["name"]), sql_str(r.get("model")), sql_str(r["model_class"] or "soft"),
            sql_str(r.get("gpu_type")), int(r["gpus"]),
            "NULL" if hard else sql_int(r.get("min_gpus") or ""),
            "NULL" if hard else sql_int(r.get("max_gpus") or ""),
            "NULL" if hard or not allowed else
            "ARRAY[%s]::text[]" % ", ".join(sql_str(t) for t in allowed.split("|")),
            int(r.get("priority") or 0), r["asked_s"], Decimal(r["submit_s"]) + EPOCH))
    return ("INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, min_gpus, max_gpus, "
            "allowed_types, priority, duration, submitted_at) VALUES\n  " + ",\n  ".join(vals) + ";")


def random_trace(seed, path):
    """A trace of RANDOM_JOBS jobs on the cluster of test/sim/diff whose
    estimates are off by up to 4x either way, so that jobs run past their
    expected end (by less and by more than mixdnn.overrun_s) and end early;
    whole seconds, so that both sides see the same instants."""
    rng = random.Random(seed)
    types, models = ("k80", "p100", "v100"), ("resnet50", "transformer", "lm", "cnn", "rnn")
    t = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "submit_s", "model", "model_class", "gpu_type", "gpus", "duration_s",
                    "min_gpus", "max_gpus", "allowed_types", "priority", "estimate_s"])
        for i in range(RANDOM_JOBS):
            t += rng.choice((0, 0, 30, 64, 120, 300))
            hard = rng.random() < 0.4
            gtype = rng.choice(types)
            # a request its own type cannot hold is bad input in the database
            # (an error at INSERT), a rejected job in the simulator
            gpus = min(rng.choice((1, 2, 2, 4, 4, 8)), 4 if gtype == "p100" else 8)
            duration = rng.randrange(200, 3000)
            estimate = max(1, int(duration * rng.choice((0.25, 0.5, 0.8, 0.97, 1, 1, 1.5, 4))))
            lo = "" if hard else rng.choice(("", 1, min(2, gpus)))
            model = rng.choice(models)
            if model == "resnet50" and gtype == "k80" and gpus >= 4:
                # profiles.csv marks it infeasible: a hard job is refused at
                # INSERT, a soft one stays pending in the database under the
                # baselines (a policy may change) and is rejected in the
                # simulator (docs/simulator.md)
                model = "cnn"
            w.writerow(["r%02d" % (i + 1), t, model, "hard" if hard else "soft",
                        gtype, gpus, duration, lo, "" if hard else rng.choice(("", 8)),
                        "" if hard or rng.random() < 0.7 else "|".join(sorted(rng.sample(types, 2))),
                        rng.choice((0, 0, 0, 10, -10)), estimate])


# ---------------------------------------------------------------- the simulator

def run_sim(sim, data, trace_path, work, tag, mode):
    out = os.path.join(work, "%s-%s-sim-jobs.csv" % (tag, mode))
    rounds = os.path.join(work, "%s-%s-sim-rounds.csv" % (tag, mode))
    cmd = [sim, "--types", os.path.join(data, "types.csv"), "--nodes", os.path.join(data, "nodes.csv"),
           "--profiles", os.path.join(data, "profiles.csv"), "--trace", trace_path,
           "--policy", mode if mode in COMPARATORS else "mixdnn", "--epoch", str(EPOCH), "--quiet",
           "--out", out, "--rounds-out", rounds]
    cmd += ["--no-milp"] if mode == "heuristic" else ["--time-limit-ms", str(MILP_LIMIT_MS)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    jobs = {j["name"]: j for j in csv.DictReader(open(out, newline=""))} if os.path.exists(out) else {}
    rnds = list(csv.DictReader(open(rounds, newline=""))) if os.path.exists(rounds) else []
    return r.returncode, r.stdout, jobs, rnds


# ---------------------------------------------------------------- the extension

def replay(db, data, trace, mode):
    """Returns (jobs by name, rounds with waiting jobs, anomalies, events)."""
    anomalies = []
    admin("DROP DATABASE IF EXISTS %s WITH (FORCE)" % db)
    admin("CREATE DATABASE %s" % db)
    # The launch worker (real clock) must not launch behind the replay's back.
    admin("ALTER DATABASE %s SET mixdnn.launch_worker = off" % db)
    s = Psql(db)
    try:
        s.q("CREATE EXTENSION mixdnn;")
        if mode in COMPARATORS:
            s.q("SET mixdnn.policy = '%s';" % mode)
        elif mode == "heuristic":
            s.q("SET mixdnn.use_milp = off;")
        else:
            s.q("SET mixdnn.use_milp = on; SET mixdnn.solver_time_limit = %d;" % MILP_LIMIT_MS)
        # The simulator writes every plan; the extension keeps a start that
        # moves later by a little (mixdnn.replan_tolerance), which leaves a
        # wake-up at the old start, a 'due' round the simulator does not run.
        s.q("SET mixdnn.replan_tolerance = 0;")
        s.q("SET mixdnn.virtual_now = %s;" % ts(EPOCH * 1000000))
        for table, cols, f in (("gpu_types", "gpu_type, speed", "types.csv"),
                               ("gpu_nodes", "node, gpu_type, gpus", "nodes.csv"),
                               ("profiles", "model, gpu_type, gpus, throughput", "profiles.csv")):
            s.q("\\copy mixdnn.%s (%s) FROM '%s' WITH (FORMAT csv, HEADER true)"
                % (table, cols, os.path.join(data, f).replace("'", "''")))
        if s.messages:
            return {}, [], ["loading the cluster: " + m for m in s.messages], 0

        groups = []             # arrivals by instant, trace order within one
        for r in trace:
            if groups and groups[-1][0] == r["submit_us"]:
                groups[-1][1].append(r)
            else:
                groups.append((r["submit_us"], [r]))
        gi = 0
        now = None
        events = 0
        nmsg = len(s.messages)
        ratio = {r["name"]: r["true_ratio"] for r in trace}
        while True:
            cand = [groups[gi][0]] if gi < len(groups) else []
            ending = []         # (true end, name) of the jobs that run
            for name, st, ps, pe, sa in s.q(
                    "SELECT name, status, (extract(epoch FROM planned_start) * 1000000)::bigint, "
                    "(extract(epoch FROM planned_end) * 1000000)::bigint, "
                    "(extract(epoch FROM started_at) * 1000000)::bigint FROM mixdnn.jobs;"):
                if st in ("launching", "running"):
                    # planned_end is the estimate's end; the job runs its true time
                    end = int(sa) + int(((int(pe) - int(sa)) * ratio[name]).to_integral_value())
                    ending.append((end, name))
                    cand.append(end)
                elif st == "planned" and (now is None or int(ps) > now):
                    cand.append(int(ps))
                elif st == "planned":
                    anomalies.append("t=%.6f: a job is due and was not launched" % (now / 1e6 - EPOCH))
            if not cand or anomalies:
                break
            t = min(cand)
            if now is not None and t < now:
                anomalies.append("the clock went back from %d to %d us" % (now, t))
                break
            now = t
            events += 1
            if events > 10 * len(trace) + 100:
                anomalies.append("the replay did not end after %d events" % events)
                break
            done = [n for e, n in ending if e <= now + 1]
            sql = ["SET mixdnn.virtual_now = %s;" % ts(now), "BEGIN;"]
            if done:
                sql.append("UPDATE mixdnn.jobs SET status = 'completed' WHERE name IN (%s);"
                           % ", ".join(sql_str(n) for n in done))
            if gi < len(groups) and groups[gi][0] <= now + 1:
                sql.append(insert_sql(groups[gi][1]))
                gi += 1
            sql += ["COMMIT;", "SELECT mixdnn.launch_due();"]
            s.q("\n".join(sql))
            anomalies += ["t=%.6f: %s" % (now / 1e6 - EPOCH, m) for m in s.messages[nmsg:]]
            nmsg = len(s.messages)

        jobs = {}
        for name, status, gt, g, st, fi, fp, jid, reason, nodes in s.q(
                "SELECT j.name, j.status, coalesce(j.planned_gpu_type, ''), coalesce(j.planned_gpus::text, ''), "
                "  coalesce((extract(epoch FROM j.started_at) - {e})::text, ''), "
                "  coalesce((extract(epoch FROM j.finished_at) - {e})::text, ''), "
                "  coalesce((SELECT extract(epoch FROM h.planned_start) - {e} FROM mixdnn.plan_history h "
                "            WHERE h.job_id = j.job_id AND h.status = 'planned' "
                "            ORDER BY h.round_id LIMIT 1)::text, ''), "
                "  j.job_id, coalesce(j.reason, ''), "
                "  coalesce((SELECT string_agg(p.node || ':' || p.gpus, '|' ORDER BY p.node_rank) "
                "            FROM mixdnn.job_parts p WHERE p.job_id = j.job_id AND p.attempt = j.attempt), '') "
                "FROM mixdnn.jobs j ORDER BY j.job_id;".format(e=EPOCH)):
            jobs[name] = {"status": status, "gpu_type": gt, "gpus": g, "start_s": st, "finish_s": fi,
                          "first_planned_start_s": fp, "job_id": jid, "reason": reason, "nodes": nodes}
        rounds = [{"t_s": t, "event": e, "solver": so, "waiting": w, "objective": ob}
                  for t, e, so, w, ob in s.q(
                      "SELECT extract(epoch FROM at) - %d, event, solver, waiting, objective "
                      "FROM mixdnn.rounds WHERE waiting > 0 ORDER BY round_id;" % EPOCH)]
        return jobs, rounds, anomalies, events
    finally:
        s.close()


# ---------------------------------------------------------------- comparison

def num_eq(a, b, tol):
    if a == "" or b == "":
        return a == b
    return abs(float(a) - float(b)) <= tol


def compare_job(sj, dj, ignore=()):
    """How the database's row differs from the simulator's, in words."""
    if dj is None:
        return ["not in the database"]
    bad = []
    if sj["status"] != dj["status"]:
        bad.append("status: sim %s, db %s (%s)" % (sj["status"], dj["status"], dj["reason"] or sj["reason"]))
    for k in ("gpu_type", "gpus", "nodes"):
        if k not in ignore and sj[k] != dj[k]:
            bad.append("%s: sim %s, db %s" % (k, sj[k] or "-", dj[k] or "-"))
    for k in ("start_s", "finish_s", "first_planned_start_s"):
        if k not in ignore and not num_eq(sj[k], dj[k], TOL_S):
            bad.append("%s: sim %s, db %s" % (k, sj[k] or "-", dj[k] or "-"))
    if sj["job_id"] != dj["job_id"]:
        bad.append("job_id: sim %s, db %s" % (sj["job_id"], dj["job_id"]))
    return bad


def compare_rounds(sr, dr):
    """Rounds with waiting jobs, in order: same instant, waiting jobs and objective."""
    bad = []
    if len(sr) != len(dr):
        bad.append("the simulator ran %d rounds with waiting jobs, the database %d" % (len(sr), len(dr)))
    for i in range(max(len(sr), len(dr))):
        a = sr[i] if i < len(sr) else None
        b = dr[i] if i < len(dr) else None
        if a and b and num_eq(a["t_s"], b["t_s"], TOL_S) and a["waiting"] == b["waiting"] and \
                abs(float(a["objective"]) - float(b["objective"])) <= 1e-4 * max(1.0, abs(float(a["objective"]))):
            continue
        bad.append("round %d: sim %s; db %s" % (
            i + 1,
            "t=%s waiting=%s objective=%s" % (a["t_s"], a["waiting"], a["objective"]) if a else "-",
            "t=%.3f waiting=%s objective=%.6g (%s)" % (float(b["t_s"]), b["waiting"], float(b["objective"]),
                                                      b["event"]) if b else "-"))
        if len(bad) >= 5:
            bad.append("...")
            break
    return bad


def describe(sj, ignore):
    if sj["status"] != "completed":
        return sj["status"]
    return "%s x%s%s, start %s, finish %s" % (sj["gpu_type"], sj["gpus"],
                                             "" if "nodes" in ignore else " on " + sj["nodes"],
                                             sj["start_s"], sj["finish_s"])


def differential(tap, a, data, work, name, trace_file, modes, ignore=(), todo=None):
    """Compares one trace in the given modes: one TAP line per job, or one in all for a TODO."""
    if trace_file.startswith("random:"):
        seed = int(trace_file.split(":")[1])
        path = os.path.join(work, "random-%d.csv" % seed)
        random_trace(seed, path)
    else:
        path = trace_file if os.path.isabs(trace_file) else os.path.join(data, trace_file)
    tag = os.path.splitext(os.path.basename(path))[0]
    trace = load_trace(path)
    names = [r["name"] for r in trace]
    # job ids are tie-breakers in the core: the simulator numbers jobs by trace
    # position, the database in insertion (= submit) order; they agree when sorted
    if not tap.ok(all(x["submit_us"] <= y["submit_us"] for x, y in zip(trace, trace[1:]))
                  and len(set(names)) == len(names),
                  "%s: sorted by submit_s, unique names (job ids agree)" % name):
        return
    for mode in modes:
        label = "%s, %s" % (name, mode)
        rc, out, sjobs, srounds = run_sim(a.sim, data, path, work, tag, mode)
        if not tap.ok(rc == 0 and len(sjobs) == len(trace),
                      "%s: bin/mixdnn-sim ran the %d jobs" % (label, len(trace)), out.strip().splitlines()[-8:]):
            continue
        try:
            djobs, drounds, anomalies, events = replay(a.db, data, trace, mode)
        except PsqlError as e:
            tap.ok(False, "%s: replay in the database" % label, str(e).splitlines())
            continue
        tap.ok(not anomalies, "%s: replay in the database, %d events, no error, warning or stuck job"
               % (label, events), anomalies[:10])
        if mode == "milp":
            limited = ["sim t=%s: %s" % (r["t_s"], r["solver"]) for r in srounds
                       if "limit" in r["solver"] or "error" in r["solver"]]
            limited += ["db t=%.3f: %s" % (float(r["t_s"]), r["solver"]) for r in drounds
                        if "limit" in r["solver"] or "error" in r["solver"]]
            tap.ok(not limited, "%s: no round on either side stopped at the time limit (%d of %d "
                   "simulator rounds took GLPK's plan)"
                   % (label, sum(1 for r in srounds if r["solver"].startswith("glpk")), len(srounds)), limited)
        if todo is None:
            moved = sum(1 for j in sjobs.values() if j["status"] == "completed"
                        and (j["gpu_type"] != j["ref_type"] or j["gpus"] != j["ref_gpus"]))
            waited = sum(1 for j in sjobs.values() if j["wait_s"] and float(j["wait_s"]) > 0)
            tap.diag("%s: %d jobs, %d waited, %d ran on another configuration than requested, %d events"
                     % (label, len(sjobs), waited, moved, events))
        diffs = []
        for r in trace:
            sj = sjobs.get(r["name"])
            bad = compare_job(sj, djobs.get(r["name"]), ignore) if sj else ["not in the simulator's output"]
            if todo is None:
                tap.ok(not bad, "%s: %s %s" % (label, r["name"], describe(sj, ignore) if sj else ""), bad)
            diffs += ["%s %s" % (r["name"], d) for d in bad]
        extra = sorted(set(djobs) - set(sjobs))
        rbad = compare_rounds(srounds, drounds)
        if todo is None:
            tap.ok(not extra, "%s: no job in the database that the simulator does not have" % label, extra)
            tap.ok(not rbad, "%s: the same %d rounds with waiting jobs (instant, waiting jobs, objective)"
                   % (label, len(srounds)), rbad)
        else:
            diffs += ["extra job %s" % x for x in extra] + rbad
            tap.ok(not diffs, "%s: known difference, the extension agrees with the simulator%s"
                   % (label, " (nodes not compared)" if "nodes" in ignore else ""), diffs[:8], todo=todo)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sim", default="bin/mixdnn-sim")
    ap.add_argument("--data", default=here, help="directory of types.csv, nodes.csv, profiles.csv and the traces")
    ap.add_argument("--db", default=os.environ.get("MIXDNN_DIFF_DB", "mixdnn_diff"))
    ap.add_argument("--trace", help="compare only this trace (default: the suite)")
    ap.add_argument("--modes", default="heuristic,milp",
                    help="with --trace: heuristic, milp and/or comparators (%s)" % ", ".join(COMPARATORS))
    ap.add_argument("--nodes", action="store_true", help="with --trace: compare the nodes too")
    ap.add_argument("--keep", metavar="DIR", help="keep the simulator's outputs here, and the last replay's database")
    a = ap.parse_args()

    tap = Tap()
    owned = False
    data = os.path.abspath(a.data)
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="mixdnn-diff.")
    os.makedirs(work, exist_ok=True)
    try:
        if not (os.path.isfile(a.sim) and os.access(a.sim, os.X_OK)):
            tap.ok(False, "%s is built (make)" % a.sim)
            return tap.finish()
        try:
            admin("SHOW mixdnn.launch_worker")
            is_super = admin("SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user")
        except PsqlError as e:
            tap.ok(False, "the server is reachable and preloads mixdnn", str(e).splitlines())
            return tap.finish()
        if not tap.ok(is_super == "t" and a.db not in ("postgres", "template0", "template1")
                      and a.db.replace("_", "").isalnum() and a.db.islower(),
                      "a superuser; %s is a plain name of a database of its own" % a.db):
            return tap.finish()
        owned = True            # from here on the database is ours to drop
        if a.trace:
            differential(tap, a, data, work, os.path.basename(a.trace), os.path.abspath(a.trace),
                         [m for m in a.modes.split(",") if m], () if a.nodes else NODES)
        else:
            for name, trace_file, modes, ignore, todo in SUITE:
                differential(tap, a, data, work, name, trace_file, modes, ignore, todo)
        return tap.finish()
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
        if owned and not a.keep:
            try:
                admin("DROP DATABASE IF EXISTS %s WITH (FORCE)" % a.db)
            except PsqlError:
                pass


if __name__ == "__main__":
    sys.exit(main())
