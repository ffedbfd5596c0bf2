#!/bin/bash
# On demand (not in make check): tests/mpi/test_around.c many times over, for
# issue 35's target "100 runs each without a hang at np 2-8, with the default
# warm-up and with window_setup_calls 0".  Each run gets its own seed (delays,
# progress and completion orders differ); a run that does not end within the
# timeout, or fails, is reported with the command that replays it.
#
#   BUILDDIR=build tests/mpi/run_around_soak.sh
#   RUNS=100 NPS="2 3 4 5 6 7 8" WARMUPS="16 0" CALLS=24 TIMEOUT=120
#   SECTIONS=idup,free,skew,threads,cid (test_around --only)
#
# Prints one line per (np, warm-up): runs, failures, the slowest run; exits
# non-zero on any failure.  About 4 s a run at np 4 on a quiet 2-core machine.
set -u
. "$(dirname "$0")/common.sh"
RUNS=${RUNS:-100}
NPS=${NPS:-2 3 4 5 6 7 8}
WARMUPS=${WARMUPS:-16 0}
CALLS=${CALLS:-24}
SECTIONS=${SECTIONS:-idup,free,skew,threads,cid}
bin=$BUILDDIR/tests/mpi/test_around
mkdir -p "$BUILDDIR/tests/mpi"
mpicc -O2 -g -Wall -pthread -I"$RDMA_REPO_ROOT/tests/mpi" -o "$bin" "$RDMA_REPO_ROOT/tests/mpi/test_around.c" || exit 1
extra=
[ "$RDMA_MODE" = component ] && extra=--nb-parent
snap=$RDMA_LOGDIR/shm.before
rdma_shm_list >"$snap"
bad=0
for np in $NPS; do
    for w in $WARMUPS; do
        fails=0 slowest=0
        for run in $(seq 1 "$RUNS"); do
            seed=$((np * 100000 + w * 1000 + run))
            cmd="mpirun --oversubscribe -np $np --mca op ^avx --mca coll_rdma_window_setup_calls $w $bin --warmup $w --calls $CALLS --seed $seed --only $SECTIONS $extra"
            t0=$(date +%s.%N)
            # shellcheck disable=SC2046,SC2086
            out=$(env $(rdma_mpi_env) timeout "$TIMEOUT" $cmd 2>&1)
            rc=$?
            t=$(echo "$(date +%s.%N) - $t0" | bc)
            slowest=$(echo "if ($t > $slowest) $t else $slowest" | bc)
            if [ $rc -ne 0 ] || ! echo "$out" | grep -q '^test_around OK'; then
                fails=$((fails + 1))
                echo "FAIL np $np warm-up $w seed $seed (rc $rc$([ $rc -eq 124 ] && echo ': timeout')): $(env $(rdma_mpi_env) | tr '\n' ' ') $cmd"
                echo "$out" | grep -E 'FAIL|rror' | head -n 3
            fi
            rdma_shm_cleanup "$snap" >/dev/null
        done
        echo "np $np warm-up $w: $RUNS runs, $fails failed, slowest $(printf '%.1f' "$slowest") s"
        bad=$((bad + fails))
    done
done
rm -rf "$RDMA_LOGDIR"
[ "$bad" -eq 0 ]
