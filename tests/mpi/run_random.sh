#!/bin/bash
# The random-program checker (tests/mpi/test_random.c): seeded legal MPI
# programs run with coll/rdma, every result checked against each rank's
# local reference, under a timeout.
#
# Usage: tests/mpi/run_random.sh
#   SEEDS=N        seeds per cell (default 60, 20 in the series tier of the
#                  chroots: make check, 720 programs, about 2
#                  minutes on the shared 2-core machine); thousands on demand
#   FIRST_SEED=S   first seed (default 1)
#   NP="2 3 4"     process counts
#   CONFIGS="warm setup0 small tight"   coll/rdma settings, one cell each per np:
#                  warm    the default warm-up (coll_rdma_window_setup_calls 16)
#                  setup0  windows set up at a communicator's first call
#                  small   warm-up of 4 calls, 4 KiB thresholds (larger calls
#                          handed on)
#                  tight   warm-up of 2 calls, rings of 2 slots, 256-byte
#                          segments (slots reused within and across calls),
#                          sequence numbers that cross 2^64
#   BATCH=K        seeds per mpirun (default 20)
#   CHECK_FOCUS=idup|free|skew   weight the programs towards that shape
#   CHECK_WITHOUT=idup,free,skew,persist,nb,comm,handon,big,inplace
#                  programs without those features
#   AGAINST_STOCK=1  run every batch under --mca coll ^rdma too and compare
#                  the per-seed digests
#   SEED_TIMEOUT=s the program's watchdog per seed (default 10)
#   TIMEOUT=s      per batch mpirun (default 60 + 3 s per seed)
#   RETRIES=n      tries to reproduce a failing seed alone (default 3)
#   MAX_FAILS=n    failing seeds reported per cell before moving on (default 1)
#   BUILDDIR, PLAIN, KEEP_LOGS: as for run_mpi_tests.sh (common.sh)
#
# A batch that fails (a FAIL line, a TIMEOUT line, a crash, or the mpirun
# timeout) is narrowed to the seed it was in: that seed is run alone (until
# it fails, at most RETRIES times, 30 s each), then under --mca coll ^rdma.  The FAIL
# line gives the replay command and whether Open MPI's own components
# (^rdma) fail it too: then it is a generator or Open MPI bug, said as such.
# The cell then goes on after that seed.
#
# Prints "PASS random-npN-CONFIG" / "FAIL random-npN-CONFIG seed S (...)"
# and finally "N passed, M failed".  On the code of 298f729 this fails
# (review-2026-11-27 F1-F3); see tests/mpi/README-random.md.
set -u

BATCH_TIMEOUT=${TIMEOUT:-}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# the series tier (COLL_RDMA_TEST_TIER=series: the chroots, Open MPI 5.0 and
# 6.0, whose own nonblocking collectives around communicator creation differ
# from 4.1's) runs every cell with a third of the seeds
rdma_series_cases <<'SERIES'
random-np[234]-(warm|setup0|small|tight)
SERIES
SEEDS=${SEEDS:-$([ "${COLL_RDMA_TEST_TIER:-full}" = series ] && echo 20 || echo 60)}
FIRST_SEED=${FIRST_SEED:-1}
NP=${NP:-"2 3 4"}
CONFIGS=${CONFIGS:-"warm setup0 small tight"}
BATCH=${BATCH:-20}
CHECK_FOCUS=${CHECK_FOCUS:-}
CHECK_WITHOUT=${CHECK_WITHOUT:-}
AGAINST_STOCK=${AGAINST_STOCK:-0}
SEED_TIMEOUT=${SEED_TIMEOUT:-10}
RETRIES=${RETRIES:-3}
MAX_FAILS=${MAX_FAILS:-1}

# build test_random into the build tree when stale
BIN=$BUILDDIR/tests/mpi/test_random
SRCS=("$RDMA_REPO_ROOT"/tests/mpi/test_random.c "$RDMA_REPO_ROOT"/tests/mpi/test_random_prog.c
    "$RDMA_REPO_ROOT"/tests/mpi/test_random_data.c)
stale=0
[ -x "$BIN" ] || stale=1
for f in "${SRCS[@]}" "$RDMA_REPO_ROOT"/tests/mpi/test_random.h; do
    [ "$f" -nt "$BIN" ] && stale=1
done
if [ "$stale" = 1 ]; then
    mkdir -p "$BUILDDIR/tests/mpi"
    if ! mpicc -O2 -g -Wall -std=c11 -I"$RDMA_REPO_ROOT/tests/mpi" -o "$BIN" "${SRCS[@]}"; then
        echo "FAIL build-test_random (mpicc failed)"
        echo "0 passed, 1 failed"
        exit 1
    fi
fi

config_args() {
    case $1 in
    warm) echo "--mca coll_rdma_window_setup_calls 16" ;;
    setup0) echo "--mca coll_rdma_window_setup_calls 0" ;;
    small)
        echo "--mca coll_rdma_window_setup_calls 4 --mca coll_rdma_allreduce_max_bytes 4096" \
            "--mca coll_rdma_bcast_max_bytes 4096 --mca coll_rdma_reduce_max_bytes 4096" \
            "--mca coll_rdma_allgather_max_bytes 4096 --mca coll_rdma_alltoall_max_bytes 4096"
        ;;
    tight)
        echo "--mca coll_rdma_window_setup_calls 2 --mca coll_rdma_bcast_slots 2" \
            "--mca coll_rdma_bcast_small_slots 2 --mca coll_rdma_bcast_segment_bytes 256" \
            "--mca coll_rdma_allreduce_ring_slots 2 --mca coll_rdma_allreduce_ring_segment_bytes 256" \
            "--mca coll_rdma_allreduce_rsag_segment_bytes 256" \
            "--mca coll_rdma_debug_seq_start 18446744073709551516"
        ;;
    *)
        echo "unknown CONFIGS entry '$1'" >&2
        exit 2
        ;;
    esac
}

prog_args() {
    echo "--seed-timeout $SEED_TIMEOUT${CHECK_FOCUS:+ --focus $CHECK_FOCUS}${CHECK_WITHOUT:+ --without $CHECK_WITHOUT}"
}

# run_batch NAME NP MCA FIRST COUNT TIMEOUT [stock]: one mpirun; sets OUT,
# ERR, RC
run_batch() {
    local name=$1 np=$2 mca=$3 first=$4 count=$5 tmo=$6 stock=${7:-} extra=
    [ -n "$stock" ] && extra="--mca coll ^rdma"
    OUT=$RDMA_LOGDIR/$name.out
    ERR=$RDMA_LOGDIR/$name.err
    # shellcheck disable=SC2046,SC2086
    TIMEOUT=$tmo rdma_run "$name" "$OUT" "$ERR" mpirun --oversubscribe -np "$np" $OP_AVX_WORKAROUND \
        $mca $extra "$BIN" --seed "$first" --count "$count" $(prog_args)
    RC=$?
}

# batch_failed: empty when the batch in OUT/ERR passed, else the reason
# (the program's FAIL/TIMEOUT lines, a crash's signal and first coll/rdma
# frame, or how mpirun ended)
batch_failed() {
    local why lines
    why=$(rdma_outcome "$RC" "$OUT" "$ERR" '^test_random OK' "'test_random OK' line")
    lines=$(grep -h -m2 -E 'FAIL seed|TIMEOUT seed' "$ERR")
    [ -n "$lines" ] && [ -z "$why" ] && why="exit 0"
    [ -z "$why" ] && return 0
    if [ -n "$lines" ]; then
        why="$(echo "$lines" | tr '\n' ' ')(${why%%:*})"
    elif grep -qE 'Caught signal|Signal: ' "$ERR"; then
        why="$(grep -h -m1 -oE '(Caught signal|Signal:) [^()]*(\([^)]*\))?' "$ERR")$(grep -h -m1 -oE ' in [^ ]*mca_coll_rdma.so\([a-z_0-9]+' "$ERR" | sed 's/.*(/ in /') (${why%%:*})"
    fi
    echo "$why" | cut -c1-900
}

replay_cmd() {
    local np=$1 mca=$2 seed=$3
    echo "$(rdma_mpi_env) mpirun --oversubscribe -np $np $OP_AVX_WORKAROUND $mca $BIN --seed $seed --count 1 $(prog_args)"
}

# isolate CELL NP MCA SEED: the seed alone, then under ^rdma; prints the
# FAIL line
isolate() {
    local cell=$1 np=$2 mca=$3 seed=$4 why=$5 k tries=0 stock_why
    for k in $(seq 1 "$RETRIES"); do
        tries=$k
        run_batch "$cell-s$seed-r$k" "$np" "$mca" "$seed" 1 30
        why=$(batch_failed)
        [ -n "$why" ] && break
    done
    run_batch "$cell-s$seed-stock" "$np" "$mca" "$seed" 1 30 stock
    stock_why=$(batch_failed)
    if [ -n "$stock_why" ]; then
        rdma_fail "$cell seed $seed" "ALSO FAILS UNDER --mca coll ^rdma: a generator or Open MPI bug, not coll/rdma's: $stock_why; replay: $(replay_cmd "$np" "$mca" "$seed")"
    elif [ -n "$why" ]; then
        rdma_fail "$cell seed $seed" "$why; alone: failed on try $tries; ^rdma passes; replay: $(replay_cmd "$np" "$mca" "$seed")"
    else
        rdma_fail "$cell seed $seed" "$5; alone: passed $RETRIES tries (timing, or the seeds before it: replay with --seed $6 --count $((seed - $6 + 1))); ^rdma passes; replay: $(replay_cmd "$np" "$mca" "$seed")"
    fi
}

for np in $NP; do
    for config in $CONFIGS; do
        cell=random-np$np-$config
        rdma_selected "$cell" || continue
        mca=$(config_args "$config")
        seed=$FIRST_SEED
        last=$((FIRST_SEED + SEEDS - 1))
        fails=0
        t0=$(date +%s)
        while [ "$seed" -le "$last" ] && [ "$fails" -lt "$MAX_FAILS" ]; do
            count=$((last - seed + 1))
            [ "$count" -gt "$BATCH" ] && count=$BATCH
            tmo=${BATCH_TIMEOUT:-$((60 + 3 * count))}
            run_batch "$cell-$seed" "$np" "$mca" "$seed" "$count" "$tmo"
            why=$(batch_failed)
            if [ -z "$why" ] && [ "$AGAINST_STOCK" = 1 ]; then
                cp "$OUT" "$RDMA_LOGDIR/$cell-$seed.rdma"
                run_batch "$cell-$seed-stock" "$np" "$mca" "$seed" "$count" "$tmo" stock
                if [ -n "$(batch_failed)" ]; then
                    rdma_fail "$cell-stock seed $seed..$((seed + count - 1))" "fails under --mca coll ^rdma (a generator or Open MPI bug): $(batch_failed)"
                    fails=$((fails + 1))
                else
                    bad=$(diff <(grep '^digest' "$RDMA_LOGDIR/$cell-$seed.rdma") <(grep '^digest' "$OUT") |
                        sed -n 's/^< digest seed \([0-9]*\):.*/\1/p' | head -n 1)
                    if [ -n "$bad" ]; then
                        rdma_fail "$cell seed $bad" "digest differs from --mca coll ^rdma; replay: $(replay_cmd "$np" "$mca" "$bad")"
                        fails=$((fails + 1))
                    fi
                fi
            fi
            if [ -z "$why" ]; then
                seed=$((seed + count))
                continue
            fi
            # the seed it was in: the FAIL/TIMEOUT line's, else the last started
            bad=$(sed -n 's/.*\(FAIL\|TIMEOUT\) seed \([0-9]*\).*/\2/p' "$ERR" | head -n 1)
            [ -n "$bad" ] || bad=$(sed -n 's/^seed \([0-9]*\)$/\1/p' "$OUT" | tail -n 1)
            [ -n "$bad" ] || bad=$seed
            echo "# $cell: batch $seed..$((seed + count - 1)) failed in seed $bad: $why" >&2
            isolate "$cell" "$np" "$mca" "$bad" "$why" "$seed"
            fails=$((fails + 1))
            seed=$((bad + 1))
        done
        if [ "$fails" = 0 ]; then
            rdma_pass "$cell" "seeds $FIRST_SEED..$last, $(($(date +%s) - t0))s"
        elif [ "$seed" -le "$last" ]; then
            echo "# $cell: stopped after $fails failing seeds (MAX_FAILS), seeds $seed..$last not run" >&2
        fi
    done
done

rdma_finish
