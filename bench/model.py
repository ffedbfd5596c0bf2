#!/usr/bin/env python3
"""LogGP model of coll/rdma's schedules at scale (docs/scale.md).

The rounds come from bench/sched_dump (the schedule layer itself); each round
costs, on its critical path (the max over ranks that sched_dump reports):

    o + (s-1) * max(g, o + (b-1) G) + (b-1) G + L + max(r, 1) * o + gamma * c

for a rank sending s messages of b bytes and receiving r in the round, c bytes
combined; one message alone is 2o + L + (b-1)G.  Levels: shm (inside a node)
and net (between nodes), from bench/model_params.json.  Across nodes with more
than one rank per node, a flat algorithm's round also needs the node's NIC for
the n messages leaving the node: at least L + 2o + n * max(gnic, b G).  coll/rdma's put
path adds one L per call (the flush of its last put waits for the ack, which
comes back one L after the round's own message arrived),
and every call its software cost (fitted from a 2-rank barrier measured here).

    model.py fit                      parameters fitted from the raw measurements
    model.py predict SET COLL BYTES NODES PPN
    model.py all SET                  every algorithm, case, nodes and ppn as TSV (stdout)
    model.py sweep [-o DIR]           tables, gnuplot data and script (docs/perf/scale)
    model.py check                    the model against every configuration measured here

Standard library only.  SCHED_DUMP names the sched_dump binary (default
build/bench/sched_dump, then bench/sched_dump).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_choice as mc  # noqa: E402

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODES = [2, 4, 8, 16, 32, 48, 64, 128, 256, 512, 1024, 2048, 4096]
PPNS = [1, 2, 4, 8, 16, 32, 64]
CASES = [("barrier", 0), ("allreduce", 8), ("allreduce", 65536), ("allreduce", 1048576),
         ("bcast", 8), ("bcast", 65536), ("bcast", 1048576)]

# the two-level allreduces' chunk: allreduce_short_max_bytes's default (bytes)
CHUNK = 16384

# coll/rdma's algorithms the model evaluates: label -> (dump name, param, two-level?): True
# the leaders' form (sched_dump -H), "nport" every rank of a node carrying a share (-N)
OURS = {
    "barrier": [("nway-%d" % n, "barrier-nway", n, False) for n in (1, 2, 3, 4, 7)] +
               [("pairwise", "barrier-pairwise", 1, False)] +
               [("hier-nway-%d" % n, "barrier-nway", n, True) for n in (1, 2, 4)],
    "allreduce": [("nway-%d" % n, "allreduce-nway", n, False) for n in (1, 2, 3)] +
                 [("bruck-%d" % n, "allreduce-bruck", n, False) for n in (1, 2, 4)] +
                 [("pairwise", "allreduce-pairwise", 1, False), ("ktree-2", "allreduce-ktree", 2, False),
                  ("ktree-4", "allreduce-ktree", 4, False), ("ring", "allreduce-ring", 1, False)] +
                 [("hier-nway-2", "allreduce-nway", 2, True), ("hier-pairwise", "allreduce-pairwise", 1, True)] +
                 [("nport-pairwise", "allreduce-pairwise", 1, "nport"), ("nport-nway-2", "allreduce-nway", 2, "nport")],
    "bcast": [("knomial-%d" % k, "bcast-knomial", k, False) for k in (2, 4, 8)] +
             [("hier-knomial-%d" % k, "bcast-knomial", k, True) for k in (2, 4)],
}


def sched_dump_path():
    """Path of the sched_dump binary (env SCHED_DUMP, else the build trees)."""
    for p in (os.environ.get("SCHED_DUMP"), os.path.join(SRC, "build/bench/sched_dump"),
              os.path.join(SRC, "bench/sched_dump")):
        if p and os.access(p, os.X_OK):
            return p
    sys.exit("model.py: sched_dump not found (make, or set SCHED_DUMP)")


_DUMPS = {}


def dump(alg, size, param, m, ppn=1, hier=False):
    """Rounds of `alg` over `size` ranks (nodes if hier) for a payload of m bytes.

    Returns a list of (level, rep, sends, recvs, bytes, reduce_bytes, node_sends).  ppn:
    ranks per node (flat: block mapping, classifies rounds; hier: node size).
    hier: False, True (leaders, sched_dump -H) or "nport" (every rank a carrier, -N).
    Cached; one sched_dump run serves every size of a (alg, size, param, ppn).
    """
    key = (alg, size, param, ppn, hier)
    if key not in _DUMPS:
        sizes = [0, 4, 8, 4096, 8192, CHUNK, 32768, 65536, 1048576]
        form = "-N" if hier == "nport" else "-H" if hier else "-q"
        args = [sched_dump_path(), form, str(ppn), alg, str(size), str(param),
                ",".join(map(str, sizes))]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        _DUMPS[key] = parse_dump(out)
    table = _DUMPS[key]
    if m not in table:
        raise KeyError("payload %d not dumped" % m)
    return table[m]


def parse_dump(text):
    """Parse sched_dump output into {m: [(level, rep, sends, recvs, bytes, red, node_sends)]}."""
    blocks, cur = {}, None
    for line in text.splitlines():
        if line.startswith("# m="):
            cur = blocks.setdefault(int(line.split()[1][2:]), [])
        elif line.startswith("R ") and cur is not None:
            f = line.split()
            cur.append((f[2], int(f[3]), int(f[4]), int(f[5]), int(f[6]), int(f[7]), int(f[8])))
    return blocks


def median(v):
    """Median of a non-empty list of numbers."""
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def fit(path, which):
    """LogGP level fitted from a model_pingpong raw file for path 'mpi' or 'store'.

    mpi: o = mean of the send and receive overheads, g = the burst gap,
    L = one-way(1 B) - 2o (at least 0), G = slope of one-way from 64 KiB to 1 MiB.
    store: o = g = the burst gap (a store and a flag), L = one-way(1 B) - 2o,
    G as above.  gamma: the combining cost per byte.  Each value is the
    median over the runs the file holds.
    """
    one, vals = {}, {}
    with open(os.path.join(SRC, path)) as f:
        for line in f:
            p = line.split()
            if len(p) == 4 and p[0] == "oneway" and p[1] == which:
                one.setdefault(int(p[2]), []).append(float(p[3]))
            elif len(p) == 3 and p[1] == which:
                vals.setdefault(p[0], []).append(float(p[2]))
            elif len(p) == 2 and p[0] == "gamma":
                vals.setdefault("gamma", []).append(float(p[1]))
    one = {k: median(v) for k, v in one.items()}
    vals = {k: median(v) for k, v in vals.items()}
    if which == "gamma":
        return vals["gamma"]
    if not one:
        raise ValueError("%s: no %s measurements" % (path, which))
    o = (vals["osend"] + vals["orecv"]) / 2 if which == "mpi" else vals["burst"]
    G = (one[1048576] - one[65536]) / (1048576 - 65536)
    return {"L": max(one[1] - 2 * o, 0.0), "o": o, "g": vals["burst"], "G": G}


def call_overheads(path, intra):
    """Software cost of one call (us), coll/rdma's and coll/tuned's, from a 2-rank barrier.

    A 2-rank barrier is one message each way in one round (L + 2o); what the
    measured barrier (bench/compare.sh's table `path`: size, tuned, rdma
    columns) takes beyond that is the call's own cost.  At least 0.
    """
    with open(os.path.join(SRC, path)) as f:
        head = f.readline().split()
        row = dict(zip(head, f.readline().split()))
    one = {k: intra[k]["L"] + 2 * intra[k]["o"] for k in ("shm", "shm_p2p")}
    return {"rdma": max(float(row["rdma"]) - one["shm"], 0.0),
            "p2p": max(float(row["tuned"]) - one["shm_p2p"], 0.0)}


def load_params(path=None):
    """Parameter sets: {name: {"shm", "shm_p2p", "net", "net_p2p", "gamma", "title", "source"}}.

    A single-node set "shm" (no net level) comes first.
    """
    with open(path or os.path.join(SRC, "bench/model_params.json")) as f:
        cfg = json.load(f)

    def level(spec):
        if "measured" not in spec:
            return dict(spec)
        lv = fit(spec["measured"], spec["path"])
        lv.update({k: v for k, v in spec.items() if k not in ("measured", "path")})
        return lv

    intra = {"shm": level(cfg["intra"]["shm"]), "shm_p2p": level(cfg["intra"]["shm_p2p"]),
             "gamma": fit(cfg["intra"]["gamma"]["measured"], "gamma")}
    intra["call"] = call_overheads(cfg["intra"]["call"]["measured"], intra)
    sets = {"shm": dict(intra, net=None, net_p2p=None, title="shared memory of this 2-core VM",
                        source="measured here: bench/model_params.sh")}
    for name, spec in cfg["sets"].items():
        try:
            sets[name] = dict(intra, net=level(spec["net"]), net_p2p=level(spec["net_p2p"]),
                              title=spec["title"], source=spec["source"])
        except (OSError, KeyError, ValueError) as e:
            print("model.py: set %s left out: %s" % (name, e), file=sys.stderr)
    return sets


def round_time(lv, s, r, b, red, gamma, nic=0):
    """LogGP time (us) of one round: s sends and r receives of b bytes, red bytes combined.

    nic: messages that leave the busiest node in this round through its one NIC
    (counted only when more than s: several ranks of the node send).
    """
    if s == 0 and r == 0:
        return 0.0
    wire = max(b - 1, 0) * lv["G"]
    t = lv["o"] + max(s - 1, 0) * max(lv["g"], lv["o"] + wire) + wire + lv["L"] + max(r, 1) * lv["o"]
    if nic > s:
        t = max(t, lv["L"] + 2 * lv["o"] + nic * max(lv.get("gnic", 0.0), b * lv["G"]))
    return t + gamma * red


def cost(rounds, pset, p2p=False, put_path=False):
    """Time (us) of a dumped schedule under parameter set pset.

    p2p: use the point-to-point levels (coll/tuned, coll/han); put_path: add
    coll/rdma's flush (L + o of the net level) when a round crosses nodes.
    """
    total, crossed = pset["call"]["p2p" if p2p else "rdma"], False
    for level, rep, s, r, b, red, nic in rounds:
        lv = pset[level + ("_p2p" if p2p else "")]
        if lv is None:
            raise ValueError("set has no %s level" % level)
        total += rep * round_time(lv, s, r, b, red, pset["gamma"], nic)
        crossed = crossed or level == "net"
    if put_path and crossed and pset["net"].get("flush"):
        # the ack of the last put returns one L after the round's own message
        # arrived (RC: the NIC acks, no overhead at the target)
        total += pset["net"]["L"]
    return total


def flat_cost(pset, alg, param, nodes, ppn, m, p2p):
    """A flat algorithm over nodes * ppn ranks (block mapping)."""
    return cost(dump(alg, nodes * ppn, param, m, ppn=ppn), pset, p2p=p2p, put_path=not p2p)


def ours(pset, coll, m, nodes, ppn):
    """{label: us} for coll/rdma's algorithms (two-level forms only with ppn > 1).

    The two-level allreduces run one instance per CHUNK bytes, one after the
    other (coll_rdma_plan(); the model credits no overlap between them); the
    call's own cost is paid once.
    """
    res = {}
    for label, alg, param, hier in OURS[coll]:
        if hier and ppn == 1:
            continue
        if hier:
            chunks = -(-m // CHUNK) if coll == "allreduce" and m > CHUNK else 1
            one = cost(dump(alg, nodes, param, m if chunks == 1 else CHUNK, ppn=ppn, hier=hier), pset,
                       put_path=nodes > 1)
            res[label] = chunks * one - (chunks - 1) * pset["call"]["rdma"]
        else:
            res[label] = flat_cost(pset, alg, param, nodes, ppn, m, False)
    return res


def tuned(pset, coll, m, nodes, ppn):
    """(label, us) of what coll/tuned 4.1's fixed rules run over nodes * ppn ranks."""
    p = nodes * ppn
    alg, param = {"barrier": lambda: mc.tuned_barrier(p), "allreduce": lambda: mc.tuned_allreduce(p, m),
                  "bcast": lambda: mc.tuned_bcast(p, m)}[coll]()
    return "%s(%d)" % (alg.split("-", 1)[1], param), flat_cost(pset, alg, param, nodes, ppn, m, True)


def _seg_sizes(m, seg):
    """Number of segments and the segment size (bytes) for m bytes in seg-byte pieces."""
    n = max(1, -(-m // seg))
    return n, min(m, seg)


def _stage(pset, alg, param, size, m, level_nodes):
    """Time of one p2p stage over `size` ranks, all on one node or all on different ones."""
    if size < 2:
        return 0.0
    return cost(dump(alg, size, param, m, ppn=size if not level_nodes else 1), pset, p2p=True)


def han(pset, coll, m, nodes, ppn):
    """us of coll/han 4.1 (leader-based, pipelined over 64 KiB segments)."""
    if coll == "barrier":
        low = _stage(pset, *mc.tuned_barrier(ppn), ppn, 0, False)
        return 2 * low + _stage(pset, *mc.tuned_barrier(nodes), nodes, 0, True)
    nseg, seg = _seg_sizes(m, mc.HAN_SEGMENT)
    dm = seg
    if seg not in (4, 8, 65536):
        raise ValueError("han segments of %d bytes not dumped" % seg)
    ub_alg, ub_k, chain_seg = mc.libnbc_bcast(nodes, m)
    if chain_seg:  # libnbc's chain is segmented: (nodes - 1 + pieces - 1) hops of one piece
        pieces = max(1, seg // chain_seg)
        hop = _stage(pset, "bcast-chain", 1, 2, chain_seg, True)
        ub = (nodes - 1 + pieces - 1) * hop
    else:
        ub = _stage(pset, ub_alg, ub_k, nodes, dm, True)
    lb = _stage(pset, *mc.tuned_bcast(ppn, dm), ppn, dm, False)
    stages = [ub, lb]
    if coll == "allreduce":
        stages = [_stage(pset, *mc.tuned_reduce_low(ppn), ppn, dm, False),
                  _stage(pset, "reduce-ktree", 2, nodes, dm, True)] + stages
    return sum(stages) + (nseg - 1) * max(stages)


def predict(pset, coll, m, nodes, ppn):
    """All predictions for one configuration: {"ours": {...}, "best": (label, us),
    "tuned": (label, us), "han": us}."""
    o = ours(pset, coll, m, nodes, ppn)
    best = min(o.items(), key=lambda kv: kv[1])
    return {"ours": o, "best": best, "tuned": tuned(pset, coll, m, nodes, ppn),
            "han": han(pset, coll, m, nodes, ppn) if nodes > 1 else None}


def case_name(coll, m):
    """Short name of a case: barrier, allreduce-8, bcast-1M ..."""
    if coll == "barrier":
        return coll
    return "%s-%s" % (coll, {8: "8", 4: "4", 65536: "64K", 1048576: "1M"}.get(m, str(m)))


def main(argv):
    """Command line (see the module's docstring)."""
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    cmd = argv[1]
    if cmd == "fit":
        for name, s in load_params().items():
            print("%s: %s" % (name, s["title"]))
            for lvl in ("shm", "shm_p2p", "net", "net_p2p"):
                if s[lvl]:
                    print("  %-8s " % lvl + " ".join("%s=%.6g" % kv for kv in sorted(s[lvl].items())
                                                      if not isinstance(kv[1], bool)))
            print("  gamma    %.6g us/B" % s["gamma"])
            print("  call     rdma %.4g us, p2p %.4g us" % (s["call"]["rdma"], s["call"]["p2p"]))
        return 0
    if cmd == "predict" and len(argv) == 7:
        pset = load_params()[argv[2]]
        r = predict(pset, argv[3], int(argv[4]), int(argv[5]), int(argv[6]))
        for k, v in sorted(r["ours"].items(), key=lambda kv: kv[1]):
            print("rdma %-16s %10.3f us" % (k, v))
        print("tuned %-15s %10.3f us" % r["tuned"])
        if r["han"] is not None:
            print("han                   %10.3f us" % r["han"])
        return 0
    if cmd == "all" and len(argv) == 3:
        pset = load_params()[argv[2]]
        print("# coll\tbytes\tnodes\tppn\talgorithm\tus  (set %s; tuned:/han: what they would run)" % argv[2])
        for coll, m in CASES:
            for nodes in NODES:
                for ppn in PPNS:
                    r = predict(pset, coll, m, nodes, ppn)
                    rows = sorted(r["ours"].items()) + [("tuned:" + r["tuned"][0], r["tuned"][1]),
                                                        ("han", r["han"])]
                    for label, us in rows:
                        print("%s\t%d\t%d\t%d\t%s\t%.4f" % (coll, m, nodes, ppn, label, us))
        return 0
    if cmd in ("sweep", "check"):
        import model_out
        return model_out.main(cmd, argv[2:], sys.modules[__name__])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
