#!/bin/bash
# HPC Challenge (Debian's hpcc, unmodified) over coll/rdma at np 4, with the
# example input /usr/share/doc/hpcc/examples/_hpccinf.txt (N=1000, P=Q=2)
# copied as hpccinf.txt (the name hpcc opens) into a temporary directory.
# Asserts that hpcc's own checks pass in hpccoutf.txt (HPL and PTRANS
# residual checks, Success=1, RandomAccess / STREAM / FFT / DGEMM error
# checks) and, with the component, that the statistics show coll/rdma served
# barrier, bcast and allreduce calls.
#
# Environment: BUILDDIR, PLAIN, TIMEOUT, KEEP_LOGS as in tests/mpi/common.sh
# (one run: the same in both tiers of COLL_RDMA_TEST_TIER, full and series);
# TIMEOUT defaults to 300 s here (hpcc takes ~25 s on an idle 2-core machine,
# its RandomAccess phases alone may run 2 x 60 s under load).
# Prints PASS/FAIL per check and finally "N passed, M failed".
set -u

TIMEOUT=${TIMEOUT:-300}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../mpi/common.sh"

NP=4
INPUT=/usr/share/doc/hpcc/examples/_hpccinf.txt
HPCC=$(command -v hpcc || echo /usr/bin/hpcc)

if [ ! -x "$HPCC" ]; then
    echo "FAIL hpcc-installed (no hpcc binary)"
    echo "0 passed, 1 failed"
    exit 1
fi
WORK=$RDMA_LOGDIR/hpcc
mkdir -p "$WORK"
if [ -f "$INPUT" ]; then
    cp "$INPUT" "$WORK/hpccinf.txt"
elif [ -f "$INPUT.gz" ]; then
    gzip -dc "$INPUT.gz" >"$WORK/hpccinf.txt"
else
    echo "FAIL hpcc-input (neither $INPUT nor $INPUT.gz)"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "# mode: $RDMA_MODE; work dir $WORK" >&2

out=$RDMA_LOGDIR/hpcc.out
err=$RDMA_LOGDIR/hpcc.err
# hpcc's calls above the thresholds fall back to Open MPI: keep op/avx out
# (see OP_AVX_WORKAROUND in common.sh).
# shellcheck disable=SC2086
cd "$WORK" || exit 1
rdma_run hpcc "$out" "$err" \
    mpirun --oversubscribe -np "$NP" $OP_AVX_WORKAROUND $(rdma_verbose_args) "$HPCC"
rc=$?
cd - >/dev/null || exit 1
f=$WORK/hpccoutf.txt
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    rdma_fail hpcc-run "timeout after ${TIMEOUT}s (hang)"
elif [ $rc -ne 0 ]; then
    rdma_fail hpcc-run "exit $rc: $(rdma_first_errors "$out" "$err")"
elif [ ! -s "$f" ]; then
    rdma_fail hpcc-run "no hpccoutf.txt"
else
    rdma_pass hpcc-run "np=$NP, ${RDMA_RUN_SECS}s"
fi

# check NAME CONDITION-COMMAND... : PASS when the command succeeds
check() {
    local name=$1
    shift
    if [ -s "$f" ] && "$@"; then
        rdma_pass "$name"
    else
        rdma_fail "$name" "hpccoutf.txt: $(grep -m3 -E 'failed|FAILED|Success=|error' "$f" 2>/dev/null | tr '\n' ' ' | cut -c1-300)"
    fi
}
residuals_ok() {
    # every "N tests completed and passed residual checks" section with N >= 1
    # and every "failed residual checks" count 0 (HPL and PTRANS)
    local passed failed
    passed=$(grep -cE '^ *[1-9][0-9]* tests completed and passed residual checks' "$f")
    failed=$(grep -E 'tests completed and failed residual checks' "$f" | grep -cvE '^ *0 tests')
    [ "$passed" -ge 2 ] && [ "$failed" -eq 0 ]
}
hpl_passed() { grep -qE '^\|\|Ax-b\|\|_oo/.*PASSED' "$f" && ! grep -qE '^\|\|Ax-b\|\|.*FAILED' "$f"; }
summary_zero() { # KEY=value that must be 0
    local k
    for k in "$@"; do
        grep -qE "^$k=0(\.0*)?$" "$f" || return 1
    done
}
ra_ok() { ! grep -q '(failed)' "$f" && [ "$(grep -c '(passed)' "$f")" -ge 1 ]; }
nodes_ok() { ! grep -E '^Node\(s\) with error' "$f" | grep -qv 'error 0$'; }
stream_ok() { grep -q 'Solution Validates' "$f"; }
fft_ok() { # MPIFFT_maxErr and FFT maxErr small
    awk -F= '/^(MPIFFT_maxErr|FFT_maxErr)=/ {n++; if ($2 + 0 > 1e-10) bad = 1}
             END {exit !(n >= 1 && !bad)}' "$f"
}

check hpcc-success grep -q '^Success=1$' "$f"
check hpcc-hpl-residual hpl_passed
check hpcc-residual-checks residuals_ok
check hpcc-ptrans-residual summary_zero PTRANS_residual
check hpcc-randomaccess summary_zero MPIRandomAccess_Errors MPIRandomAccess_LCG_Errors
check hpcc-randomaccess-verify ra_ok
check hpcc-stream stream_ok
check hpcc-fft fft_ok
check hpcc-nodes-without-error nodes_ok

if [ "$RDMA_MODE" = component ]; then
    # auto picks the algorithms by communicator size, message size and (op, type) (docs/design.md)
    for what in "barrier read" "bcast read" "allreduce (read|ktree|pairwise|nway|bruck|ring)"; do
        reason=$(rdma_check_stats "$err" "$NP" "someserved:${what% *}:${what#* }")
        n=$(grep -E "^\[coll/rdma\] rank [0-9]+: $what: calls=" "$err" | grep -oE 'calls=[0-9]+' | sed 's/calls=//' | awk '{s += $1} END {print s + 0}')
        if [ -z "$reason" ]; then
            rdma_pass "hpcc-statistics-${what% *}" "$what: $n calls served over $NP ranks"
        else
            rdma_fail "hpcc-statistics-${what% *}" "$reason"
        fi
    done
fi

rdma_finish
