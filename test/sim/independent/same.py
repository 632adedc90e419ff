"""same.py OURS.csv INDEPENDENT.csv — prints nothing when every job starts
at the same time (within 10 ms) on the same type and count in both
simulator --out files, else the first difference. A job in one file only,
a name twice, a start that is no finite number, or no job started in
either (nothing compared) is a difference too.
Used by test/sim/independent.sh and tools/independent_all.sh."""
import csv, math, sys
def rows(path):
    rs = list(csv.DictReader(open(path)))
    names = [r["name"] for r in rs]
    if len(set(names)) != len(names):
        print("%s names a job twice" % path)
        sys.exit(0)
    return {r["name"]: r for r in rs}
def key(r):
    if not r["start_s"]:
        return None
    t = float(r["start_s"])
    if not math.isfinite(t):
        print("%s: start %s" % (r["name"], r["start_s"]))
        sys.exit(0)
    return (t, r["gpu_type"], r["gpus"])
ours, ind = rows(sys.argv[1]), rows(sys.argv[2])
if set(ours) != set(ind):
    print("jobs in one run only: ours %s, independent %s" % (sorted(set(ours) - set(ind))[:3], sorted(set(ind) - set(ours))[:3]))
    sys.exit(0)
for name, r in ind.items():
    a, b = key(ours[name]), key(r)
    if (a is None) != (b is None) or (a and (abs(a[0] - b[0]) > 0.01 or a[1:] != b[1:])):
        print("%s: ours %s, independent %s" % (name, a, b))
        sys.exit(0)
if not any(key(r) for r in ind.values()):
    print("no job started in either run: nothing compared")
