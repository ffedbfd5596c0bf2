"""What coll/tuned and coll/han of Open MPI 4.1 would run (for bench/model.py).

coll/tuned: the fixed decision rules of ompi/mca/coll/tuned/coll_tuned_decision_fixed.c
on the v4.1.x branch of github.com/open-mpi/ompi (commit dadb5bfe9492, read
2026-11-24): ompi_coll_tuned_barrier_intra_dec_fixed,
ompi_coll_tuned_allreduce_intra_dec_fixed (commutative branch) and
ompi_coll_tuned_bcast_intra_dec_fixed.  The fixed rules pass segsize 0 (no
segmentation) and the k-nomial bcast uses radix 4
(coll_tuned_bcast_decision.c, coll_tuned_bcast_knomial_radix).

coll/han (v4.1.x, ompi/mca/coll/han): barrier = intra barrier, leaders' barrier,
intra barrier (coll_han_barrier.c, both through tuned); allreduce = per 64 KiB
segment (han_allreduce_segsize) intra reduce (tuned), inter reduce and bcast
(libnbc), intra bcast (tuned), pipelined over segments (coll_han_allreduce.c);
bcast = inter bcast (libnbc) then intra bcast (tuned), 64 KiB segments
(han_bcast_segsize).  libnbc's ibcast: linear for p <= 4, binomial below
64 KiB, chain above (nbc_ibcast.c); its ireduce: binomial here (nbc_ireduce.c
picks reduce-scatter + gather for counts >= p; modelled as binomial).  han's
priority is 0 in 4.1, so it runs only when asked for.

Each function maps to sched_dump algorithm names (bench/sched_dump.c), as
(name, param) pairs, after the run-time switches of ompi/mca/coll/base (v4.1.x):
the ring and the segmented ring run recursive doubling when count < p
(coll_base_allreduce.c), Rabenseifner's reduce-scatter + allgather runs the
linear allreduce when count < the largest power of two <= p, and the
scatter-allgather bcast runs the linear bcast when count < p
(coll_base_bcast.c).  Counts: doubles for allreduce payloads of 8 bytes and
more (one int for 4 bytes), bytes for bcast (bench/coll_bench's defaults).
"""


def tuned_barrier(p):
    """Algorithm coll/tuned 4.1 runs for a barrier of p ranks: (dump name, param)."""
    if p < 4:
        alg = 3
    elif p < 8:
        alg = 1
    elif p < 64:
        alg = 3
    elif p < 256:
        alg = 4
    elif p < 512:
        alg = 6
    elif p < 1024:
        alg = 4
    elif p < 4096:
        alg = 6
    else:
        alg = 4
    return {1: ("barrier-linear", 1), 3: ("barrier-pairwise", 1),
            4: ("barrier-nway", 1), 6: ("barrier-tree", 2)}[alg]


def _decide(rows, cuts_above, last, p, m):
    """Walk a fixed decision table of coll/tuned: rows (below, cuts, other) by rank count
    (the first row with p < below), in it the first cut (mb, alg) with m < mb, else other;
    above every row cuts_above, else last.  Returns an algorithm number."""
    for below, cuts, other in rows:
        if p < below:
            break
    else:
        cuts, other = cuts_above, last
    for mb, alg in cuts:
        if m < mb:
            return alg
    return other


def _tuned_allreduce_alg(p, m):
    """tuned 4.1 allreduce algorithm number (commutative op) for p ranks, m bytes."""
    rows = [  # (p below, [(m below, alg)...], alg otherwise)
        (4, [(8, 4), (4096, 3), (8192, 4), (16384, 3), (65536, 4), (262144, 5)], 6),
        (8, [(16, 4), (8192, 3)], 6),
        (16, [(8192, 3)], 6),
        (32, [(64, 5), (4096, 3)], 6),
        (64, [(128, 5)], 6),
        (128, [(262144, 3)], 6),
        (256, [(131072, 2), (262144, 3)], 6),
        (512, [(4096, 2)], 6),
        (2048, [(2048, 2), (16384, 3)], 6),
        (4096, [(2048, 2), (4096, 5), (16384, 3)], 6),
    ]
    return _decide(rows, [(2048, 2), (16384, 5), (32768, 3)], 6, p, m)


def tuned_allreduce(p, m):
    """(dump name, param) coll/tuned 4.1 runs for an allreduce of m bytes on p ranks.

    nonoverlapping (2) is reduce + bcast: modelled as the binomial tree both ways;
    the segmented ring (5) as the ring.
    """
    alg = _tuned_allreduce_alg(p, m)
    count = m // 8 if m >= 8 else 1
    pof2 = 1 << (p.bit_length() - 1)
    if alg in (4, 5) and count < p:
        alg = 3
    if alg == 6 and count < pof2:
        alg = 1
    return {1: ("allreduce-linear", 1), 2: ("allreduce-ktree", 2),
            3: ("allreduce-pairwise", 1), 4: ("allreduce-ring", 1),
            5: ("allreduce-ring", 1), 6: ("allreduce-rabenseifner", 1)}[alg]


def _tuned_bcast_alg(p, m):
    """tuned 4.1 bcast algorithm number for p ranks, m bytes."""
    rows = [
        (4, [(32, 3), (256, 5), (512, 3), (1024, 7), (32768, 1), (131072, 5),
             (262144, 2), (524288, 1), (1048576, 6)], 5),
        (8, [(64, 5), (128, 6), (2048, 5), (8192, 6), (1048576, 1)], 2),
        (16, [(8, 7), (64, 5), (4096, 7), (16384, 5), (32768, 6)], 1),
        (32, [(4096, 7), (1048576, 6)], 8),
        (64, [(2048, 6)], 7),
        (128, [], 7),
        (256, [(2, 6), (16384, 5), (32768, 1), (65536, 5)], 7),
        (1024, [(16384, 7), (32768, 4)], 7),
        (2048, [(524288, 7)], 8),
        (4096, [(262144, 7)], 8),
    ]
    return _decide(rows, [(8192, 7), (16384, 5), (262144, 7)], 8, p, m)


def tuned_bcast(p, m):
    """(dump name, param) coll/tuned 4.1 runs for a bcast of m bytes on p ranks.

    pipeline (3) and chain (2) unsegmented are the chain; split binary tree (4)
    is modelled as the binary tree.
    """
    alg = _tuned_bcast_alg(p, m)
    if alg == 8 and m < p:
        alg = 1
    return {1: ("bcast-linear", 1), 2: ("bcast-chain", 1), 3: ("bcast-chain", 1),
            4: ("bcast-bintree", 1), 5: ("bcast-bintree", 1), 6: ("bcast-knomial", 2),
            7: ("bcast-knomial", 4), 8: ("bcast-scatter-allgather", 1)}[alg]


def tuned_reduce_low(p):
    """The intra-node reduce han's allreduce asks of tuned: linear below 8 ranks,
    else binomial (tuned 4.1's small-message choices, simplified)."""
    return ("reduce-linear", 1) if p < 8 else ("reduce-ktree", 2)


def libnbc_bcast(p, m):
    """libnbc 4.1 ibcast for p ranks and m bytes: (dump name, param, chain segment bytes)."""
    if p <= 4:
        return ("bcast-linear", 1, 0)
    if m < 65536:
        return ("bcast-knomial", 2, 0)
    return ("bcast-chain", 1, 8192 if m < 524288 else 32768)


HAN_SEGMENT = 65536
