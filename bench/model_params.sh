#!/bin/bash
# Measure the LogGP parameters of this machine for bench/model.py (docs/scale.md).
#
#   bench/model_params.sh [-o DIR] [-n REPS] [-N] [-c BUILDDIR]
#
# Builds bench/model_pingpong.c with mpicc and runs it 5 times (the machine is
# shared: bench/model.py takes the median of the runs) in two placements of 2 ranks:
#   shm:      one node, --bind-to core (MPI point-to-point and plain stores);
#   tcp-veth: two "hosts" made of network namespaces joined by veth pairs and
#             a bridge (tests/robust/netns.sh; needs root), one rank each, MPI
#             over the tcp BTL, unbound (each "host" would bind its rank to
#             core 0: both on one core, every message a 4 ms time slice).
#             -N skips it.  The namespaces are always
#             removed (netns_teardown, also on interruption).
# Writes DIR/shm.txt and DIR/tcp-veth.txt (default DIR docs/perf/scale/params)
# with the raw lines of model_pingpong; bench/model.py fit turns them into
# parameters.  About 5 seconds in all; coll/rdma is not loaded (--mca coll
# ^rdma): only the transports are measured.
# -c BUILDDIR: also time the collectives the model predicts (barrier,
# allreduce and bcast of 8 B, 64 KiB, 1 MiB; coll/rdma and coll/tuned; 200
# calls per size) with BUILDDIR/bench/coll_bench in both configurations, into
# DIR/check-shm.txt and DIR/check-tcp-veth.txt (about 20 seconds more).
set -u
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
OUT=$SRCDIR/docs/perf/scale/params
REPS=2000
RUNS=5
NETNS_RUN=1
CHECK=
while getopts "o:n:Nc:" opt; do
    case $opt in
    o) OUT=$OPTARG ;;
    c) CHECK=$(cd "$OPTARG" && pwd) ;;
    n) REPS=$OPTARG ;;
    N) NETNS_RUN=0 ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$OUT"
RDMA_LOGDIR=$(mktemp -d /tmp/model_params.XXXXXX)
export RDMA_LOGDIR
PP=$RDMA_LOGDIR/model_pingpong
mpicc -O2 -Wall -Wextra "$SRCDIR/bench/model_pingpong.c" -o "$PP" || exit 1

stamp() {
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -n) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
    echo "# load: $(cut -d' ' -f1-3 /proc/loadavg); $(ompi_info --version 2>/dev/null | head -1)"
}

# check_runs MPIRUN-ARGS...: coll_bench of the model's cases, rdma then tuned
check_runs() {
    local cfg c m
    for cfg in rdma tuned; do
        for c in barrier allreduce bcast; do
            for m in 8 65536 1048576; do
                [ "$c" = barrier ] && [ "$m" != 8 ] && continue
                echo "## $cfg $c $m"
                timeout -k 5 60 mpirun -np 2 "$@" $([ "$cfg" = tuned ] && echo --mca coll ^rdma) \
                    "$CHECK/bench/coll_bench" -c "$c" -m "$m:$m" -i 200 -x 20 2>&1 | grep -v '^#'
            done
        done
    done
}
if [ -n "$CHECK" ]; then
    SYSDIR=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')
    export OMPI_MCA_mca_base_component_path=$SYSDIR:$CHECK/ompi-coll-rdma/.libs
fi

{
    stamp
    echo "# mpirun -np 2 --bind-to core --mca coll ^rdma model_pingpong -n $REPS"
    for i in $(seq "$RUNS"); do
        timeout -k 5 60 mpirun --oversubscribe --bind-to core -np 2 --mca coll ^rdma "$PP" -n "$REPS"
    done
} >"$OUT/shm.txt" 2>&1
echo "shm: $OUT/shm.txt"
if [ -n "$CHECK" ]; then
    { stamp; echo "# coll_bench, np 2, --bind-to core"; check_runs --bind-to core; } >"$OUT/check-shm.txt" 2>&1
    echo "check shm: $OUT/check-shm.txt"
fi

if [ "$NETNS_RUN" = 1 ]; then
    # shellcheck source=../tests/robust/netns.sh
    . "$SRCDIR/tests/robust/netns.sh"
    trap 'netns_teardown; rm -rf "$RDMA_LOGDIR"' EXIT
    trap 'netns_teardown; rm -rf "$RDMA_LOGDIR"; exit 130' INT TERM
    if netns_setup 2; then
        args=(--host "$(netns_host_arg 1)" --mca plm_rsh_agent "$NETNS_AGENT" --mca plm_rsh_no_tree_spawn 1
            --mca oob_tcp_if_include "$NETNS_SUBNET.0/24" --mca btl_tcp_if_include "$NETNS_SUBNET.0/24"
            --mca btl self,vader,tcp --bind-to none)
        {
            stamp
            echo "# 2 network-namespace hosts (veth + bridge), 1 rank each: mpirun -np 2 ${args[*]} --mca coll ^rdma model_pingpong -n $((REPS / 4))"
            for i in $(seq "$RUNS"); do
                timeout -k 5 90 mpirun -np 2 "${args[@]}" --mca coll ^rdma "$PP" -n $((REPS / 4))
            done
        } >"$OUT/tcp-veth.txt" 2>&1
        echo "tcp-veth: $OUT/tcp-veth.txt"
        if [ -n "$CHECK" ]; then
            # coll/rdma's put path over UCX's TCP transport, as tests/robust's netns cases
            {
                stamp
                echo "# coll_bench, np 2 on 2 namespace hosts: ${args[*]} -x UCX_NET_DEVICES=eth0 --mca op ^avx"
                check_runs "${args[@]}" -x UCX_NET_DEVICES=eth0 --mca op ^avx
            } >"$OUT/check-tcp-veth.txt" 2>&1
            echo "check tcp-veth: $OUT/check-tcp-veth.txt"
        fi
    else
        echo "tcp-veth: skipped ($NETNS_SKIP)" | tee "$OUT/tcp-veth.txt"
    fi
    netns_teardown
else
    rm -rf "$RDMA_LOGDIR"
fi
