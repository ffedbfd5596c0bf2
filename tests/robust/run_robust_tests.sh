#!/bin/bash
# Robustness suite of coll/rdma (docs/reliability.md): mismatched parameters,
# communicator churn and leaks, resource exhaustion, a rank killed, 8 ranks
# on 2 cores, edge inputs, sequence-number wrap, hosts made of network
# namespaces, MPI_THREAD_MULTIPLE across the wrap.
#
# Usage: tests/robust/run_robust_tests.sh
#   BUILDDIR=dir   where ompi-coll-rdma/.libs/mca_coll_rdma.so lives; the test
#                  programs are built into $BUILDDIR/tests/robust/
#   TIMEOUT=s      per mpirun (default 120)
#   ONLY=regex / EXCLUDE=regex / KEEP_LOGS=1 / PLAIN=1   as in tests/mpi/common.sh
#   NETNS=0        skip the network-namespace cases (they need root and iproute2)
#   VALGRIND=0     skip the valgrind leak check
#   COLL_RDMA_TEST_TIER=full|series   full (the default, the host's make
#                  check): every case; series (the Open MPI 5.0 and 6.0
#                  chroots of tests/run-chroot.sh): the cases named in the
#                  rdma_series_cases block below (tests/mpi/common.sh), and
#                  the churn at 2000 cycles instead of 10000
# About 8 minutes on an idle 2-core machine (the churn of 10000 cycles 3,
# the hosts made of network namespaces 4); the series tier about 1.
#
# Prints "PASS name" / "FAIL name (reason)" / "SKIP name (reason)" per case
# and finally "N passed, M failed"; exits non-zero when M > 0.
set -u

. "$(dirname "${BASH_SOURCE[0]}")/../mpi/common.sh"
. "$RDMA_REPO_ROOT/tests/robust/netns.sh"

# The series tier (COLL_RDMA_TEST_TIER=series; tests/mpi/common.sh): what
# depends on the Open MPI series (the window set-up's agreement over
# coll/libnbc, communicators freed, the runtime's handling of a killed rank,
# edge inputs: MPI_BOTTOM, intercommunicators, MPI_COMM_SELF) and the
# chroot's UCX.  valgrind and the network namespaces are not in the chroots
# (they print SKIP there); the sequence wrap is coll/rdma's own counting.
rdma_series_cases <<'SERIES'
mismatch-.* churn-2000-np2 exhaust-.* ucx-unavailable-np3 kill-rank-np4
oversub-np8(-tuned)? edge-np[1-8] oom-.* budget-.*
SERIES

HERE=$RDMA_REPO_ROOT/tests/robust
BIN=$BUILDDIR/tests/robust
NETNS=${NETNS:-1}
VALGRIND=${VALGRIND:-1}
mkdir -p "$BIN"

# build PROGRAM_BINARY SOURCE... -- COMMAND...: (re)build when missing or
# older than a source
build() {
    local bin=$1 stale=0
    shift
    [ -x "$bin" ] || stale=1
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        [ "$1" -nt "$bin" ] && stale=1
        shift
    done
    shift
    if [ "$stale" = 1 ]; then
        if ! "$@"; then
            echo "FAIL build-$(basename "$bin") ($*)"
            echo "0 passed, 1 failed"
            exit 1
        fi
    fi
}
ROBUST=$BIN/test_robust
THREADS=$BIN/test_threads
AROUND=$BIN/test_around
BUDGET=$BIN/test_budget
PUTCOUNTER=$BIN/put_counter.so
MALLOCFAIL=$BIN/malloc_fail.so
# test_robust's files: main in test_robust.c, the sections in the others
ROBUST_SRCS=("$HERE"/test_robust*.c)
build "$ROBUST" "${ROBUST_SRCS[@]}" "$HERE/test_robust.h" -- \
    mpicc -O2 -g -Wall -std=c11 -o "$ROBUST" "${ROBUST_SRCS[@]}"
build "$THREADS" "$RDMA_REPO_ROOT/tests/mpi/test_threads.c" -- \
    mpicc -O2 -g -Wall -pthread -o "$THREADS" "$RDMA_REPO_ROOT/tests/mpi/test_threads.c"
build "$MALLOCFAIL" "$HERE/malloc_fail.c" -- gcc -O2 -Wall -shared -fPIC -o "$MALLOCFAIL" \
    "$HERE/malloc_fail.c" -ldl
build "$BUDGET" "$HERE/test_budget.c" "$RDMA_REPO_ROOT/bench/bench_mpit.c" -- \
    mpicc -O2 -g -Wall -I"$RDMA_REPO_ROOT/bench" -o "$BUDGET" "$HERE/test_budget.c" \
    "$RDMA_REPO_ROOT/bench/bench_mpit.c"
build "$AROUND" "$RDMA_REPO_ROOT/tests/mpi/test_around.c" -- \
    mpicc -O2 -g -Wall -pthread -I"$RDMA_REPO_ROOT/tests/mpi" -o "$AROUND" "$RDMA_REPO_ROOT/tests/mpi/test_around.c"
# shellcheck disable=SC2046
build "$PUTCOUNTER" "$HERE/put_counter.c" -- gcc -O2 -Wall -shared -fPIC -o "$PUTCOUNTER" \
    "$HERE/put_counter.c" -ldl $(pkg-config --cflags ucx 2>/dev/null)

echo "# mode: $RDMA_MODE; logs in $RDMA_LOGDIR, timeout ${TIMEOUT}s per run" >&2

cleanup_all() {
    netns_teardown
}
trap 'cleanup_all' EXIT
trap 'cleanup_all; rdma_interrupted' INT TERM

# Near 2^64: every collective's counter wraps after 2000 calls.
SEQ_NEAR_WRAP=18446744073709549616
# one node: auto reads peers' windows for barrier, bcast and small
# allreduces; across hosts (the put path) it writes into them
AUTO_AR="(read|ktree|pairwise|nway|bruck|ring)"
SERVED_ALL="served:barrier:read served:bcast:read served:allreduce:$AUTO_AR"
SERVED_PUT="served:barrier:nway served:bcast:knomial served:allreduce:$AUTO_AR"
# across hosts of several ranks each: the two levels
SERVED_HIER="served:barrier:hier served:bcast:hier served:allreduce:hier"

# The component's statistics and messages only exist in component mode.
component() { [ "$RDMA_MODE" = component ]; }

# check_grep ERR REGEX WHAT: reason unless a line of ERR matches (component mode)
check_grep() {
    component || return 0
    grep -qE -- "$2" "$1" || echo "no $3 on stderr"
}

# rcase NAME NP "MPIRUN ARGS" "PROGRAM AND ARGS" "CHECKS" [EXTRA_CHECK_FUNCTION]
#   one mpirun with the component's statistics; passes when it prints
#   "test_robust OK" (or "test_threads OK"), the statistics CHECKS hold
#   (rdma_check_stats) and EXTRA_CHECK_FUNCTION OUT ERR prints nothing (it
#   runs in a subshell; what it writes to $RCASE_NOTE_FILE goes into the PASS
#   line).
#   PRE=... (a command prefix such as taskset) goes before mpirun.
rcase() {
    local name=$1 np=$2 mpiargs=$3 prog=$4 checks=$5 extra=${6:-} out err rc reason
    rdma_selected "$name" || return 0
    out=$RDMA_LOGDIR/$name.out
    err=$RDMA_LOGDIR/$name.err
    echo "$(rdma_mpi_env) ${PRE:-} mpirun --oversubscribe -np $np $(rdma_verbose_args) $mpiargs $prog" >"$RDMA_LOGDIR/$name.cmd"
    # shellcheck disable=SC2046,SC2086
    rdma_run "$name" "$out" "$err" ${PRE:-} \
        mpirun --oversubscribe -np "$np" $(rdma_verbose_args) $mpiargs $prog
    rc=$?
    reason=$(rdma_outcome $rc "$out" "$err" '^test_(robust|threads|around|budget) OK' "'test_robust OK' line")
    if [ -z "$reason" ]; then
        # shellcheck disable=SC2086
        reason=$(rdma_check_stats "$err" "$np" $checks)
    fi
    rm -f "$RCASE_NOTE_FILE"
    if [ -z "$reason" ] && [ -n "$extra" ]; then
        reason=$($extra "$out" "$err")
    fi
    local note=
    [ -f "$RCASE_NOTE_FILE" ] && note=$(cat "$RCASE_NOTE_FILE")
    if [ -z "$reason" ]; then
        rdma_pass "$name" "${RDMA_RUN_SECS}s${RDMA_RUN_NOTE:+, $RDMA_RUN_NOTE}${note:+, $note}"
    else
        rdma_fail "$name" "$reason${RDMA_RUN_NOTE:+; $RDMA_RUN_NOTE}${note:+; $note}; cmd: $(cat "$RDMA_LOGDIR/$name.cmd")"
    fi
}
RCASE_NOTE_FILE=$RDMA_LOGDIR/.note
RANK_ENV=$HERE/rank_env.sh

# ---- 1. mismatched MCA parameters --------------------------------------------
# One rank with another value of an agreed parameter: results right, no hang,
# the window set-up warns naming the parameter and every call falls back.
warn_threshold() { check_grep "$2" 'warning: coll_rdma_allreduce_max_bytes differs between ranks' "warning naming coll_rdma_allreduce_max_bytes"; }
warn_algorithm() { check_grep "$2" 'warning: coll_rdma_bcast_algorithm differs between ranks' "warning naming coll_rdma_bcast_algorithm"; }
warn_mincomm() { check_grep "$2" 'warning: coll_rdma_min_comm_size differs between ranks' "warning naming coll_rdma_min_comm_size"; }
rcase mismatch-threshold-np4 4 "--mca op ^avx" \
    "$RANK_ENV 1 OMPI_MCA_coll_rdma_allreduce_max_bytes=1024 -- $ROBUST mix --calls 1500" "none" warn_threshold
rcase mismatch-algorithm-np3 3 "--mca op ^avx" \
    "$RANK_ENV 2 OMPI_MCA_coll_rdma_bcast_algorithm=fallback -- $ROBUST mix --calls 1500" "none" warn_algorithm
rcase mismatch-min-comm-size-np3 3 "--mca op ^avx" \
    "$RANK_ENV 0 OMPI_MCA_coll_rdma_min_comm_size=8 -- $ROBUST mix --calls 1500" "none" warn_mincomm
# parameters that need not agree (local limits, polling, output): still served
rcase mismatch-local-params-np3 3 "--mca op ^avx" \
    "$RANK_ENV 1 OMPI_MCA_coll_rdma_poll_spins=1 OMPI_MCA_coll_rdma_window_max_bytes=100000000 -- $ROBUST mix --calls 1500" \
    "$SERVED_ALL"

# ---- 2. many communicators, leaks ---------------------------------------------
# 10000 dup/free cycles with a checked collective on each, then 500
# communicators alive at once; the program fails when /dev/shm mappings, open
# files or resident memory do not come back after the warm-up.
# The window budget (coll_rdma_window_budget_bytes, 24 MiB at most by
# default: 12 windows of 2 ranks) raised out of the way: the churn cases keep
# hundreds of windows alive at once, every one served (nowin).
CHURN_BUDGET="--mca coll_rdma_window_budget_bytes 4000000000"
churn_summary() {
    grep -E '^rank 0 (alive|after-free):' "$1" | sed 's/^rank 0 //' | tr '\n' ' ' >"$RCASE_NOTE_FILE"
}
# (each cycle sets a window up: a few ms, so this case has 300 s)
TIMEOUT=$((TIMEOUT > 300 ? TIMEOUT : 300)) \
    rcase churn-np2 2 "$CHURN_BUDGET" "$ROBUST churn --cycles 10000 --alive 500" "$SERVED_ALL nowin" churn_summary
# the series tier's churn: 1800 cycles measured still fail a window, a
# mapping or a descriptor left per cycle, and 200 alive set up 200 windows
if [ "$RDMA_TIER" = series ]; then
    rcase churn-2000-np2 2 "$CHURN_BUDGET" "$ROBUST churn --cycles 2000 --alive 200" "$SERVED_ALL nowin" churn_summary
fi

# valgrind memcheck on a short churn: no leak (definite or indirect) and no
# memory error whose stack passes through coll/rdma.  Open MPI's own leaks
# (hundreds of records) are not ours and are not counted.  --keep-debuginfo
# keeps the component's symbols after Open MPI unloads it at MPI_Finalize.
# Each valgrind record (the lines up to a blank "==PID==" line) of the logs
# that matches every regular expression given: its file and first line, one a
# line.
vg_records() {
    local f pats
    pats=$(printf '%s\t' "$@")
    for f in "$RDMA_LOGDIR"/vg.*; do
        [ -f "$f" ] || continue
        awk -v pats="$pats" '
            BEGIN { n = split(pats, pat, "\t") - 1 }
            /^==[0-9]+== *$/ {
                ok = rec != ""
                for (i = 1; i <= n && ok; i++) ok = rec ~ pat[i]
                if (ok) { split(rec, l, "\n"); print FILENAME ": " l[2] }
                rec = ""; next
            }
            { rec = rec "\n" $0 }
        ' "$f"
    done
}
vg_ours() {
    if ! ls "$RDMA_LOGDIR"/vg.* >/dev/null 2>&1; then
        echo "no valgrind logs"
        return
    fi
    vg_records '(definitely lost|indirectly lost|Invalid (read|write|free)|uninitialised|Conditional jump|Mismatched free|overlap)' 'coll_rdma' | head -n 3
}
vg_check() {
    local found
    found=$(vg_ours)
    if [ -n "$found" ]; then
        echo "valgrind reports through coll/rdma: $(echo "$found" | tr '\n' ' ')"
    fi
}
if rdma_selected leak-valgrind-np2; then
    if [ "$VALGRIND" = 0 ]; then
        echo "SKIP leak-valgrind-np2 (VALGRIND=0)"
    elif ! command -v valgrind >/dev/null 2>&1; then
        echo "SKIP leak-valgrind-np2 (valgrind not installed; Debian: apt-get install valgrind)"
    else
        rm -f "$RDMA_LOGDIR"/vg.*
        rcase leak-valgrind-np2 2 "$CHURN_BUDGET" \
            "valgrind -q --keep-debuginfo=yes --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 --suppressions=$HERE/libnbc-persistent.supp --log-file=$RDMA_LOGDIR/vg.%p $ROBUST churn --cycles 200 --alive 20" \
            "$SERVED_ALL nowin" vg_check
    fi
fi
# The same over nonblocking and persistent requests and the communicator
# rules around them (tests/mpi/test_around.c: MPI_Comm_free with requests
# pending, early and persistent; skewed set-ups with the previous component's
# calls and early requests' fallbacks): nothing of coll/rdma lost, and every
# early request's fallback (a persistent request of coll/libnbc, whose leak on
# free libnbc-persistent.supp hides) freed by coll/rdma: the statistics count
# them made and freed, which must be equal and not 0, and the blocks the
# suppression hid are said beside them.
vg_around() {
    local found made freed blocks
    found=$(vg_ours)
    if [ -n "$found" ]; then
        echo "valgrind reports through coll/rdma: $(echo "$found" | tr '\n' ' ')"
        return
    fi
    made=$(sed -n 's/.*early fallbacks: made=\([0-9]*\) freed=.*/\1/p' "$2" | awk '{s += $1} END {print s + 0}')
    freed=$(sed -n 's/.*early fallbacks: made=[0-9]* freed=\([0-9]*\).*/\1/p' "$2" | awk '{s += $1} END {print s + 0}')
    blocks=$(cat "$RDMA_LOGDIR"/vg.* 2>/dev/null | sed -n 's/.*used_suppression:.*hand-on.* suppressed: [0-9,]* bytes in \([0-9,]*\) blocks.*/\1/p' | tr -d , | awk '{s += $1} END {print s + 0}')
    if [ "$made" -eq 0 ]; then
        echo "no early request's fallback made: the case checks nothing"
    elif [ "$made" -ne "$freed" ]; then
        echo "early fallbacks made $made, freed $freed: coll/rdma did not free some"
    else
        echo "early fallbacks made and freed $made, libnbc blocks suppressed $blocks" >"$RCASE_NOTE_FILE"
    fi
}
if rdma_selected leak-valgrind-around-np2 && [ "$VALGRIND" != 0 ] && command -v valgrind >/dev/null 2>&1; then
    rm -f "$RDMA_LOGDIR"/vg.*
    rcase leak-valgrind-around-np2 2 "--mca op ^avx --mca coll_rdma_window_setup_calls 2" \
        "valgrind -q -s --keep-debuginfo=yes --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 --suppressions=$HERE/libnbc-persistent.supp --log-file=$RDMA_LOGDIR/vg.%p $AROUND --warmup 2 --calls 6 --only free,skew,cid" \
        "" vg_around
fi
# The proof behind libnbc-persistent.supp: without coll/rdma, a freed persistent
# allgather of coll/libnbc leaks (valgrind: lost records allocated in
# mca_coll_libnbc.so under MPI_Allgather_init).  Where an Open MPI does not
# leak so, the suppression hides nothing there: SKIP, saying so.
vg_libnbc() {
    local n
    n=$(vg_records '(definitely|indirectly) lost' 'mca_coll_libnbc' 'Allgather_init' | wc -l)
    if [ "$n" -gt 0 ]; then
        echo "$n lost records allocated by coll/libnbc under MPI_Allgather_init, coll/rdma not loaded" >"$RCASE_NOTE_FILE"
    fi
    echo "$n" >"$RDMA_LOGDIR/libnbc-leaks"
}
if rdma_selected libnbc-persistent-leak-np2 && [ "$VALGRIND" != 0 ] && command -v valgrind >/dev/null 2>&1; then
    rm -f "$RDMA_LOGDIR"/vg.* "$RDMA_LOGDIR/libnbc-leaks"
    rcase libnbc-persistent-leak-np2 2 "--mca coll ^rdma" \
        "valgrind -q --keep-debuginfo=yes --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 --log-file=$RDMA_LOGDIR/vg.%p $ROBUST persistent-free --cycles 5" \
        "" vg_libnbc
    if [ "$(cat "$RDMA_LOGDIR/libnbc-leaks" 2>/dev/null)" = 0 ]; then
        echo "NOTE libnbc-persistent-leak-np2: this Open MPI's coll/libnbc does not leak freed persistent requests; tests/robust/libnbc-persistent.supp hides nothing here"
    fi
fi

# ---- 3. resource exhaustion ---------------------------------------------------
# A rank whose window would exceed coll_rdma_window_max_bytes: that
# communicator falls back on every rank, with a message naming the parameter.
cap_message() {
    local r
    r=$(check_grep "$2" 'exceeds coll_rdma_window_max_bytes' "message naming coll_rdma_window_max_bytes")
    [ -n "$r" ] && { echo "$r"; return; }
    check_grep "$2" 'no window on communicator' "'no window on communicator' message"
}
rcase exhaust-window-cap-one-rank-np4 4 "--mca op ^avx" \
    "$RANK_ENV 1 OMPI_MCA_coll_rdma_window_max_bytes=100000 -- $ROBUST mix --calls 1500" "none fb:window" cap_message
rcase exhaust-window-cap-all-np3 3 "--mca op ^avx --mca coll_rdma_window_max_bytes 4096" \
    "$ROBUST edge" "none" cap_message
# File descriptors run out (each live window holds one, UCX posix): 400
# communicators alive with a limit of 256 descriptors (prlimit); the later
# ones fall back.  The window budget raised out of the way (by default it
# would refuse windows long before the descriptors run out).
fd_message() { check_grep "$2" 'file descriptors open \(RLIMIT_NOFILE\).*no window' "message on the descriptor limit"; }
# The room check (the windows of the node's ranks must fit in /dev/shm) binds
# before the descriptors where /dev/shm is smaller than about 2 GiB (about
# 450 windows of 3.6 MB): skipped there.
shm_kib=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $2 }')
if rdma_selected exhaust-fds-np2 && [ "${shm_kib:-0}" -lt 2097152 ]; then
    echo "SKIP exhaust-fds-np2 (/dev/shm of ${shm_kib:-?} KiB: the room check would refuse windows before the descriptors run out)"
else
    PRE="prlimit --nofile=256:256" \
    rcase exhaust-fds-np2 2 "--mca coll_rdma_window_budget_bytes 4000000000" "$ROBUST churn --cycles 0 --alive 400" \
    "served:allreduce:$AUTO_AR fb:window" fd_message
fi
# A window taken from the pool where descriptors run out (review of c6875f9):
# rank 1 holds all but K of its 256 descriptors when its second
# communicator is set up (late: only after its set-up call, before the
# attach); served where one is free, else handed on, never a UCX error
# (UCX 1.13's failed open of a peer's window crashes or unmaps a stale
# address in its error path).  The windows must come from the pool.
# (UCX logs to standard output by default: both streams)
no_ucx_error() {
    if grep -q 'UCX  *ERROR' "$1" "$2"; then
        echo "UCX printed an error: $(grep -h -m 1 'UCX  *ERROR' "$1" "$2" | head -n 1)"
    fi
}
fdpool_check() {
    local r
    r=$(no_ucx_error "$1" "$2")
    [ -z "$r" ] || { echo "$r"; return; }
    grep -q 'rank 1: windows: kept=[0-9]* reused=[1-9]' "$2" || echo "rank 1 took no window from the pool (windows: kept=N reused=N)"
}
# the second communicator's 20 blocking allreduces: handed on for want of a
# window (no descriptor), or served
fdpool_refused() {
    local r
    r=$(fdpool_check "$1" "$2")
    [ -z "$r" ] || { echo "$r"; return; }
    grep -q 'rank 1: allreduce fallback: calls=20 .*window=20' "$2" || echo "the second communicator was not handed on for want of a window"
}
fdpool_served() {
    local r
    r=$(fdpool_check "$1" "$2")
    [ -z "$r" ] || { echo "$r"; return; }
    ! grep -q 'rank 1: allreduce fallback: .*window=[1-9]' "$2" || echo "the second communicator was handed on with a descriptor free"
}
FDPOOL_ARGS="--mca op ^avx --mca coll_rdma_window_setup_calls 0"
PRE="prlimit --nofile=256:256" rcase exhaust-fds-pool-np2 2 "$FDPOOL_ARGS" "$ROBUST fdpool --leave 0" \
    "" fdpool_refused
PRE="prlimit --nofile=256:256" rcase exhaust-fds-pool-one-np2 2 "$FDPOOL_ARGS" "$ROBUST fdpool --leave 1" \
    "served:allreduce:$AUTO_AR" fdpool_served
PRE="prlimit --nofile=256:256" rcase exhaust-fds-pool-late-np2 2 "$FDPOOL_ARGS" "$ROBUST fdpool --leave 0 --late" \
    "" fdpool_refused
# UCX without a usable transport: coll/rdma steps aside, coll/tuned serves.
ucx_message() { check_grep "$2" 'UCX unavailable .*coll/rdma steps aside' "'UCX unavailable ... steps aside' message"; }
rcase ucx-unavailable-np3 3 "--mca op ^avx -x UCX_TLS=ib" "$ROBUST mix --calls 1500" "none" ucx_message

# Out of memory on one rank at the window's set-up (review F7; malloc_fail.so
# makes allocations of one size made by coll/rdma itself fail on rank 1): every
# rank must learn of it through the exchange and agree on no window, results
# right, one line naming the cause.  oom-prepare: rank 1 cannot prepare its
# part (its records' headers, 3 x the size verbose 2 says; twice: at the last warm-up call
# and at the set-up call): it sends a record saying so (on 298f729 the same
# allocation was made after the first exchange: the rank gave up, its peers
# waited in the second exchange for ever, or it crashed).  oom-attach: rank 1
# runs out of memory after the agreement (the packed addresses, whose size a
# first run at verbose 2 tells): it says "not connected" in the second
# exchange.
oom_prepare() { check_grep "$2" 'no window on communicator MPI_COMM_WORLD .size 3.: its rank 1 .world rank 1. ran out of memory' "the no-window line naming rank 1's memory"; }
oom_attach() { check_grep "$2" 'no window on communicator MPI_COMM_WORLD .size 3.: its rank 1 .world rank 1. could not attach' "the no-window line naming rank 1's attach"; }
learn_failed_once() {
    local n r
    r=$(check_grep "$2" '\[malloc-fail\] pid [0-9]+: failed 1 malloc' "'[malloc-fail] ... failed 1' line")
    [ -z "$r" ] || { echo "$r"; return; }
    n=$(grep -c 'no window on communicator .*its rank 1 .world rank 1. could not attach' "$2")
    [ "$n" = 1 ] || echo "$n communicators without a window for rank 1's failure, expected 1"
}
if [ "$RDMA_MODE" = component ]; then
    # one run at verbose 2 tells the sizes: the addresses (window's parts) of
    # MPI_COMM_WORLD in all, a worker address, and a set-up header (rank 1's
    # headers: 3 of them, one allocation)
    probe_line=$(env $(rdma_mpi_env) timeout 60 mpirun --oversubscribe -np 3 --mca coll_rdma_verbose 2 \
        --mca coll_rdma_window_setup_calls 0 "$ROBUST" mix --calls 10 2>&1 |
        grep -m 1 'communicator MPI_COMM_WORLD (size 3): window of')
    probe=$(echo "$probe_line" |
        sed -n 's/.*window of [0-9]* bytes; addresses \([0-9]*\) bytes in all; worker address of \([0-9]*\) bytes.*/\1 \2/p')
    head_bytes=$(echo "$probe_line" | sed -n 's/.*set-up headers of \([0-9]*\) bytes.*/\1/p')
    if [ -n "$head_bytes" ]; then
        rcase oom-prepare-np3 3 "--mca op ^avx --mca coll_rdma_window_setup_calls 16 -x LD_PRELOAD=$MALLOCFAIL -x MALLOC_FAIL_RANK=1 -x MALLOC_FAIL_SIZE=$((3 * head_bytes)) -x MALLOC_FAIL_COUNT=2" \
            "$ROBUST mix --calls 300" "" oom_prepare
    else
        rdma_fail oom-prepare-np3 "verbose 2 did not say the set-up headers' size"
    fi
    addr=${probe% *}
    if [ -n "$probe" ]; then
        rcase oom-attach-np3 3 "--mca op ^avx --mca coll_rdma_window_setup_calls 16 -x LD_PRELOAD=$MALLOCFAIL -x MALLOC_FAIL_RANK=1 -x MALLOC_FAIL_SIZE=$addr" \
            "$ROBUST mix --calls 300" "" oom_attach
    else
        rdma_fail oom-attach-np3 "verbose 2 did not say the addresses' size of MPI_COMM_WORLD"
    fi
    # learn-fail-once: rank 1 cannot keep one peer's worker address (its
    # first coll_rdma_ucx_peer_learn allocation fails): the communicator of
    # that set-up has no window, and the next ones do, because that peer
    # sends its address again until rank 1 says it holds it (a peer that
    # omitted it once merely knowing rank 1 would leave every later
    # communicator without a window: one no-window line per communicator)
    rcase learn-fail-once-np3 3 "--mca op ^avx --mca coll_rdma_window_setup_calls 0 -x LD_PRELOAD=$MALLOCFAIL -x MALLOC_FAIL_RANK=1 -x MALLOC_FAIL_SIZE=0 -x MALLOC_FAIL_IN=coll_rdma_ucx_peer_learn" \
        "$ROBUST churn --cycles 120 --alive 0" "" learn_failed_once
    # oom-long: every address goes apart (coll_rdma_debug_address_inline 0)
    # and rank 1 has no room for its peers' (2 x (window's part + worker
    # address)): it still receives them (a byte each, truncated, into a sink
    # of its own: its peers' sends complete) and says "not connected"
    long=$([ -z "$probe" ] || echo "$probe" | awk '{ print 2 * ($1 / 3 + $2) }')
    if [ -n "$long" ]; then
        rcase oom-long-np3 3 "--mca op ^avx --mca coll_rdma_window_setup_calls 16 --mca coll_rdma_debug_address_inline 0 -x LD_PRELOAD=$MALLOCFAIL -x MALLOC_FAIL_RANK=1 -x MALLOC_FAIL_SIZE=$long -x MALLOC_FAIL_IN=coll_rdma_records_long_start" \
            "$ROBUST mix --calls 300" "" oom_attach
    else
        rdma_fail oom-long-np3 "verbose 2 did not say the addresses' sizes of MPI_COMM_WORLD"
    fi
fi

# One rank cannot allocate its window's node map (review 2026-11-27, F6;
# tests/robust/malloc_fail.c: in rank 1, the third malloc of 4P bytes in
# coll_rdma_window_alloc, the node_of array, fails once): that rank gets no
# window for the communicator, says so in the set-up's exchange, and every
# rank falls back on that one; later communicators are served.  With the
# two-level algorithms forced on made-up nodes, a rank left without the node
# map its peers have would hand its barriers on while they run hier: a hang.
malloc_failed() { check_grep "$2" '\[malloc-fail\] pid [0-9]+: failed 1 ' "'[malloc-fail] ... failed 1' line"; }
rcase exhaust-malloc-node-map-np4 4 \
    "--mca op ^avx --mca coll_rdma_barrier_algorithm hier --mca coll_rdma_allreduce_algorithm hier --mca coll_rdma_debug_node_ranks 2" \
    "$RANK_ENV 1 LD_PRELOAD=$MALLOCFAIL MALLOC_FAIL_IN=coll_rdma_window_alloc MALLOC_FAIL_SIZE=16 MALLOC_FAIL_NTH=3 -- $ROBUST mix --calls 1500" \
    "fb:barrier:window served:barrier:hier" malloc_failed

# What a communicator costs (issue 36): windows within the process's budget
# (coll_rdma_window_budget_bytes), held across communicators.  budget-np2: 6
# communicators alive at once with room for a few windows: the first ones
# served, the others handed on, the same again once they were freed (the
# memory comes back), results right (tests/robust/test_budget.c reads which
# were served through MPI_T).  budget-shm-64m-np4: 50 communicators in a
# mount namespace whose /dev/shm is a 64 MB tmpfs (Docker's default): the
# default budget keeps the windows within 25 % of /dev/shm (what the
# communicators add to its use after MPI_Init: Open MPI's own segments come
# on top, a few %) and the whole at most 50 % full, and UCX never reports a
# full /dev/shm (it used to: a pair of 'UCX ERROR ... Not enough memory'
# lines per rank and communicator, and /dev/shm 97 % full).
# budget-np2's budget holds exactly 2 windows of 2 ranks on one node
# (1,132,416 bytes each at the defaults: tests/unit/test_plans -w; 2,500,000
# holds 2 of any size from 0.84 to 1.25 MB).
if [ "$RDMA_MODE" = component ]; then
    rcase budget-np2 2 "--mca op ^avx --mca coll_rdma_window_budget_bytes 2500000" \
        "$BUDGET --comms 6 --rounds 2 --expect-min 2 --expect-max 2" "" no_ucx_error
    # budget-quiet-np2: the same at verbose 0, as a user runs: one line for the
    # job (not one per communicator or rank) naming the budget.
    budget_line() {
        local n other
        n=$(grep -c 'no window on communicator .*coll_rdma_window_budget_bytes.*said once per job' "$2")
        [ "$n" = 1 ] || echo "$n lines at verbose 0 naming the budget, not 1"
        other=$(grep -v 'no window on communicator' "$2" | grep -m 1 'coll/rdma')
        [ -z "$other" ] || echo "other coll/rdma lines at verbose 0: $other"
    }
    RDMA_QUIET=1 rcase budget-quiet-np2 2 "--mca op ^avx --mca coll_rdma_window_budget_bytes 2500000" \
        "$BUDGET --comms 6 --rounds 2 --expect-min 2 --expect-max 2" "" budget_line
fi
if [ "$RDMA_MODE" = component ] && rdma_selected budget-shm-64m-np4; then
    if [ -n "${COLL_RDMA_IN_CHROOT:-}" ] || ! unshare -m true 2>/dev/null; then
        echo "SKIP budget-shm-64m-np4 (no mount namespace here: needs root outside a chroot)"
    else
        PRE="$HERE/shm_ns.sh 64M" \
            rcase budget-shm-64m-np4 4 "--mca op ^avx --mca coll_rdma_window_setup_calls 16" \
            "$BUDGET --comms 50 --rounds 1 --expect-min 1 --shm-max 25 --shm-total-max 50" "" no_ucx_error
    fi
fi

# ---- 4. a rank killed ----------------------------------------------------------
# Rank 2 of 4 sends itself SIGKILL in the middle of a stream of collectives:
# mpirun must end the job with an error within 30 s, every other rank must be
# gone when it returns (none left spinning in a wait loop), and no /dev/shm
# file of coll/rdma (UCX's posix segments: ucx_*) may remain.  Files of Open
# MPI's own shared-memory BTL (vader_segment.*) that the killed run leaves are
# listed in the PASS line and removed, as after every run.
kill_case() {
    local name=kill-rank-np4 out err rc t0 secs snap left ours alive strays reason=
    rdma_selected "$name" || return 0
    out=$RDMA_LOGDIR/$name.out
    err=$RDMA_LOGDIR/$name.err
    snap=$RDMA_LOGDIR/.kill-snapshot
    rdma_shm_list >"$snap"
    rdma_sysv_list >"$snap.sysv"
    local marker="$$-$RANDOM-$name"
    RDMA_CUR_MARKER=$marker # for rdma_interrupted (common.sh)
    t0=$(date +%s%N)
    # shellcheck disable=SC2046
    env RDMA_TEST_RUN="$marker" $(rdma_mpi_env) timeout --kill-after=5 40 \
        mpirun --oversubscribe -np 4 $(rdma_verbose_args) --mca op ^avx \
        "$ROBUST" mix --calls 1000000 --kill-rank 2 --kill-at 3000 >"$out" 2>"$err" </dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
    # survivors: processes of this run still alive once mpirun returned
    sleep 0.5
    alive=$(rdma_marked_pids "$marker" | wc -l)
    strays=$(rdma_kill_strays "$marker")
    [ "$strays" != 0 ] && sleep 0.5
    # new files no live process uses (a concurrent job's files stay out)
    left=$(rdma_shm_list | comm -13 "$snap" - | while read -r f; do
        rdma_shm_in_use | grep -qxF "/dev/shm/$f" || echo "$f"
    done | tr '\n' ' ')
    ours=$(echo "$left" | tr ' ' '\n' | grep -E 'ucx|rdma' | tr '\n' ' ')
    rdma_shm_cleanup "$snap" >/dev/null
    rdma_sysv_cleanup "$snap.sysv" >/dev/null
    # shellcheck disable=SC2034
    RDMA_CUR_MARKER=
    if ! grep -q 'SIGKILL to itself' "$out"; then
        reason="rank 2 did not reach the kill (exit $rc): $(rdma_first_errors "$out" "$err")"
    elif [ "$rc" -eq 0 ]; then
        reason="mpirun exited 0 after a rank was killed"
    elif awk -v s="$secs" 'BEGIN {exit !(s >= 30)}'; then
        reason="mpirun took ${secs}s (limit 30 s; exit $rc)"
    elif [ "$alive" != 0 ]; then
        reason="$alive processes of the job still running after mpirun returned"
    elif [ -n "$ours" ]; then
        reason="coll/rdma files left in /dev/shm: $ours"
    fi
    if [ -z "$reason" ]; then
        rdma_pass "$name" "mpirun exit $rc after ${secs}s; left in /dev/shm and removed: ${left:-nothing}"
    else
        rdma_fail "$name" "$reason"
    fi
}
kill_case

# ---- 5. oversubscription -------------------------------------------------------
# 8 ranks on 2 cores (taskset), 10000 mixed collectives without random
# delays, with coll/rdma and then with coll/tuned alone in the same run; the
# per-call times go into the PASS line.  Fails when coll/rdma takes more than
# OVERSUB_MAX_RATIO (default 4) times coll/tuned's time per call.
OVERSUB_MAX_RATIO=${OVERSUB_MAX_RATIO:-4}
oversub_case() {
    local name=oversub-np8 cpus
    rdma_selected "$name" || return 0
    cpus=$(python3 -c 'import os; c=sorted(os.sched_getaffinity(0)); print(",".join(map(str, c[:2])))' 2>/dev/null || echo 0,1)
    PRE="taskset -c $cpus" rcase "$name-tuned" 8 "--mca op ^avx --bind-to none --mca coll ^rdma" \
        "$ROBUST mix --calls 10000 --no-skew" "unloaded"
    PRE="taskset -c $cpus" rcase "$name" 8 "--mca op ^avx --bind-to none" \
        "$ROBUST mix --calls 10000 --no-skew" "$SERVED_ALL" oversub_compare
}
oversub_compare() {
    local us_rdma us_tuned
    us_rdma=$(sed -n 's/^mix: .*us_per_call=\([0-9.]*\).*/\1/p' "$1")
    us_tuned=$(sed -n 's/^mix: .*us_per_call=\([0-9.]*\).*/\1/p' "$RDMA_LOGDIR/oversub-np8-tuned.out")
    if [ -z "$us_rdma" ] || [ -z "$us_tuned" ]; then
        echo "no per-call times (coll/tuned run failed?)"
        return
    fi
    echo "us per call: rdma $us_rdma, tuned $us_tuned, ratio $(awk -v a="$us_rdma" -v b="$us_tuned" 'BEGIN {printf "%.2f", a / b}')" >"$RCASE_NOTE_FILE"
    if awk -v a="$us_rdma" -v b="$us_tuned" -v m="$OVERSUB_MAX_RATIO" 'BEGIN {exit !(a > m * b)}'; then
        echo "coll/rdma $us_rdma us per call, coll/tuned $us_tuned: more than $OVERSUB_MAX_RATIO times"
    fi
}
oversub_case

# ---- 6. edge inputs -------------------------------------------------------------
# count 0, MPI_IN_PLACE, every root, lower bound / extent != size, MPI_BOTTOM,
# MPI_COMM_SELF, an intercommunicator, unaligned buffers inside a large
# allocation; on every collective that exists (served or not).
for np in 1 2 3 4 8; do
    checks=none
    [ "$np" -ge 2 ] && checks="someserved:bcast:read someserved:allreduce:$AUTO_AR"
    rcase "edge-np$np" "$np" "--mca op ^avx" "$ROBUST edge" "$checks"
done

# ---- 7. sequence numbers across the 2^64 wrap --------------------------------------
# coll_rdma_debug_seq_start makes every counter start 2000 calls before the
# wrap; 100000 mixed calls with random skew cross it on both communicators.
WRAP="--mca coll_rdma_debug_seq_start $SEQ_NEAR_WRAP"
rcase wrap-mix-np4 4 "--mca op ^avx $WRAP" "$ROBUST mix --calls 100000" "$SERVED_ALL"
rcase wrap-mix-pairwise-np5 5 "--mca op ^avx $WRAP --mca coll_rdma_allreduce_algorithm pairwise" \
    "$ROBUST mix --calls 20000" "served:barrier:read served:bcast:read served:allreduce:pairwise"
rcase wrap-mix-ktree-np3 3 "--mca op ^avx $WRAP --mca coll_rdma_allreduce_algorithm ktree" \
    "$ROBUST mix --calls 20000" "served:barrier:read served:bcast:read served:allreduce:ktree"
# a root running ahead on bcast credits across the wrap, with a ring of 3
# slots (3 does not divide 2^64) and of 2, for the tree (credits per child)
# and for read (credits from every reader)
for slots in 3 2; do
    rcase "wrap-bcast-credits-slots$slots-np3" 3 \
        "--mca coll_rdma_debug_seq_start 18446744073709551516 --mca coll_rdma_bcast_slots $slots --mca coll_rdma_bcast_algorithm knomial --mca coll_rdma_bcast_radix 2" \
        "$ROBUST burst --calls 2000" "served:bcast:knomial"
    rcase "wrap-bcast-read-credits-slots$slots-np3" 3 \
        "--mca coll_rdma_debug_seq_start 18446744073709551516 --mca coll_rdma_bcast_slots $slots --mca coll_rdma_bcast_algorithm read" \
        "$ROBUST burst --calls 2000" "served:bcast:read"
    # the same through the read bcast's small ring (56 bytes: one line with the word)
    rcase "wrap-bcast-small-credits-slots$slots-np3" 3 \
        "--mca coll_rdma_debug_seq_start 18446744073709551516 --mca coll_rdma_bcast_small_slots $slots --mca coll_rdma_bcast_algorithm read" \
        "$ROBUST burst --calls 2000 --count 7" "served:bcast:read"
done
# the agreed start value: one rank with another falls back, warning
warn_seq() { check_grep "$2" 'warning: coll_rdma_debug_seq_start differs between ranks' "warning naming coll_rdma_debug_seq_start"; }
rcase wrap-mismatch-np3 3 "--mca op ^avx" \
    "$RANK_ENV 1 OMPI_MCA_coll_rdma_debug_seq_start=$SEQ_NEAR_WRAP -- $ROBUST mix --calls 1000" "none" warn_seq

# ---- 9. MPI_THREAD_MULTIPLE -------------------------------------------------------
# Supported (tests/mpi: thread-multiple-np2/np4).  Here: threads on distinct
# communicators while the sequence numbers wrap.
rcase wrap-threads-np2 2 "--mca op ^avx $WRAP" "$THREADS 3 3000" "$SERVED_ALL"

# ---- 8. hosts made of network namespaces --------------------------------------------
# Hosts of several ranks (shared memory inside a host, UCX over TCP between
# hosts: auto takes the two-level barrier and allreduce) and of one rank
# each (the flat algorithms): every result checked, every rank's statistics
# show calls served, and the put-counter shim (put_counter.c, LD_PRELOAD)
# shows ucp_put_nbi used on every rank, so the put path, not only the
# direct-store path, was exercised.  Then a round-robin mapping (a host's
# ranks not contiguous in MPI_COMM_WORLD), and hosts of uneven sizes with the
# two-level and the flat algorithms forced.
put_path() {
    local need_direct=$3 n bad
    n=$(grep -c '^\[put-counter\]' "$2")
    if [ "$n" -lt "$NETNS_NP" ]; then
        echo "only $n of $NETNS_NP ranks printed put-counter lines"
        return
    fi
    bad=$(grep '^\[put-counter\]' "$2" | grep -c 'ucp_put_nbi=0 ')
    if [ "$bad" -gt 0 ]; then
        echo "$bad ranks made no ucp_put_nbi (put path not exercised): $(grep -m1 'ucp_put_nbi=0 ' "$2")"
        return
    fi
    if [ "$need_direct" = direct ] && grep '^\[put-counter\]' "$2" | grep -q 'rkey_ptr_ok=0 '; then
        echo "a rank mapped no peer's window (no shared memory inside a host): $(grep -m1 'rkey_ptr_ok=0 ' "$2")"
        return
    fi
    grep '^\[put-counter\]' "$2" | head -n 1 | sed 's/^\[put-counter\] //' >"$RCASE_NOTE_FILE"
}
# connects OUT ERR lazy|eager: the rkeys each rank unpacked for
# MPI_COMM_WORLD's window (the only one of a burst).  Eager: every peer's.
# Lazy: no rank attached every peer (the node's, one more, then only the
# peers the two-level bcast and allreduce touched among the nodes).
connects() {
    local counts max min
    counts=$(grep '^\[put-counter\]' "$2" | sed -n 's/.*ucp_ep_rkey_unpack=\([0-9]*\).*/\1/p' | sort -n)
    [ "$(echo "$counts" | grep -c .)" -eq "$NETNS_NP" ] || { echo "not every rank printed ucp_ep_rkey_unpack"; return; }
    min=$(echo "$counts" | head -n 1)
    max=$(echo "$counts" | tail -n 1)
    if [ "$3" = lazy ] && [ "$max" -ge $((NETNS_NP - 1)) ]; then
        echo "a rank attached $max peers' windows of $((NETNS_NP - 1)) although connections are lazy"
    elif [ "$3" = eager ] && [ "$min" -lt $((NETNS_NP - 1)) ]; then
        echo "a rank attached only $min peers' windows of $((NETNS_NP - 1)) with coll_rdma_lazy_connect=0"
    fi
    echo "rkeys unpacked per rank: $min to $max of $((NETNS_NP - 1))" >"$RCASE_NOTE_FILE"
}
connects_lazy() { connects "$1" "$2" lazy; }
# A peer that cannot be reached at its first use (the shim fails every rkey
# unpack after a rank's first two: its node peer and the peer probed at
# set-up): the rank that needs it says so and the job ends with an error,
# no hang (docs/reliability.md, case 8).
lazy_unreachable() {
    local name=netns-4hosts-x2-roundrobin-lazy-unreachable out err rc reason=
    rdma_selected "$name" || return 0
    out=$RDMA_LOGDIR/$name.out
    err=$RDMA_LOGDIR/$name.err
    # shellcheck disable=SC2046,SC2086
    rdma_run "$name" "$out" "$err" mpirun --oversubscribe -np "$NETNS_NP" $(rdma_verbose_args) \
        $NETNS_ARGS -x PUT_COUNTER_FAIL_UNPACK_AFTER=2 "$ROBUST" burst --calls 300
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        reason="timeout after ${TIMEOUT}s (hang)"
    elif [ "$rc" -eq 0 ]; then
        reason="the job succeeded although peers could not be reached"
    elif ! grep -q "could not reach rank [0-9]*'s window at its first use" "$err"; then
        reason="no 'could not reach rank ... at its first use' message on stderr"
    fi
    if [ -z "$reason" ]; then
        rdma_pass "$name" "${RDMA_RUN_SECS}s, exit $rc${RDMA_RUN_NOTE:+, $RDMA_RUN_NOTE}"
    else
        rdma_fail "$name" "$reason${RDMA_RUN_NOTE:+; $RDMA_RUN_NOTE}"
    fi
}
connects_eager() { connects "$1" "$2" eager; }
put_path_mixed() { put_path "$1" "$2" direct; }
put_path_only() { put_path "$1" "$2" put; }
put_path_any() { put_path "$1" "$2" any; } # a host of one rank maps no peer
# netns_begin NAME HOSTS SLOTS [MAPBY]: make HOSTS hosts with SLOTS ranks
# each (a number, or one per host: 1,3,2) and set NETNS_ARGS (mpirun's
# arguments; MAPBY: slot, the default, or node: round-robin) and NETNS_NP;
# returns 1 (and says SKIP) where the case cannot run.
netns_begin() {
    local name=$1 hosts=$2 slots=$3 mapby=${4:-slot} h n i=0 spec=
    rdma_selected "$name" || return 1
    if [ "$NETNS" = 0 ]; then
        echo "SKIP $name (NETNS=0)"
        return 1
    fi
    if [ "$RDMA_MODE" != component ]; then
        echo "SKIP $name (no component: nothing to check across hosts)"
        return 1
    fi
    if ! netns_setup "$hosts"; then
        echo "SKIP $name ($NETNS_SKIP)"
        return 1
    fi
    NETNS_NP=0
    for h in $NETNS_HOSTS; do
        i=$((i + 1))
        n=$(echo "$slots" | cut -d, -f"$i")
        [ -n "$n" ] || n=${slots%%,*}
        spec="${spec:+$spec,}$h:$n"
        NETNS_NP=$((NETNS_NP + n))
    done
    # unbound: each host would bind its ranks to the same first cores, and
    # ranks of two hosts spinning on one core wait a time slice per message
    NETNS_ARGS="--host $spec --map-by $mapby --bind-to none --mca plm_rsh_agent $NETNS_AGENT --mca plm_rsh_no_tree_spawn 1"
    NETNS_ARGS="$NETNS_ARGS --mca oob_tcp_if_include $NETNS_SUBNET.0/24 --mca btl_tcp_if_include $NETNS_SUBNET.0/24"
    NETNS_ARGS="$NETNS_ARGS --mca btl self,vader,tcp --mca op ^avx -x UCX_NET_DEVICES=eth0 -x LD_PRELOAD=$PUTCOUNTER"
    # UCX emulates puts over TCP: auto serves them only when asked
    NETNS_ARGS="$NETNS_ARGS --mca coll_rdma_auto_emulated ${NETNS_AUTO_EMULATED:-1}"
    return 0
}
NETNS_HIER="--mca coll_rdma_barrier_algorithm hier --mca coll_rdma_allreduce_algorithm hier --mca coll_rdma_reduce_algorithm hier"
NETNS_NPORT="--mca coll_rdma_allreduce_algorithm nport --mca coll_rdma_allreduce_short_max_bytes 8192"
NETNS_FLAT="--mca coll_rdma_barrier_algorithm pairwise --mca coll_rdma_allreduce_algorithm nway"
NETNS_FLAT_A="--mca coll_rdma_barrier_algorithm nway --mca coll_rdma_bcast_algorithm knomial --mca coll_rdma_allreduce_algorithm ktree --mca coll_rdma_reduce_algorithm knomial --mca coll_rdma_allgather_algorithm ring --mca coll_rdma_alltoall_algorithm bruck"
NETNS_FLAT_B="--mca coll_rdma_barrier_algorithm pairwise --mca coll_rdma_allreduce_algorithm ring --mca coll_rdma_allgather_algorithm bruck --mca coll_rdma_alltoall_algorithm direct"
if netns_begin netns-2hosts-x2 2 2; then
    rcase netns-2hosts-x2-mix "$NETNS_NP" "$NETNS_ARGS" "$ROBUST mix --calls 600" "$SERVED_HIER" put_path_mixed
    rcase netns-2hosts-x2-edge "$NETNS_NP" "$NETNS_ARGS" "$ROBUST edge" \
        "someserved:bcast:hier someserved:allreduce:hier" put_path_mixed
    # both ranks of a host carry a share across hosts (up to 3 chunks of 8 KiB)
    rcase netns-2hosts-x2-nport-mix "$NETNS_NP" "$NETNS_ARGS $NETNS_NPORT" "$ROBUST mix --calls 400" \
        "served:allreduce:nport" put_path_mixed
    # MPI_THREAD_MULTIPLE, threads on distinct communicators, each attaching
    # its peers across hosts at their first use: spun for minutes with UCX's
    # spinlock in the worker, runs with its mutex (docs/reliability.md, case 9)
    rcase netns-2hosts-x2-threads "$NETNS_NP" "$NETNS_ARGS" "$THREADS 3 100" \
        "served:barrier:hier served:allreduce:hier" put_path_mixed
    # bcasts of up to 6 segments through rings of 2 slots: pipelined across hosts
    rcase netns-2hosts-x2-bcast-segments "$NETNS_NP" \
        "$NETNS_ARGS --mca coll_rdma_bcast_algorithm hier --mca coll_rdma_bcast_segment_bytes 4096 --mca coll_rdma_bcast_slots 2" \
        "$ROBUST mix --calls 400" "served:bcast:hier" put_path_mixed
    netns_teardown
fi
# without coll_rdma_auto_emulated, auto hands every call on (reason window)
if NETNS_AUTO_EMULATED=0 netns_begin netns-2hosts-x2-tcp-handed-on 2 2; then
    rcase netns-2hosts-x2-tcp-handed-on "$NETNS_NP" "$NETNS_ARGS" "$ROBUST mix --calls 300" \
        "none fb:barrier:window fb:allreduce:window"
    netns_teardown
fi
if netns_begin netns-3hosts-x1 3 1; then
    rcase netns-3hosts-x1-mix "$NETNS_NP" "$NETNS_ARGS" "$ROBUST mix --calls 600" "$SERVED_PUT" put_path_only
    rcase netns-3hosts-x1-edge "$NETNS_NP" "$NETNS_ARGS" "$ROBUST edge" \
        "someserved:bcast:knomial someserved:allreduce:$AUTO_AR" put_path_only
    netns_teardown
fi
if netns_begin netns-4hosts-x2-roundrobin 4 2 node; then
    rcase netns-4hosts-x2-roundrobin-mix "$NETNS_NP" "$NETNS_ARGS" "$ROBUST mix --calls 400" \
        "$SERVED_HIER" put_path_mixed
    rcase netns-4hosts-x2-roundrobin-nport "$NETNS_NP" "$NETNS_ARGS $NETNS_NPORT" \
        "$ROBUST mix --calls 300" "served:allreduce:nport" put_path_mixed
    # the flat algorithms of every collective, every rank across the hosts
    # (a host's ranks not contiguous: each schedule mixes mapped and put peers)
    rcase netns-4hosts-x2-roundrobin-flat-a "$NETNS_NP" "$NETNS_ARGS $NETNS_FLAT_A" "$ROBUST mix --calls 300" \
        "served:barrier:nway served:bcast:knomial served:allreduce:ktree served:reduce:knomial served:allgather:ring served:alltoall:bruck" put_path_mixed
    rcase netns-4hosts-x2-roundrobin-flat-b "$NETNS_NP" "$NETNS_ARGS $NETNS_FLAT_B" "$ROBUST mix --calls 300" \
        "served:barrier:pairwise served:allreduce:ring served:allgather:bruck served:alltoall:direct" put_path_mixed
    # endpoints and rkeys made at set-up for the node and one peer, the
    # others at their first use; all at set-up when asked
    rcase netns-4hosts-x2-roundrobin-lazy "$NETNS_NP" "$NETNS_ARGS" "$ROBUST burst --calls 300" \
        "served:bcast:hier" connects_lazy
    rcase netns-4hosts-x2-roundrobin-eager "$NETNS_NP" "$NETNS_ARGS --mca coll_rdma_lazy_connect 0" \
        "$ROBUST burst --calls 300" "served:bcast:hier" connects_eager
    # the addresses apart (too long for a record): peers still attached at
    # their first use, from the worker addresses kept per process
    rcase netns-4hosts-x2-roundrobin-lazy-apart "$NETNS_NP" \
        "$NETNS_ARGS --mca coll_rdma_debug_address_inline 0" "$ROBUST burst --calls 300" \
        "served:bcast:hier" connects_lazy
    lazy_unreachable
    netns_teardown
fi
# uneven hosts; edge's split communicators span subsets of them
if netns_begin netns-3hosts-1-3-2 3 1,3,2; then
    rcase netns-3hosts-1-3-2-hier-mix "$NETNS_NP" "$NETNS_ARGS $NETNS_HIER" "$ROBUST mix --calls 400" \
        "served:barrier:hier served:allreduce:hier served:reduce:hier" put_path_any
    rcase netns-3hosts-1-3-2-hier-edge "$NETNS_NP" "$NETNS_ARGS $NETNS_HIER" "$ROBUST edge" \
        "someserved:allreduce:hier" put_path_any
    rcase netns-3hosts-1-3-2-flat-mix "$NETNS_NP" "$NETNS_ARGS $NETNS_FLAT" "$ROBUST mix --calls 400" \
        "served:barrier:pairwise served:allreduce:(nway|bruck)" put_path_any
    netns_teardown
fi

rdma_finish
