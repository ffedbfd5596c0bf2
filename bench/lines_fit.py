#!/usr/bin/env python3
"""Fit the cache-line model's transfer costs to measured times.

The model (docs/design.md, "A model of cache-line transfers") predicts
t = t_sw(coll) + T(X, U, F, G), T being the last exit that
`sched_dump --lines -c X,U,F,G,0` prints as us=.  Where the costs could not be
measured on a machine (bench/line_cost, bench/line_check), this searches a grid
of X = U, F and G for the costs that fit that machine's times best (least
squares of the relative error) and prints every point with its prediction.

    python3 bench/lines_fit.py [--sched-dump PATH] [--costs X,F,G]

The points are the 16-core Intel VM's (/work/shared/measurements/
2026-11-26-16core: np16-small, np16-bcast-slots, np4-a, np8-a; avg statistic,
us); t_sw is the software per call measured at 2 ranks on the 2-core VM
(docs/performance.md, "Cache-line model").  --costs prints one set only.
"""
import argparse
import os
import subprocess

# (collective, algorithm, ranks, bytes, more sched_dump options, measured us)
POINTS = [
    ("barrier", "read", 16, 0, [], 0.77),
    ("bcast", "read", 4, 8, [], 0.46),
    ("bcast", "read", 8, 8, [], 0.55),
    ("bcast", "read", 16, 8, [], 0.80),
    ("bcast", "read", 16, 8, ["-o", "bcast_slots=2"], 0.97),
    ("bcast", "read", 16, 8, ["-o", "bcast_slots=32"], 0.69),
    ("bcast", "read", 16, 8, ["-o", "bcast_slots=256", "-o", "bcast_segment_bytes=4096"], 0.60),
    ("allreduce", "pairwise", 4, 8, [], 0.55),
    ("allreduce", "read", 8, 8, [], 0.67),
    ("allreduce", "read", 16, 8, [], 1.17),
    ("reduce", "knomial", 4, 8, [], 0.70),
    ("reduce", "knomial", 8, 8, [], 1.02),
    ("reduce", "knomial", 16, 8, [], 1.20),
]
T_SW = {"barrier": 0.06, "bcast": 0.11, "allreduce": 0.11, "reduce": 0.11}


def model_us(sched_dump, point, x, f, g):
    """The model's T (us) for one point at costs X = U = x, F = f, G = g (ns)."""
    coll, alg, ranks, size, extra, _ = point
    cmd = [sched_dump, "--lines", "-a", alg] + extra + ["-c", "%g,%g,%g,%g,0" % (x, x, f, g),
                                                        coll, str(ranks), str(size)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith(alg + " "):
            return float(line.split("us=")[1].split()[0])
    raise RuntimeError("no line for %s in: %s" % (alg, out))


def score(sched_dump, x, f, g):
    """Sum of squared relative errors, and the rows (point, predicted us)."""
    rows = [(p, T_SW[p[0]] + model_us(sched_dump, p, x, f, g)) for p in POINTS]
    return sum(((pred - p[5]) / p[5]) ** 2 for p, pred in rows), rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sched-dump", default=os.path.join(here, "..", "build", "bench", "sched_dump"))
    ap.add_argument("--costs", help="X,F,G in ns: print that set only")
    a = ap.parse_args()
    if a.costs:
        grid = [tuple(float(v) for v in a.costs.split(","))]
    else:
        grid = [(x, f, g) for x in (40, 60, 80, 100, 120, 140) for f in (0, 5, 10, 15, 20, 30)
                for g in (0, 5, 10, 20)]
    best = min((score(a.sched_dump, *c) + (c,) for c in grid), key=lambda s: s[0])
    err, rows, (x, f, g) = best
    print("X = U = %g, F = %g, G = %g ns: relative error %.0f %% rms" %
          (x, f, g, 100 * (err / len(rows)) ** 0.5))
    for p, pred in rows:
        print("  %-9s %-8s P=%-3d %-50s measured %.2f predicted %.2f (%.2f)" %
              (p[0], p[1], p[2], " ".join(p[4]), p[5], pred, pred / p[5]))


if __name__ == "__main__":
    main()
