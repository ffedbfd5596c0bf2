#!/bin/bash
# The benchmark (bench/README.md) at np 2: it never times coll/rdma's window
# set-up (issue 10, item 5), prints the per-call spread, validates pingpong,
# and compare.sh / summarize.py read its output; bench/overlap_probe.c builds
# and runs; bench/tune.sh writes rules that coll/rdma loads and follows.
#
# Environment: BUILDDIR, PLAIN, TIMEOUT, KEEP_LOGS, ONLY, EXCLUDE,
# COLL_RDMA_TEST_TIER as in tests/mpi/common.sh (series: the cases named in
# the rdma_series_cases block below); BENCH (default $BUILDDIR/bench/coll_bench).
# Prints PASS/FAIL per case and "N passed, M failed"; exits non-zero when M > 0.
#
# The set-up check reads coll/rdma's statistics, not timings: with
# coll_rdma_window_setup_calls S, the communicator's first S collectives are
# handed on with reason "warmup" and the next one sets the window up.  All
# of them must be among the untimed calls before the first size: the
# allgather "warmup=W" count must be below the prewarm count coll_bench
# prints (the set-up call is allgather W+1).  -W 0 (no pre-warm) must fail
# that check, which shows the check can fail.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../mpi/common.sh"

# The series tier (COLL_RDMA_TEST_TIER=series): what reads Open MPI's MPI_T
# (coll_bench reads the set-up delay, the solver the stale sums) and the
# programs' MPI calls; the scripts that only read their output (compare.sh,
# summarize.py, defaults.sh, tune.sh) run on the host.
rdma_series_cases <<'SERIES'
setup-untimed-S16 setup-timed-without-prewarm pingpong-validate-rdma app-loop overlap-probe ssp-solver
setup-cost-many
SERIES

BENCH=${BENCH:-$BUILDDIR/bench/coll_bench}
if [ ! -x "$BENCH" ]; then
    echo "FAIL bench-binary ($BENCH is not executable; make builds it)"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "# mode: $RDMA_MODE; bench $BENCH; logs in $RDMA_LOGDIR" >&2

# bench NAME MPIRUN_ARGS -- BENCH_ARGS: runs, sets OUT ERR RC
bench() {
    local name=$1 margs=$2
    shift 2
    OUT=$RDMA_LOGDIR/$name.out
    ERR=$RDMA_LOGDIR/$name.err
    # shellcheck disable=SC2086
    rdma_run "$name" "$OUT" "$ERR" mpirun -np 2 --oversubscribe $margs "$BENCH" "$@"
    RC=$?
}

result() {  # NAME REASON
    if [ -z "$2" ]; then rdma_pass "$1" "${RDMA_RUN_SECS}s"; else rdma_fail "$1" "$2"; fi
}

# fields of the first data line (not a comment)
data_nf() { awk '!/^#/ && NF { print NF; exit }' "$1"; }

# 1. set-up before the first timed call, at a large first size, for several
#    coll_rdma_window_setup_calls values (16: the default)
for S in 16 40 0; do
    name=setup-untimed-S$S
    rdma_selected "$name" || continue
    bench "$name" "$(rdma_verbose_args) --mca coll_rdma_window_setup_calls $S" \
        -c allgather -m 1M:1M -i 5 -x 0 -f -v
    reason=$(rdma_outcome $RC "$OUT" "$ERR" '^# validation passed' "validation line")
    if [ -z "$reason" ] && [ "$RDMA_MODE" = component ]; then
        prewarm=$(sed -n 's/.* prewarm=\([0-9]*\) .*/\1/p' "$OUT")
        grep -q "^# coll_rdma_window_setup_calls=$S\$" "$OUT" ||
            reason="coll_bench did not read coll_rdma_window_setup_calls=$S through MPI_T"
        [ -z "$reason" ] && [ "$prewarm" != $((S + 8)) ] && reason="prewarm=$prewarm, expected $((S + 8))"
        w=$(grep -E '^\[coll/rdma\] rank 0: allgather fallback:' "$ERR" | sed -n 's/.* warmup=\([0-9]*\).*/\1/p')
        served=$(rdma_stat_ranks "$ERR" "allgather (bruck|ring)")
        [ -z "$reason" ] && [ "${w:-0}" -ge "$prewarm" ] && reason="set-up at allgather call $((w + 1)), prewarm only $prewarm"
        # 1 MiB blocks are above the allgather cap: handed on after the set-up
        [ -z "$reason" ] && [ "$served" != 0 ] && reason="1 MiB allgather served by coll/rdma?"
        [ -z "$reason" ] && ! grep -q '^# untimed calls before the first size: ' "$OUT" && reason="no untimed-calls line"
    fi
    result "$name" "$reason"
done

# a set-up delay beyond any run (the documented way to keep windows off) is
# not pre-warmed for: 24 calls, not 10^8
name=setup-never-prewarm24
if rdma_selected "$name" && [ "$RDMA_MODE" = component ]; then
    bench "$name" "--mca coll_rdma_window_setup_calls 100000000" -c allgather -m 64K:64K -i 5 -x 0
    reason=$(rdma_outcome $RC "$OUT" "$ERR" '^ *65536 ' "data line")
    [ -z "$reason" ] && ! grep -q ' prewarm=24 ' "$OUT" && reason="prewarm is not 24: $(grep -o ' prewarm=[0-9]*' "$OUT")"
    result "$name" "$reason"
fi

# the same check without the pre-warm must see the set-up among the timed calls
name=setup-timed-without-prewarm
if rdma_selected "$name" && [ "$RDMA_MODE" = component ]; then
    bench "$name" "$(rdma_verbose_args) --mca coll_rdma_window_setup_calls 16" \
        -c allgather -m 1M:1M -i 20 -x 0 -W 0
    reason=$(rdma_outcome $RC "$OUT" "$ERR" '^ *1048576 ' "data line")
    w=$(grep -E '^\[coll/rdma\] rank 0: allgather fallback:' "$ERR" | sed -n 's/.* warmup=\([0-9]*\).*/\1/p')
    [ -z "$reason" ] && [ "${w:-0}" -lt 1 ] && reason="expected warmup fallbacks among the timed calls, got warmup=$w"
    result "$name" "$reason"
fi

# 2. columns: -f has Size Avg Min Max Median CallMin CallMed CallMax, the
#    default Size Avg CallMin CallMed CallMax; CallMin <= CallMed <= CallMax
for f in "-f" ""; do
    name=columns${f:+-full}
    rdma_selected "$name" || continue
    bench "$name" "" -c allreduce -m 8:64 -i 50 -x 5 $f
    reason=$(rdma_outcome $RC "$OUT" "$ERR" '^ *64 ' "64-byte line")
    want=$([ -n "$f" ] && echo 8 || echo 5)
    [ -z "$reason" ] && [ "$(data_nf "$OUT")" != "$want" ] && reason="$(data_nf "$OUT") columns, expected $want"
    [ -z "$reason" ] && ! grep -q "CallMin *CallMed *CallMax\$" "$OUT" && reason="no CallMin CallMed CallMax header"
    [ -z "$reason" ] && ! awk '!/^#/ && NF { if (!($(NF-2) <= $(NF-1) && $(NF-1) <= $NF)) bad = 1 } END { exit bad }' "$OUT" &&
        reason="CallMin <= CallMed <= CallMax does not hold"
    result "$name" "$reason"
done

# 3. pingpong, validated, with and without coll/rdma
for cfg in rdma tuned; do
    name=pingpong-validate-$cfg
    rdma_selected "$name" || continue
    margs=""
    [ $cfg = tuned ] && margs="--mca coll ^rdma"
    bench "$name" "$margs" -c pingpong -m 0:65536 -i 20 -x 2 -v
    result "$name" "$(rdma_outcome $RC "$OUT" "$ERR" '^# validation passed: pingpong' "validation line")"
done

# 4. compare.sh (per-collective sizes, spread.md) and summarize.py read it
name=compare-summarize
if rdma_selected "$name"; then
    dir=$RDMA_LOGDIR/compare
    cfgs=rdma,tuned
    [ "$RDMA_MODE" = component ] || cfgs=tuned,sm
    t0=$(date +%s)
    BUILDDIR=$BUILDDIR BENCH=$BENCH timeout 300 bash "$RDMA_REPO_ROOT/bench/compare.sh" -n 2 -r 2 -C $cfgs -i 20 -x 2 \
        -c allreduce:8:16,pingpong:8:8 -o "$dir" >"$dir.out" 2>&1
    rc=$?
    RDMA_RUN_SECS=$(($(date +%s) - t0))
    reason=
    [ $rc -ne 0 ] && reason="compare.sh exit $rc: $(tail -n 3 "$dir.out" | tr '\n' ' ')"
    [ -z "$reason" ] && ! grep -qE '^\| allreduce \| 16 \| [0-9.]+ \| [0-9.]+ \|' "$dir/table.md" && reason="no allreduce 16 row in table.md"
    [ -z "$reason" ] && ! grep -qE '^\| pingpong \| 8 \| [0-9.]+ \[' "$dir/spread.md" && reason="no pingpong 8 row in spread.md"
    if [ -z "$reason" ] && [ "$RDMA_MODE" = component ]; then
        python3 "$RDMA_REPO_ROOT/bench/summarize.py" side "$dir" >"$dir.summary" 2>&1 ||
            reason="summarize.py failed: $(tail -n 2 "$dir.summary" | tr '\n' ' ')"
        [ -z "$reason" ] && ! grep -q '^| 16 B | ' "$dir.summary" && reason="summarize.py: no 16 B row"
    fi
    result "$name" "$reason"
fi

# 4b. auto's default rules are what the checked-in measurements give
#     (bench/defaults.sh -c: the same tool, no run), and an application
#     loop (coll_bench -L) reports a time per call
name=defaults-generated
if rdma_selected "$name"; then
    t0=$(date +%s)
    reason=
    bash "$RDMA_REPO_ROOT/bench/defaults.sh" -c >"$RDMA_LOGDIR/$name.out" 2>&1 ||
        reason="bench/defaults.sh -c: $(tail -n 3 "$RDMA_LOGDIR/$name.out" | tr '\n' ' ')"
    RDMA_RUN_SECS=$(($(date +%s) - t0))
    result "$name" "$reason"
fi
name=app-loop
if rdma_selected "$name"; then
    OUT=$RDMA_LOGDIR/$name.out
    ERR=$RDMA_LOGDIR/$name.err
    rdma_run "$name" "$OUT" "$ERR" mpirun --oversubscribe -np 2 "$BENCH" -c reduce -m 8:64 -i 50 -x 5 -L 2
    RC=$?
    reason=$(rdma_outcome $RC "$OUT" "$ERR" '^# application loop: 2.00 us' "application loop line")
    [ -z "$reason" ] && ! grep -qE '^  64 +[0-9.]+' "$OUT" && reason="no 64-byte row"
    result "$name" "$reason"
fi

# 5. overlap_probe (bench/overlap_probe.c): builds with mpicc, prints a line
#    per size with OSU's overlap figure, served by coll/rdma (statistics)
name=overlap-probe
if rdma_selected "$name"; then
    bin=$RDMA_LOGDIR/overlap_probe
    reason=
    if ! mpicc -O2 -Wall -Werror -o "$bin" "$RDMA_REPO_ROOT/bench/overlap_probe.c" 2>"$RDMA_LOGDIR/$name.build"; then
        reason="mpicc failed: $(head -n 3 "$RDMA_LOGDIR/$name.build" | tr '\n' ' ')"
    else
        OUT=$RDMA_LOGDIR/$name.out
        ERR=$RDMA_LOGDIR/$name.err
        # shellcheck disable=SC2046
        rdma_run "$name" "$OUT" "$ERR" mpirun -np 2 --oversubscribe $(rdma_verbose_args) "$bin" -c iallreduce -m 512 -i 300 -t 2
        reason=$(rdma_outcome $? "$OUT" "$ERR" '^ +512 ' "a 512-byte line")
        [ -z "$reason" ] && [ "$(grep -cE '^ +(8|64|512)( +[0-9.]+){6}$' "$OUT")" != 3 ] &&
            reason="not three lines of 7 numbers: $(tr '\n' ' ' <"$OUT")"
        [ -z "$reason" ] && [ "$RDMA_MODE" = component ] && reason=$(rdma_check_stats "$ERR" 2 served:iallreduce:'[a-z]+')
    fi
    result "$name" "$reason"
fi

# 6. the stale-synchronous solver (bench/ssp_solver.sh): converges for S = 0
#    and S = 2 (final loss below the target), prints its table, and with the
#    component some of the S = 2 sums were stale (MPI_T counter)
name=ssp-solver
if rdma_selected "$name"; then
    dir=$RDMA_LOGDIR/$name
    t0=$(date +%s)
    BUILDDIR=$BUILDDIR timeout 300 bash "$RDMA_REPO_ROOT/bench/ssp_solver.sh" -n 2 -r 2 -S 0,2 \
        -a "-m 512 -n 320" -o "$dir" >"$dir.out" 2>&1
    rc=$?
    RDMA_RUN_SECS=$(($(date +%s) - t0))
    reason=
    [ $rc -ne 0 ] && reason="ssp_solver.sh exit $rc: $(tail -n 3 "$dir.out" | tr '\n' ' ')"
    for S in 0 2; do
        row=$(grep -E "^\| $S \| 2 \| " "$dir/table.md" 2>/dev/null)
        [ -z "$reason" ] && [ -z "$row" ] && reason="no row for S = $S in table.md"
        [ -z "$reason" ] && ! awk -F'|' '{ exit !($8 + 0 > 0 && $8 + 0 <= 1e-5) }' <<<"$row" &&
            reason="S = $S did not converge: $row"
    done
    if [ -z "$reason" ] && [ "$RDMA_MODE" = component ]; then
        awk -F'|' '{ exit !($7 + 0 > 0) }' <<<"$(grep -E '^\| 2 \| ' "$dir/table.md")" ||
            reason="no stale sum at S = 2: $(grep -E '^\| 2 \| ' "$dir/table.md")"
    fi
    result "$name" "$reason"
fi

# 7. calibration (bench/tune.sh): a short run at np 2 writes a rules file
#    that parses (coll/rdma says how many rules, no error), names an
#    algorithm for some sizes, and, loaded, serves calls with the algorithms
#    it names (the statistics show them, results validated by coll_bench)
name=tune
if rdma_selected "$name" && [ "$RDMA_MODE" != component ]; then
    echo "SKIP $name (no component: tune.sh measures coll/rdma)"
elif rdma_selected "$name"; then
    dir=$RDMA_LOGDIR/$name
    t0=$(date +%s)
    BUILDDIR=$BUILDDIR timeout 300 bash "$RDMA_REPO_ROOT/bench/tune.sh" -n 2 -c barrier,allreduce \
        -m 8:16384 -r 1 -i 50 -o "$dir" >"$dir.out" 2>&1
    rc=$?
    RDMA_RUN_SECS=$(($(date +%s) - t0))
    reason=
    [ $rc -ne 0 ] && reason="tune.sh exit $rc: $(tail -n 3 "$dir.out" | tr '\n' ' ')"
    named=$(awk '!/^#/ && NF == 4 && $4 != "fallback" { print $1 " " $4 }' "$dir/rules" 2>/dev/null | sort -u)
    [ -z "$reason" ] && [ -z "$named" ] && reason="the rules name no algorithm: $(grep -v '^#' "$dir/rules" | tr '\n' ';')"
    [ -z "$reason" ] && ! grep -q '^| 16 KiB | ' "$dir/report.md" && reason="report.md lacks the 16 KiB row"
    if [ -z "$reason" ]; then
        bench "$name-load" "$(rdma_verbose_args) --mca coll_rdma_tuning_file $dir/rules" \
            -c allreduce -m 8:16384 -i 20 -x 2 -v
        reason=$(rdma_outcome $RC "$OUT" "$ERR" '^# validation passed' "validation line")
        [ -z "$reason" ] && ! grep -qE '^\[coll/rdma\] rank 0: tuning file .*: [0-9]+ rules' "$ERR" &&
            reason="coll/rdma did not report the rules file: $(grep -m1 'coll/rdma' "$ERR")"
        [ -z "$reason" ] && grep -q 'error: coll_rdma_tuning_file' "$ERR" &&
            reason="$(grep -m1 'error: coll_rdma_tuning_file' "$ERR")"
        if [ -z "$reason" ]; then
            served=0
            while read -r coll alg; do
                [ "$coll" = allreduce ] || continue
                grep -qE "^\[coll/rdma\] rank 0: allreduce $alg: calls=[1-9]" "$ERR" && served=1
            done <<<"$named"
            [ $served = 1 ] || reason="no allreduce served by an algorithm the rules name ($(echo $named)): $(grep 'rank 0: allreduce' "$ERR" | tr '\n' ' ')"
        fi
    fi
    RDMA_RUN_SECS=$(($(date +%s) - t0))
    result "$name" "$reason"
fi

# 8. what a communicator costs (bench/setup_cost.sh -m): both configurations
#    print the many-communicator keys, and coll/rdma's communicators add
#    windows to /dev/shm (theirs were set up) where stock's add none
name=setup-cost-many
if rdma_selected "$name" && [ "$RDMA_MODE" != component ]; then
    echo "SKIP $name (no component: setup_cost.sh compares coll/rdma with stock)"
elif rdma_selected "$name"; then
    OUT=$RDMA_LOGDIR/$name.out
    t0=$(date +%s)
    BUILDDIR=$BUILDDIR timeout 300 bash "$RDMA_REPO_ROOT/bench/setup_cost.sh" -n 2 -r 1 -c 20 -m 4 \
        -o "$RDMA_LOGDIR/$name.raw" >"$OUT" 2>&1
    rc=$?
    RDMA_RUN_SECS=$(($(date +%s) - t0))
    reason=
    [ $rc -ne 0 ] && reason="setup_cost.sh exit $rc: $(tail -n 3 "$OUT" | tr '\n' ' ')"
    for cfg in rdma tuned; do
        line=$(grep "^$cfg " "$RDMA_LOGDIR/$name.raw" 2>/dev/null)
        [ -z "$reason" ] && ! grep -qE ' free4_us=[0-9.]+ kept4_us=[0-9.]+ shmkept_kib=-?[0-9.]+ ' <<<"$line" &&
            reason="no many-communicator keys for $cfg: $line"
    done
    kib=$(sed -n 's/^rdma .* shmkept_kib=\([-0-9.]*\) .*/\1/p' "$RDMA_LOGDIR/$name.raw" 2>/dev/null)
    [ -z "$reason" ] && ! awk -v k="${kib:-0}" 'BEGIN { exit !(k >= 256) }' &&
        reason="coll/rdma's 4 communicators added ${kib:-?} KiB per communicator to /dev/shm: no window set up?"
    result "$name" "$reason"
fi

rdma_finish
