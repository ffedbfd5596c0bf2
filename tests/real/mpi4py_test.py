#!/usr/bin/python3
"""mpi4py (Debian's python3-mpi4py, unmodified) over coll/rdma.

Run with /usr/bin/python3 under mpirun.  Every rank's input is generated
from (seed, case, rank), so each rank computes the expected results on its
own.  Rank 0 prints "PASS name" / "FAIL name (reason)" per check and a final
"N passed, M failed"; the exit status is non-zero on any failure.
Results of other ranks are compared through comm.allgather / Allgather,
which coll/rdma does not serve.

--thread-level=LEVEL: the level mpi4py asks MPI_Init_thread for (default
"funneled").  mpi4py's own default is "multiple"; run_mpi4py.sh runs both.

--skip-ulong-minmax: skip MIN/MAX on numpy uint64 (MPI_UNSIGNED_LONG), which
plain Open MPI 4.1.4 computes as signed (open-mpi/ompi#10525, fixed in
4.1.5); used when coll/rdma is not loaded.
"""
import sys
import time

import numpy as np
import mpi4py

THREAD_LEVEL = "funneled"
for a in sys.argv[1:]:
    if a.startswith("--thread-level="):
        THREAD_LEVEL = a.split("=", 1)[1]
mpi4py.rc.thread_level = THREAD_LEVEL
from mpi4py import MPI  # noqa: E402  (after setting rc)

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()
SEED = 20240917
SKIP_ULONG_MINMAX = "--skip-ulong-minmax" in sys.argv[1:]
results = []  # (name, ok, reason) on this rank


def check(name, ok, reason=""):
    results.append((name, bool(ok), reason))


def rng(case, r):
    return np.random.default_rng([SEED, case, r])


def now_ns():
    # CLOCK_MONOTONIC: one clock for the whole node (MPI.Wtime is per process)
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
FLT_DTYPES = [np.float32, np.float64]
COUNTS = [0, 1, 7, 16, 17, 255, 1024, 2047]


def first_diff(exp, got):
    bad = np.flatnonzero(exp != got) if exp.shape == got.shape else [0]
    i = int(bad[0]) if len(bad) else 0
    return "index %d expected %r got %r (%d mismatches)" % (
        i, exp.flat[i] if exp.size else None, got.flat[i] if got.size else None, len(bad))


def inputs(dtype, opname, case, r, n):
    """Rank r's input: exact results for every op (wrapping for integers)."""
    g = rng(case, r)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        if opname == "PROD":
            vals = [1, 2, -1] if info.min < 0 else [1, 2]
            return np.array(g.choice(vals, n), dtype=dtype)
        if opname in ("LAND", "LOR"):
            return np.array(g.integers(0, 2, n) * g.integers(1, 100, n), dtype=dtype)
        return g.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if opname == "PROD":
        return np.array(g.choice([1.0, 2.0, -1.0, 0.5], n), dtype=dtype)
    # multiples of 1/16 below 2^8: sums over few ranks are exact in float32
    return np.array(g.integers(-4096, 4097, n) / 16.0, dtype=dtype)


def reference(dtype, opname, case, n):
    acc = inputs(dtype, opname, case, 0, n)
    with np.errstate(over="ignore"):
        for r in range(1, size):
            x = inputs(dtype, opname, case, r, n)
            if opname == "SUM":
                acc = (acc + x).astype(dtype)
            elif opname == "PROD":
                acc = (acc * x).astype(dtype)
            elif opname == "MAX":
                acc = np.maximum(acc, x)
            elif opname == "MIN":
                acc = np.minimum(acc, x)
            elif opname == "BXOR":
                acc = acc ^ x
            elif opname == "BOR":
                acc = acc | x
            elif opname == "LAND":
                acc = np.logical_and(acc, x).astype(dtype)
            elif opname == "LOR":
                acc = np.logical_or(acc, x).astype(dtype)
    return acc


OPS = {"SUM": MPI.SUM, "PROD": MPI.PROD, "MAX": MPI.MAX, "MIN": MPI.MIN,
       "BXOR": MPI.BXOR, "BOR": MPI.BOR, "LAND": MPI.LAND, "LOR": MPI.LOR}


def test_barrier():
    ok, reason = True, ""
    for late in range(size):
        for rep in range(2):
            comm.Barrier()
            if rank == late:
                time.sleep(0.002)
            t_in = now_ns()
            comm.Barrier()
            t_out = now_ns()
            stamps = comm.allgather((t_in, t_out))
            last_in = max(s[0] for s in stamps)
            early = [r for r, s in enumerate(stamps) if s[1] < last_in]
            if early and ok:
                ok = False
                reason = "late rank %d: ranks %s left the barrier before it entered" % (late, early)
    for _ in range(500):
        comm.Barrier()
    check("Barrier", ok, reason)


def test_Bcast():
    case = 100
    for dtype in INT_DTYPES + FLT_DTYPES + [np.complex128]:
        ok, reason = True, ""
        for root in range(size):
            for n in COUNTS:
                case += 1
                exp = rng(case, 999).integers(-100, 100, n).astype(dtype)
                buf = exp.copy() if rank == root else np.zeros(n, dtype=dtype) + 77
                comm.Bcast(buf, root=root)
                if not np.array_equal(buf, exp) and ok:
                    ok, reason = False, "root %d count %d: %s" % (root, n, first_diff(exp, buf))
        check("Bcast[%s]" % np.dtype(dtype).name, ok, reason)
    # a 2-D array and a slice (contiguous rows)
    a = np.arange(12 * 33, dtype=np.float64).reshape(12, 33) * (rank == 1 % size)
    comm.Bcast(a[3:9], root=1 % size)
    exp = np.arange(12 * 33, dtype=np.float64).reshape(12, 33)
    ok = np.array_equal(a[3:9], exp[3:9]) and (rank == 1 % size or not a[:3].any())
    check("Bcast[2-D rows]", ok, "" if ok else first_diff(exp[3:9], a[3:9]))


def test_Allreduce():
    case = 10000
    for dtype in INT_DTYPES + FLT_DTYPES:
        # numpy uint64 travels as MPI_UNSIGNED_LONG; its MIN/MAX is a separate
        # check because Open MPI 4.1.4 gets it wrong by itself (ompi#10525)
        ulong = dtype == np.uint64
        ok, reason = True, ""
        ok_mm, reason_mm = True, ""
        for opname, op in OPS.items():
            if np.issubdtype(dtype, np.floating) and opname not in ("SUM", "PROD", "MAX", "MIN"):
                continue
            minmax = ulong and opname in ("MIN", "MAX")
            if minmax and SKIP_ULONG_MINMAX:
                continue
            for n in COUNTS:
                for inplace in (False, True):
                    case += 1
                    x = inputs(dtype, opname, case, rank, n)
                    exp = reference(dtype, opname, case, n)
                    if inplace:
                        got = x.copy()
                        comm.Allreduce(MPI.IN_PLACE, got, op=op)
                    else:
                        got = np.empty_like(x)
                        comm.Allreduce(x, got, op=op)
                    if not np.array_equal(got, exp):
                        msg = "%s count %d%s: %s" % (opname, n, " in place" if inplace else "",
                                                     first_diff(exp, got))
                        if minmax and ok_mm:
                            ok_mm, reason_mm = False, msg
                        elif not minmax and ok:
                            ok, reason = False, msg
        if ulong:
            check("Allreduce[uint64 = MPI_UNSIGNED_LONG, all ops but MIN/MAX]", ok, reason)
            if not SKIP_ULONG_MINMAX:
                check("Allreduce[uint64 = MPI_UNSIGNED_LONG, MIN/MAX (wrong in Open MPI 4.1.4 itself: "
                      "ompi#10525)]", ok_mm, reason_mm)
        else:
            check("Allreduce[%s]" % np.dtype(dtype).name, ok, reason)
    # non-exact float sum: same bits on every rank, close to a float64 reference
    ok, reason = True, ""
    for n in (1, 100, 4000):
        case += 1
        x = (rng(case, rank).standard_normal(n)).astype(np.float32)
        got = np.empty_like(x)
        comm.Allreduce(x, got, op=MPI.SUM)
        every = comm.allgather(got.tobytes())
        ref = sum(rng(case, r).standard_normal(n).astype(np.float32).astype(np.float64)
                  for r in range(size))
        scale = sum(np.abs(rng(case, r).standard_normal(n).astype(np.float32).astype(np.float64))
                    for r in range(size))
        if any(e != every[0] for e in every):
            ok, reason = False, "count %d: results differ between ranks" % n
        elif not np.all(np.abs(got - ref) <= 1e-5 * scale):
            ok, reason = False, "count %d: %s" % (n, first_diff(ref, got))
    check("Allreduce[float32 random SUM]", ok, reason)


def test_objects():
    # comm.bcast / comm.allreduce of Python objects (pickled)
    ok, reason = True, ""
    for root in range(size):
        obj = {"root": root, "list": list(range(root * 10)), "s": "x" * (1000 * root),
               "arr": np.arange(root + 3)} if rank == root else None
        got = comm.bcast(obj, root=root)
        if (got["root"] != root or got["list"] != list(range(root * 10))
                or got["s"] != "x" * (1000 * root) or not np.array_equal(got["arr"], np.arange(root + 3))):
            ok, reason = False, "bcast from root %d gave %r" % (root, str(got)[:80])
    big = comm.bcast(bytes(range(256)) * 1000 if rank == 0 else None, root=0)
    if big != bytes(range(256)) * 1000:
        ok, reason = False, "bcast of 256000 bytes object differs"
    check("bcast(object)", ok, reason)

    ok, reason = True, ""
    s = comm.allreduce(rank + 1, op=MPI.SUM)
    if s != size * (size + 1) // 2:
        ok, reason = False, "allreduce(rank+1, SUM) = %r" % s
    m = comm.allreduce((rank * 7) % size, op=MPI.MAX)
    if m != max((r * 7) % size for r in range(size)):
        ok, reason = False, "allreduce MAX = %r" % m
    lst = comm.allreduce([rank], op=MPI.SUM)  # list concatenation
    if sorted(lst) != list(range(size)):
        ok, reason = False, "allreduce of lists = %r" % lst
    f = comm.allreduce(0.5 * rank, op=MPI.SUM)
    if f != 0.5 * size * (size - 1) / 2:
        ok, reason = False, "allreduce float = %r" % f
    check("allreduce(object)", ok, reason)


def test_subcomms():
    ok, reason = True, ""
    sub = comm.Split(rank % 2, -rank)
    srank, ssize = sub.Get_rank(), sub.Get_size()
    members = [r for r in range(size) if r % 2 == rank % 2]
    for it in range(50):
        x = np.array([rank * 1000 + it + i for i in range(33)], dtype=np.int64)
        got = np.empty_like(x)
        sub.Allreduce(x, got, op=MPI.SUM)
        exp = np.array([sum(r * 1000 + it + i for r in members) for i in range(33)], dtype=np.int64)
        if not np.array_equal(got, exp) and ok:
            ok, reason = False, "split rank%%2 iter %d: %s" % (it, first_diff(exp, got))
        b = np.full(17, it, dtype=np.int32) if srank == it % ssize else np.zeros(17, dtype=np.int32)
        sub.Bcast(b, root=it % ssize)
        if not (b == it).all() and ok:
            ok, reason = False, "split rank%%2 bcast iter %d got %r" % (it, b[:4])
        sub.Barrier()
    sub.Free()
    for it in range(200):
        d = comm.Dup()
        v = np.array([rank + it], dtype=np.int32)
        out = np.empty_like(v)
        d.Allreduce(v, out, op=MPI.SUM)
        if out[0] != size * it + size * (size - 1) // 2 and ok:
            ok, reason = False, "Dup cycle %d: %d" % (it, out[0])
        d.Free()
    check("Split/Dup communicators", ok, reason)


def test_nonblocking():
    """Iallreduce, Ibcast, Ibarrier: several outstanding, completed by
    Waitall, Testall loops and Wait, interleaved with blocking calls."""
    ok, reason = True, ""
    for it in range(300):
        n = [1, 3, 64, 500][it % 4]
        root = it % size
        x = (np.arange(n, dtype=np.int64) + rank * 1000 + it)
        out = np.empty_like(x)
        b = np.arange(n, dtype=np.float64) * (it + 1) if rank == root else np.zeros(n)
        reqs = [comm.Iallreduce(x, out, op=MPI.SUM), comm.Ibcast(b, root=root), comm.Ibarrier()]
        if it % 3 == 0:
            y = comm.allreduce(rank, op=MPI.SUM)  # blocking, between
            if y != size * (size - 1) // 2 and ok:
                ok, reason = False, "blocking allreduce among nonblocking: %r" % (y,)
        if it % 2:
            MPI.Request.Waitall(reqs)
        else:
            while not MPI.Request.Testall(reqs):
                pass
        exp = np.arange(n, dtype=np.int64) * size + 1000 * size * (size - 1) // 2 + size * it
        if not np.array_equal(out, exp) and ok:
            ok, reason = False, "Iallreduce iter %d: %s" % (it, first_diff(exp, out))
        if not np.array_equal(b, np.arange(n, dtype=np.float64) * (it + 1)) and ok:
            ok, reason = False, "Ibcast iter %d root %d" % (it, root)
    check("Iallreduce/Ibcast/Ibarrier", ok, reason)


for t in (test_barrier, test_Bcast, test_Allreduce, test_objects, test_subcomms, test_nonblocking):
    try:
        t()
    except Exception as e:  # a crash of one check is a failure, not an abort
        check(t.__name__, False, "exception: %r" % (e,))

everyone = comm.allgather(results)
if rank == 0:
    npass = nfail = 0
    for i, (name, _, _) in enumerate(results):
        bad = [(r, everyone[r][i][2] if i < len(everyone[r]) else "check missing")
               for r in range(size) if i >= len(everyone[r]) or not everyone[r][i][1]]
        if bad:
            nfail += 1
            print("FAIL mpi4py %s np=%d (rank %d: %s)" % (name, size, bad[0][0], bad[0][1]))
        else:
            npass += 1
            print("PASS mpi4py %s np=%d" % (name, size))
    print("# thread level requested %s, provided %d" % (THREAD_LEVEL, MPI.Query_thread()))
    print("%d passed, %d failed" % (npass, nfail))
    sys.stdout.flush()
anyfail = comm.allreduce(int(any(not ok for _, ok, _ in results)), op=MPI.MAX)
sys.exit(1 if anyfail else 0)
