#!/usr/bin/env bash
# cluster.sh: coll/rdma against coll/tuned and coll/han across hosts, in one
# interleaved series per message size (bench/compare.sh -M), and the ratio of
# coll/rdma to the better of the two.  See docs/cluster.md.
#
# Without -f, the hosts are made here out of network namespaces
# (tests/robust/netns.sh: root, iproute2; UCX over TCP between them, shared
# memory inside each): only ratios mean anything there.  With -f HOSTFILE
# the real hosts of HOSTFILE are used, with whatever network UCX finds.
#
# usage: bench/cluster.sh [-H HOSTS] [-P PER] [-f HOSTFILE -n NP] [-r REPS]
#                         [-c LIST] [-s SIZES] [-i ITERS] [-o OUTDIR]
#   -H HOSTS    namespace hosts (2 to 4, default 4)
#   -P PER      ranks per namespace host (default 2)
#   -f HOSTFILE real hosts (Open MPI hostfile); -n NP ranks in all
#   -r REPS     interleaved repetitions (default 5)
#   -c LIST     collectives (default barrier,bcast,allreduce)
#   -s SIZES    message sizes in bytes (default 8,65536,1048576; barrier: once)
#   -i ITERS    timed iterations at the smallest size (default 300; a size
#               s bytes gets ITERS * 8 / s, at least 10)
#   -o OUTDIR   (default bench/results/cluster-<date>)
#   -C LIST     configurations (default rdma,rdmaflat,tuned,han; others as
#               compare.sh's: mpirun arguments in $CFG_NAME)
# Configurations: rdma (auto; where UCX emulates puts, TCP, it hands every
# call on), rdmaemu (auto serving over emulated puts too: two levels where a
# host has several ranks), rdmaflat (that, with barrier nway, bcast and
# reduce knomial and allreduce pairwise: every rank across the network),
# tuned, han (--mca coll_han_priority 95).
# Writes OUTDIR/SIZE/ (compare.sh's tables) and OUTDIR/summary.md.
set -u

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SRCDIR/.." && pwd)
BUILDDIR=${BUILDDIR:-$REPO}
HOSTS=4
PER=2
HOSTFILE=
NP=
REPS=5
COLLS=barrier,bcast,allreduce
SIZES=8,65536,1048576
ITERS=300
OUTDIR=
CONFIGS=rdma,rdmaemu,rdmaflat,tuned,han

usage() { sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; }
while getopts "H:P:f:n:r:c:s:i:o:C:h" opt; do
    case $opt in
    H) HOSTS=$OPTARG ;;
    P) PER=$OPTARG ;;
    f) HOSTFILE=$OPTARG ;;
    n) NP=$OPTARG ;;
    r) REPS=$OPTARG ;;
    c) COLLS=$OPTARG ;;
    s) SIZES=$OPTARG ;;
    i) ITERS=$OPTARG ;;
    o) OUTDIR=$OPTARG ;;
    C) CONFIGS=$OPTARG ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
die() { echo "cluster.sh: error: $*" >&2; exit 1; }
[ -n "$OUTDIR" ] || OUTDIR=$SRCDIR/results/cluster-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

if [ -n "$HOSTFILE" ]; then
    [ -n "$NP" ] || die "-f needs -n NP"
    HOSTARGS="--hostfile $HOSTFILE"
else
    [[ $HOSTS =~ ^[2-4]$ ]] || die "-H must be 2, 3 or 4"
    export RDMA_LOGDIR=$OUTDIR/netns
    mkdir -p "$RDMA_LOGDIR"
    # shellcheck source=../tests/robust/netns.sh
    . "$REPO/tests/robust/netns.sh"
    netns_setup "$HOSTS" || die "no namespace hosts: $NETNS_SKIP"
    trap netns_teardown EXIT
    trap 'netns_teardown; exit 130' INT TERM
    NP=$((HOSTS * PER))
    # unbound: each host would bind its ranks to the same first cores; and
    # yielding in waits: each host thinks it has cores enough, but all hosts
    # share this machine's
    HOSTARGS="--host $(netns_host_arg "$PER") --bind-to none --mca mpi_yield_when_idle 1"
    HOSTARGS="$HOSTARGS --mca plm_rsh_agent $NETNS_AGENT"
    HOSTARGS="$HOSTARGS --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include $NETNS_SUBNET.0/24"
    HOSTARGS="$HOSTARGS --mca btl_tcp_if_include $NETNS_SUBNET.0/24 --mca btl self,vader,tcp -x UCX_NET_DEVICES=eth0"
fi
export CFG_rdmaemu="--mca coll_rdma_auto_emulated 1"
export CFG_rdmaflat="--mca coll_rdma_auto_emulated 1 --mca coll_rdma_barrier_algorithm nway --mca coll_rdma_bcast_algorithm knomial --mca coll_rdma_allreduce_algorithm pairwise --mca coll_rdma_reduce_algorithm knomial"

first=1
IFS=, read -r -a SIZE_LIST <<<"$SIZES"
for s in "${SIZE_LIST[@]}"; do
    colls=$COLLS
    [ "$first" = 1 ] || colls=$(echo ",$COLLS," | sed 's/,barrier,/,/; s/^,//; s/,$//')
    first=0
    [ -n "$colls" ] || continue
    iters=$((ITERS * 8 / s))
    [ "$iters" -ge 10 ] || iters=10
    "$SRCDIR/compare.sh" -n "$NP" -c "$colls" -m "$s:$s" -r "$REPS" -i "$iters" -x $((iters / 10 + 1)) \
        -C "$CONFIGS" -M "$HOSTARGS" -T 600 -o "$OUTDIR/$s" -V >"$OUTDIR/$s.log" 2>&1 ||
        echo "cluster.sh: compare.sh failed for $s bytes: see $OUTDIR/$s.log" >&2
done

# summary: the medians of table.md, and every configuration over the better
# of tuned and han
{
    echo "coll/rdma across $NP ranks ($([ -n "$HOSTFILE" ] && echo "hosts of $HOSTFILE" || echo "$HOSTS namespace hosts x $PER")), $REPS interleaved repetitions, median latency (us); X / best: X over the better of tuned and han."
    echo
    for s in "${SIZE_LIST[@]}"; do
        [ -f "$OUTDIR/$s/table.md" ] || continue
        awk -F'|' -v first="$([ "$s" = "${SIZE_LIST[0]}" ] && echo 1 || echo 0)" '
        $2 ~ /collective/ {
            n = 0
            for (i = 4; i < NF; ++i) if ($i ~ /\(us\)/) { name = $i; gsub(/ *\(us\) */, "", name); gsub(/ /, "", name); col[++n] = i; cfg[n] = name }
            if (first) {
                h = "| collective | size (B) |"; d = "|---|---:|"
                for (k = 1; k <= n; ++k) { h = h " " cfg[k] " |"; d = d "---:|" }
                for (k = 1; k <= n; ++k) if (cfg[k] != "tuned" && cfg[k] != "han") { h = h " " cfg[k] " / best |"; d = d "---:|" }
                print h; print d
            }
            next
        }
        $2 ~ /---/ || NF < 5 || n == 0 || ($3 + 0 == 0 && $2 !~ /barrier/) { next }
        {
            t = -1; hh = -1
            for (k = 1; k <= n; ++k) { v[k] = $(col[k]) + 0; if (cfg[k] == "tuned") t = v[k]; if (cfg[k] == "han") hh = v[k] }
            b = t; if (hh > 0 && (b <= 0 || hh < b)) b = hh
            line = "|" $2 "|" $3 "|"
            for (k = 1; k <= n; ++k) line = line sprintf(" %.2f |", v[k])
            for (k = 1; k <= n; ++k) if (cfg[k] != "tuned" && cfg[k] != "han") line = line (b > 0 ? sprintf(" %.2f |", v[k] / b) : " - |")
            print line
        }' "$OUTDIR/$s/table.md"
    done
} >"$OUTDIR/summary.md"
cat "$OUTDIR/summary.md"
