#!/usr/bin/env python3
"""model_rules.py: auto's rules above 16 ranks on one node, from the cache-line model.

No machine here has more than 16 cores, so above 16 ranks auto cannot be
measured; this picks, for every cell of a grid of rank counts and payload
sizes, the algorithm the cache-line model (bench/sched_dump --lines,
docs/design.md "A model of cache-line transfers") predicts fastest among the
flat algorithms auto itself takes on one node, with the costs fitted to the
16-core machine (docs/performance.md, "Cache-line model"), and writes them as
rules in coll_rdma_tuning_file's format.  bench/defaults.sh appends them to
auto's default rules after the measured ones (a measured rule matches first).

Usage: bench/model_rules.py [-j JOBS] [-o DIR] [--grid GRID [--grid-picks]] [--sched-dump PATH]
  writes DIR/rules.txt (the rules) and DIR/grid.txt (every cell: the model's
  time of each candidate); DIR defaults to docs/perf/model.  JOBS parallel
  model runs (default 2).  About 35 minutes on 2 cores: the model walks every
  rank's lines; --grid GRID takes the cells an earlier grid.txt has (seconds).

Candidates (those auto takes on one node, every window mapped): barrier read,
nway, pairwise; bcast read, knomial; allreduce up to 4 KiB read (up to
allreduce_read_max_bytes), pairwise, nway, Bruck, the k-ary tree, for integer
sums (a floating-point sum takes the built-in table where a rule names n-way
or Bruck); reduce up to 4 KiB the k-nomial tree, rsag and hier, which on one
node is the root folding every input by reading; allgather and alltoall up to
4 KiB per block bruck, ring, read and bruck, direct, read.  The two-level
forms of barrier and allreduce (hier, nport) are left out: auto takes them
only across nodes.  Reduce, allgather and alltoall are modelled at fewer rank
counts, to 128 (the model walks every line of P^2 blocks: minutes a cell at
256), and their rules end there.  A cell's pick holds
from its rank count to the next grid point's only where that one picks the
same; elsewhere the built-in table decides.  A rule naming n-way or Bruck
gives way to the built-in table for a reduction whose order matters
(coll_rdma_decision.c), as every rule does.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys

COSTS = "140,140,15,5,0"   # docs/performance.md, the 16-core machine's fit
# denser where the algorithms' costs cross (found by sweeping 17-64 one by one)
RANKS = [17, 18, 20, 22, 24, 25, 28, 32, 35, 40, 44, 46, 48, 52, 54, 56, 64, 80, 96, 128, 192, 256]
# fewer for the collectives whose lines grow with P^2 blocks; their rules end at the last
RANKS_FEW = [17, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 128]
# allgather and alltoall blocks; split at 2 KiB, where the table's ring stops for the larger
BLOCKS_TO_4K = [(0, 8, 8), (9, 64, 64), (65, 512, 512), (513, 2048, 2048), (2049, 4096, 4096)]
# the sparse collectives' options: their rank counts, their last rule closed, and a pick
# that must also not be slower than the table at its class's low end
FEW = {"ranks": RANKS_FEW, "open_end": False, "both_ends": True}
# (collective, candidates, byte classes: (low, high, the size the model runs)[, options])
GRID = [
    ("barrier", ["read", "nway", "pairwise"], [(0, 0, 0)]),
    # classes end where an algorithm's message takes one more line: the tree's
    # slots hold 48 bytes in their first line, the read bcast's small ring 56
    ("bcast", ["read", "knomial"],
     [(0, 48, 48), (49, 56, 56), (57, 128, 128), (129, 512, 512), (513, 1024, 1024),
      (1025, 2048, 2048), (2049, 4096, 4096), (4097, 8192, 8192), (8193, 16384, 16384),
      (16385, 65536, 65536)]),
    ("allreduce", ["read", "pairwise", "nway", "bruck", "ktree"],
     [(0, 8, 8), (9, 32, 32), (33, 48, 48), (49, 512, 512), (513, 4096, 4096)]),
    # finer: the tree, the root's reads and rsag cross between 64 B and 4 KiB
    ("reduce", ["knomial", "hier", "rsag"],
     [(0, 8, 8), (9, 64, 64), (65, 128, 128), (129, 256, 256), (257, 512, 512), (513, 1024, 1024),
      (1025, 2048, 2048), (2049, 3072, 3072), (3073, 4096, 4096)], FEW),
    ("allgather", ["bruck", "ring", "read"], BLOCKS_TO_4K, FEW),
    ("alltoall", ["direct", "bruck", "read"], BLOCKS_TO_4K, FEW),
]


def options(entry):
    """A GRID entry's rank counts, whether its last rule is open-ended, and
    whether its picks are checked at their classes' low ends too."""
    o = entry[3] if len(entry) > 3 else {}
    return o.get("ranks", RANKS), o.get("open_end", True), o.get("both_ends", False)


def sizes(entry, lo, m):
    """The sizes the model runs for a class: its upper end, and its low end
    where the entry checks both (a byte class whose costs cross inside it
    must not name an algorithm slower than the table at the low end)."""
    return [m] + ([lo] if options(entry)[2] and 0 < lo < m else [])
# within this ratio of the fastest the built-in table's own pick is kept
# ("auto"): the rules name an algorithm only where the model says it matters
KEEP = 1.05


def model(sched_dump, coll, alg, P, nbytes):
    """The model's time of one algorithm (us), or None where it does not serve."""
    out = subprocess.run([sched_dump, "--lines", "-c", COSTS, "-a", alg, coll, str(P), str(nbytes)],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == alg:
            return float(f[-1].split("=")[1])
    return None


def auto_pick(sched_dump, coll, P, nbytes):
    """The built-in table's pick (without the default rules: the measured ones
    do not reach these cells, and this file's own must not feed back)."""
    out = subprocess.run([sched_dump, "--lines", "--auto-table", coll, str(P), str(nbytes)],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("auto="):
            return line.split()[0].split("=")[1]
    raise RuntimeError("no auto line for %s %d %d" % (coll, P, nbytes))


def read_grid(path):
    """The cells of an earlier grid.txt: {(coll, P, m): (table's pick, {alg: us})}."""
    cells = {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        times = f[4:f.index("->")]
        cells[(f[0], int(f[1]), int(f[2]))] = (f[3].split("=")[1], {
            k: float(v) for k, v in (x.split("=") for x in times)})
    return cells


def main():
    ap = argparse.ArgumentParser()
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("-o", default=os.path.join(src, "docs", "perf", "model"))
    ap.add_argument("--grid", help="take the model's times from this grid.txt instead of "
                    "running the model (seconds instead of minutes)")
    ap.add_argument("--grid-picks", action="store_true",
                    help="with --grid: take the table's picks from it too, not from the table "
                    "of today (the rules then a function of grid.txt alone; tests/unit/"
                    "test_model.sh checks those picks against today's table apart)")
    ap.add_argument("--sched-dump", default=os.path.join(os.environ.get("BUILDDIR", src), "bench",
                                                         "sched_dump"))
    a = ap.parse_args()
    cells = read_grid(a.grid) if a.grid else {}
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        for entry in GRID:
            coll, algs, classes = entry[:3]
            for P in options(entry)[0]:
                for lo, hi, m in classes:
                    for n in sizes(entry, lo, m):
                        if (coll, P, n) not in cells:
                            jobs[(coll, P, n)] = {alg: ex.submit(model, a.sched_dump, coll, alg,
                                                                 P, n) for alg in algs}
    for key, runs in jobs.items():
        us = {alg: run.result() for alg, run in runs.items()}
        cells[key] = (None, {k: v for k, v in us.items() if v is not None})
    # the table's picks, asked for every cell, those from --grid too (no model
    # run, seconds): a change to the table since must show in the rules
    for (coll, P, m), (now, us) in list(cells.items()):
        if now is None or not a.grid_picks:
            cells[(coll, P, m)] = (auto_pick(a.sched_dump, coll, P, m), us)
    # each cell's pick: the table's where within KEEP of the fastest, else the
    # fastest; never where the table hands the call on (the model has no
    # coll/tuned to weigh a served call against)
    pick = {}
    for key, (now, us) in cells.items():
        best = min(us, key=us.get)
        keep = now == "fallback" or (now in us and us[now] <= KEEP * us[best])
        pick[key] = "auto" if keep else best
    # both ends: the upper end's pick stands only where it is not slower than
    # the table at the class's low end either
    for entry in GRID:
        coll, _, classes = entry[:3]
        for P in options(entry)[0]:
            for lo, hi, m in classes:
                here = pick[(coll, P, m)]
                for n in sizes(entry, lo, m)[1:]:
                    now, us = cells[(coll, P, n)]
                    if here != "auto" and not (now in us and here in us and us[here] <= us[now]):
                        pick[(coll, P, m)] = "auto"
    os.makedirs(a.o, exist_ok=True)
    rules, grid = [], []
    for entry in GRID:
        coll, algs, classes = entry[:3]
        ranks, open_end = options(entry)[:2]
        rules.append("# %s above 16 ranks, from the cache-line model" % coll)
        prev = None
        for i, P in enumerate(ranks):
            row = []
            for lo, hi, m in classes:
                now, us = cells[(coll, P, m)]
                # a rule holds from this rank count to the next one's: only
                # where the next one picks the same (the algorithms' costs step
                # at rounds boundaries between the grid's points), else the table
                here = pick[(coll, P, m)]
                if i + 1 < len(ranks) and pick[(coll, ranks[i + 1], m)] != here:
                    here = "auto"
                grid.append("%s %d %d auto=%s %s -> %s" % (coll, P, m, now, " ".join(
                    "%s=%.3f" % (k, us[k]) for k in algs if k in us), here))
                for n in sizes(entry, lo, m)[1:]:
                    nnow, nus = cells[(coll, P, n)]
                    times = " ".join("%s=%.3f" % (k, nus[k]) for k in algs if k in nus)
                    grid.append("%s %d %d auto=%s %s -> (low end of %d)" % (coll, P, n, nnow,
                                                                           times, m))
                if row and row[-1][2] == here:
                    row[-1] = (row[-1][0], hi, here)
                else:
                    row.append((lo, hi, here))
            if i + 1 < len(ranks):
                hiP = "%d" % (ranks[i + 1] - 1)
            else:
                hiP = "" if open_end else "%d" % P
            if prev is not None and prev[1] == row:
                prev = (prev[0], row, hiP)
            else:
                if prev is not None:
                    rules.extend(emit(coll, prev))
                prev = (P, row, hiP)
        rules.extend(emit(coll, prev))
    with open(os.path.join(a.o, "rules.txt"), "w") as f:
        f.write("\n".join(rules) + "\n")
    with open(os.path.join(a.o, "grid.txt"), "w") as f:
        f.write("# bench/model_rules.py: sched_dump --lines -c %s, us per call; -> the rule's pick\n"
                % COSTS)
        f.write("\n".join(grid) + "\n")
    print("model_rules.py: wrote %s and grid.txt" % os.path.join(a.o, "rules.txt"))


def emit(coll, group):
    """Rules for the rank range of one group of identical rows (auto cells need none)."""
    loP, row, hiP = group
    out = []
    for lo, hi, pick in row:
        if pick != "auto":
            out.append("%-9s %-7s %-18s %s" % (coll, "%d-%s" % (loP, hiP), "%d-%d" % (lo, hi), pick))
    return out


if __name__ == "__main__":
    sys.exit(main())
