# Shared helpers of the coll/rdma MPI test scripts (tests/mpi, tests/real).
# Source it from bash after `set -u`; it defines functions and variables only.
#
# Environment:
#   BUILDDIR   where ompi-coll-rdma/.libs/mca_coll_rdma.so lives (default: the
#              repository root)
#   PLAIN=1    run against plain Open MPI even if the component is built
#   REQUIRE_COMPONENT=1  fail (instead of testing plain Open MPI) when
#              $BUILDDIR/ompi-coll-rdma/.libs/mca_coll_rdma.so is missing
#   TIMEOUT    seconds per mpirun (default 120); a hang is a failure
#   KEEP_LOGS=1  keep the log directory (always kept when something failed)
#   ONLY       extended regex: run only the cases whose name matches
#   EXCLUDE    extended regex: skip the cases whose name matches
#   COLL_RDMA_TEST_TIER  which cases run (besides ONLY and EXCLUDE):
#              full (the default; the host's make check, Open MPI 4.1): all;
#              series (tests/run-chroot.sh's chroots, Open MPI 5.0 and 6.0):
#              only the cases that exercise what depends on the Open MPI
#              series, those each script names in its rdma_series_cases
#              block (near its top); the rest run on the host only.  A new
#              case is in the full tier only until its name is added there.

RDMA_REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILDDIR=${BUILDDIR:-$RDMA_REPO_ROOT}
if ! BUILDDIR=$(cd "$BUILDDIR" 2>/dev/null && pwd); then
    echo "BUILDDIR ${BUILDDIR} does not exist" >&2
    exit 2
fi
TIMEOUT=${TIMEOUT:-120}
PLAIN=${PLAIN:-0}
ONLY=${ONLY:-}
EXCLUDE=${EXCLUDE:-}
KEEP_LOGS=${KEEP_LOGS:-0}

# Open MPI refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

RDMA_SO=$BUILDDIR/ompi-coll-rdma/.libs/mca_coll_rdma.so
RDMA_SYSDIR=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed 's/^path:pkglibdir://')

# Debian's Open MPI 4.1.4 op/avx component computes MPI_SUM on 8- and 16-bit
# integers (int8, uint8, int16, uint16 and their C aliases) with SATURATING
# vector adds once the count reaches a vector width, so coll/tuned returns
# wrong sums whenever they overflow.  Every run in which some call may be
# served by Open MPI rather than coll/rdma (forced fallback, messages above
# the thresholds, derived types and user ops, np=1, plain Open MPI) therefore
# excludes op/avx.  Only the dedicated int8sum cases run without it, to show
# that coll/rdma itself gets those sums right.
OP_AVX_WORKAROUND="--mca op ^avx"

if [ "$PLAIN" != 1 ] && [ -f "$RDMA_SO" ]; then
    RDMA_MODE=component
else
    RDMA_MODE=plain
    if [ "$PLAIN" != 1 ] && [ "${REQUIRE_COMPONENT:-0}" = 1 ]; then
        echo "FAIL component-present ($RDMA_SO is missing and REQUIRE_COMPONENT=1)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    [ "$PLAIN" != 1 ] && echo "# note: $RDMA_SO not found: testing plain Open MPI" >&2
fi

# Environment for mpirun: how the component is found (docs/contract.md).
# Windows are set up at a communicator's first call (coll_rdma_window_setup_calls
# 0, not the default 16), so that every communicator of a test is served; a
# --mca argument of a case overrides it.
rdma_mpi_env() {
    if [ "$RDMA_MODE" = component ]; then
        echo "OMPI_MCA_mca_base_component_path=$RDMA_SYSDIR:$BUILDDIR/ompi-coll-rdma/.libs OMPI_MCA_coll_rdma_window_setup_calls=0"
    fi
}

# MCA arguments that turn the statistics on (component mode only; not with
# RDMA_QUIET=1, for a case that checks what a user sees at verbose 0).
rdma_verbose_args() {
    if [ "$RDMA_MODE" = component ] && [ -z "${RDMA_QUIET:-}" ]; then
        echo "--mca coll_rdma_verbose 1"
    fi
}

RDMA_LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/coll-rdma-tests.XXXXXX")
RDMA_NPASS=0
RDMA_NFAIL=0
RDMA_T0=$(date +%s)

rdma_pass() {
    RDMA_NPASS=$((RDMA_NPASS + 1))
    echo "PASS $1${2:+ ($2)}"
}

rdma_fail() {
    RDMA_NFAIL=$((RDMA_NFAIL + 1))
    echo "FAIL $1 ($2)"
}

# rdma_selected NAME: whether ONLY, EXCLUDE and the tier let this case run.
rdma_selected() {
    if [ -n "$EXCLUDE" ] && echo "$1" | grep -Eq -- "$EXCLUDE"; then
        return 1
    fi
    if [ -n "$ONLY" ] && ! echo "$1" | grep -Eq -- "$ONLY"; then
        return 1
    fi
    rdma_in_tier "$1"
}

# ---- tiers (COLL_RDMA_TEST_TIER, above) --------------------------------------

RDMA_TIER=${COLL_RDMA_TEST_TIER:-full}
case $RDMA_TIER in
full | series) ;;
*)
    echo "FAIL test-tier (COLL_RDMA_TEST_TIER=$RDMA_TIER: full or series)"
    echo "0 passed, 1 failed"
    exit 1
    ;;
esac
RDMA_SERIES_PATTERNS=()
RDMA_SERIES_RE=
declare -A RDMA_TIER_RUN=() RDMA_TIER_LEFT=() # names of the cases in and out

# rdma_series_cases <<EOF ... EOF: the cases of the series tier, read from
# stdin: extended regexes, separated by blanks and newlines, each matching a
# whole case name; '#' starts a comment.
rdma_series_cases() {
    local - line p
    set -f # patterns, not file names
    while IFS= read -r line; do
        line=${line%%#*}
        for p in $line; do RDMA_SERIES_PATTERNS+=("$p"); done
    done
    RDMA_SERIES_RE="^($(IFS='|'; echo "${RDMA_SERIES_PATTERNS[*]}"))\$"
}

# rdma_in_tier NAME: whether the tier runs this case (full: every case).
rdma_in_tier() {
    [ "$RDMA_TIER" = series ] || return 0
    if [ -n "$RDMA_SERIES_RE" ] && [[ $1 =~ $RDMA_SERIES_RE ]]; then
        RDMA_TIER_RUN[$1]=1
        return 0
    fi
    RDMA_TIER_LEFT[$1]=1
    return 1
}

# In the series tier: a NOTE with how many cases were left to the full tier,
# and a failure for every pattern that matched no case (a case renamed or
# removed: the tier would lose it silently).
rdma_tier_report() {
    local p n stale=
    [ "$RDMA_TIER" = series ] || return 0
    # (a script without a block, hpcc's, runs the same in both tiers)
    [ ${#RDMA_SERIES_PATTERNS[@]} -gt 0 ] || [ ${#RDMA_TIER_LEFT[@]} -gt 0 ] || return 0
    echo "NOTE tier series (COLL_RDMA_TEST_TIER): ${#RDMA_TIER_RUN[@]} cases in it, ${#RDMA_TIER_LEFT[@]} left to the full tier (the host's make check)"
    # ONLY or EXCLUDE, or plain Open MPI (cases of the component only), may
    # leave patterns unmatched
    [ -z "$ONLY$EXCLUDE" ] && [ "$RDMA_MODE" = component ] || return 0
    for p in "${RDMA_SERIES_PATTERNS[@]}"; do
        for n in "${!RDMA_TIER_RUN[@]}"; do
            [[ $n =~ ^($p)$ ]] && continue 2
        done
        stale="$stale $p"
    done
    [ -z "$stale" ] || rdma_fail series-cases "patterns of rdma_series_cases that match no case:$stale"
}

# ---- /dev/shm hygiene ------------------------------------------------------

# Names in /dev/shm now.
rdma_shm_list() {
    ls -A /dev/shm 2>/dev/null | sort
}

# /dev/shm paths some live process has mapped or open.
rdma_shm_in_use() {
    {
        cat /proc/[0-9]*/maps 2>/dev/null | awk '$6 ~ /^\/dev\/shm\// {print $6}'
        find /proc/[0-9]*/fd -lname '/dev/shm/*' -printf '%l\n' 2>/dev/null
    } | sort -u
}

# rdma_shm_cleanup SNAPSHOT_FILE: remove /dev/shm entries that appeared since
# the snapshot and that no live process uses (so a concurrent job's files
# stay).  Prints how many were removed.
rdma_shm_cleanup() {
    local snap=$1 new used n=0 f
    new=$(rdma_shm_list | comm -13 "$snap" -)
    if [ -n "$new" ]; then
        used=$(rdma_shm_in_use)
        for f in $new; do
            if ! printf '%s\n' "$used" | grep -qxF "/dev/shm/$f"; then
                rm -rf -- "/dev/shm/$f" && n=$((n + 1))
            fi
        done
    fi
    echo "$n"
}

# SysV shared memory (UCX's mm/sysv transport uses it): ids now.
rdma_sysv_list() {
    ipcs -m 2>/dev/null | awk '$2 ~ /^[0-9]+$/ {print $2}' | sort
}

# rdma_sysv_cleanup SNAPSHOT_FILE: remove SysV segments that appeared since the
# snapshot, that nobody has attached and whose creator is gone.  Prints how
# many were removed.
rdma_sysv_cleanup() {
    local snap=$1 id cpid nattch n=0
    command -v ipcs >/dev/null 2>&1 || { echo 0; return; }
    for id in $(rdma_sysv_list | comm -13 "$snap" -); do
        nattch=$(ipcs -m -i "$id" 2>/dev/null | sed -n 's/.*nattch=\([0-9]*\).*/\1/p')
        cpid=$(ipcs -m -i "$id" 2>/dev/null | sed -n 's/.*cpid=\([0-9]*\).*/\1/p')
        if [ "${nattch:-1}" = 0 ] && [ -n "$cpid" ] && [ ! -d "/proc/$cpid" ]; then
            ipcrm -m "$id" 2>/dev/null && n=$((n + 1))
        fi
    done
    echo "$n"
}

# ---- processes ---------------------------------------------------------------

# PIDs of processes whose environment holds RDMA_TEST_RUN=<marker>.
rdma_marked_pids() {
    local marker=$1
    grep -lzxF "RDMA_TEST_RUN=$marker" /proc/[0-9]*/environ 2>/dev/null |
        sed -e 's|^/proc/||' -e 's|/environ$||' | grep -vx "$$"
}

# Kill (by PID) every process left over from the run with this marker.
rdma_kill_strays() {
    local marker=$1 pids n=0 pid
    pids=$(rdma_marked_pids "$marker")
    for pid in $pids; do
        kill -KILL "$pid" 2>/dev/null && n=$((n + 1))
    done
    echo "$n"
}

# rdma_run NAME OUTFILE ERRFILE CMD...: run CMD (an mpirun line) with the
# component's environment, under timeout, with a marker in its environment
# so stray processes can be found and killed afterwards; then clean up
# /dev/shm.  Returns the command's exit status (124/137 on timeout).
RDMA_RUN_SECS=0
RDMA_RUN_NOTE=
rdma_run() {
    local name=$1 out=$2 err=$3
    shift 3
    local marker="$$-$RANDOM-$name" snap rc t0 strays removed sysv
    snap=$RDMA_LOGDIR/.shm-snapshot
    rdma_shm_list >"$snap"
    rdma_sysv_list >"$snap.sysv"
    RDMA_CUR_MARKER=$marker
    t0=$(date +%s%N)
    # shellcheck disable=SC2046
    env RDMA_TEST_RUN="$marker" $(rdma_mpi_env) \
        timeout --kill-after=10 "$TIMEOUT" "$@" >"$out" 2>"$err" </dev/null
    rc=$?
    RDMA_RUN_SECS=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
    # after MPI_Abort or a timeout, ranks may take a moment to go: give them
    # up to 5 s, then kill what is left, so that their files are unused
    local i=0
    while [ $i -lt 50 ] && [ -n "$(rdma_marked_pids "$marker")" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    strays=$(rdma_kill_strays "$marker")
    [ "$strays" != 0 ] && sleep 0.2
    removed=$(rdma_shm_cleanup "$snap")
    sysv=$(rdma_sysv_cleanup "$snap.sysv")
    RDMA_CUR_MARKER=
    RDMA_RUN_NOTE=
    if [ "$strays" != 0 ]; then
        RDMA_RUN_NOTE="killed $strays stray processes"
    fi
    if [ "$removed" != 0 ]; then
        RDMA_RUN_NOTE="${RDMA_RUN_NOTE:+$RDMA_RUN_NOTE, }removed $removed /dev/shm files"
    fi
    if [ "$sysv" != 0 ]; then
        RDMA_RUN_NOTE="${RDMA_RUN_NOTE:+$RDMA_RUN_NOTE, }removed $sysv SysV segments"
    fi
    return $rc
}

# Interrupted: end the processes of the run in flight, clean up, stop.
RDMA_CUR_MARKER=
rdma_interrupted() {
    if [ -n "$RDMA_CUR_MARKER" ]; then
        rdma_kill_strays "$RDMA_CUR_MARKER" >/dev/null
        sleep 0.2
        rdma_shm_cleanup "$RDMA_LOGDIR/.shm-snapshot" >/dev/null
        rdma_sysv_cleanup "$RDMA_LOGDIR/.shm-snapshot.sysv" >/dev/null
    fi
    echo "interrupted; logs: $RDMA_LOGDIR" >&2
    echo "$RDMA_NPASS passed, $((RDMA_NFAIL + 1)) failed"
    exit 130
}
trap rdma_interrupted INT TERM

# First lines that say what went wrong, on one line.
rdma_first_errors() {
    local out=$1 err=$2
    {
        grep -h -m 5 -E '^FAIL |error|Error|ERROR|abort|Abort|Segmentation|signal|unable to open' "$out" "$err" 2>/dev/null
    } | head -n 5 | tr '\n' ' ' | cut -c1-600
}

# rdma_outcome RC OUT ERR OK_REGEX WHAT: empty when a run succeeded (exit 0 and
# a line of OUT matches OK_REGEX), otherwise the reason.
rdma_outcome() {
    local rc=$1 out=$2 err=$3 ok=$4 what=$5
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "timeout after ${TIMEOUT}s (hang)"
    elif [ "$rc" -ne 0 ]; then
        echo "exit $rc: $(rdma_first_errors "$out" "$err")"
    elif ! grep -qE "$ok" "$out"; then
        echo "no $what"
    fi
}

# ---- statistics (docs/contract.md) ---------------------------------------------

# rdma_stat_ranks ERRFILE "coll alg": number of distinct ranks whose line
# "[coll/rdma] rank R: coll alg: calls=N ..." has N > 0.
rdma_stat_ranks() {
    local err=$1 what=$2
    grep -E "^\[coll/rdma\] rank [0-9]+: $what: calls=[0-9]+" "$err" 2>/dev/null |
        sed -E 's/^\[coll\/rdma\] rank ([0-9]+): .*calls=([0-9]+).*/\1 \2/' |
        awk '$2 > 0 {print $1}' | sort -u | wc -l
}

# rdma_stat_sum ERRFILE "coll alg" FIELD: sum of FIELD=N over all ranks' lines.
rdma_stat_sum() {
    local err=$1 what=$2 field=$3
    grep -E "^\[coll/rdma\] rank [0-9]+: $what:" "$err" 2>/dev/null |
        grep -oE "(^| )$field=[0-9]+" | sed 's/.*=//' | awk '{s += $1} END {print s + 0}'
}

# rdma_check_stats ERRFILE NP CHECK...: empty output when every CHECK holds,
# otherwise the reason.  Checks (component mode, np >= 2 only):
#   served:COLL:ALG   every rank served calls=N>0 with that algorithm
#   someserved:COLL:ALG  at least one rank did
#   none              no rank served anything (no line of an algorithm
#                     other than "fallback" with calls > 0), and coll/rdma
#                     said something (statistics or a message): without a
#                     line at all the component may not have been loaded
#   unloaded          no [coll/rdma] line at all (a run with --mca coll ^rdma)
#   fb:REASON         allreduce fallback REASON=N summed over ranks > 0
#   fb:COLL:REASON    the same for collective COLL
#   nofb              no "allreduce fallback" line at all
#   nofb:COLL         no "COLL fallback" line at all
#   nowin             no call of any collective handed on for want of a
#                     window (window=N is 0 on every fallback line): every
#                     communicator of the run got its window
#   noserved:COLL:ALG no rank served a call with that algorithm
#   warns:REGEX       a "[coll/rdma] rank N: warning: ..." line matches REGEX
#   says:REGEX        any "[coll/rdma] rank N: ..." line matches REGEX
#   modules:balanced  every rank destroyed every module it made (its
#                     "modules: made=N freed=N" line)
#   once:REGEX        exactly one "[coll/rdma] rank N: warning: ..." line, of
#                     all ranks together, matches REGEX (said once per job)
rdma_check_stats() {
    local err=$1 np=$2 c n coll alg
    shift 2
    [ "$RDMA_MODE" = component ] || return 0
    [ "$np" -ge 2 ] || return 0
    if ! grep -q '^\[coll/rdma\] rank ' "$err"; then
        for c in "$@"; do
            case $c in unloaded) ;; *) echo "no [coll/rdma] statistics lines on stderr (component not loaded?)"; return 0 ;; esac
        done
    fi
    for c in "$@"; do
        case $c in
        served:* | someserved:*)
            coll=$(echo "$c" | cut -d: -f2)
            alg=$(echo "$c" | cut -d: -f3)
            n=$(rdma_stat_ranks "$err" "$coll $alg")
            if [ "${c%%:*}" = served ] && [ "$n" -ne "$np" ]; then
                echo "statistics: only $n of $np ranks show '$coll $alg: calls=N' with N>0"
                return 0
            fi
            if [ "$n" -eq 0 ]; then
                echo "statistics: no rank shows '$coll $alg: calls=N' with N>0"
                return 0
            fi
            ;;
        none)
            # any algorithm line but "fallback" (nway, knomial, ktree, ...)
            if grep -E '^\[coll/rdma\] rank [0-9]+: (barrier|bcast|allreduce|allgather|alltoall|reduce) [a-z_]+: calls=[1-9]' "$err" | grep -qv ' fallback: '; then
                echo "statistics: calls served although coll/rdma should serve none: $(grep -E '^\[coll/rdma\] rank [0-9]+: (barrier|bcast|allreduce|allgather|alltoall|reduce) [a-z_]+: calls=[1-9]' "$err" | grep -v ' fallback: ' | head -n 1)"
                return 0
            fi
            ;;
        fb:*:*)
            coll=$(echo "$c" | cut -d: -f2)
            n=$(rdma_stat_sum "$err" "$coll fallback" "${c##*:}")
            if [ "$n" -le 0 ]; then
                echo "statistics: no $coll fallback counted with ${c##*:}=N>0"
                return 0
            fi
            ;;
        fb:*)
            n=$(rdma_stat_sum "$err" "allreduce fallback" "${c#fb:}")
            if [ "$n" -le 0 ]; then
                echo "statistics: no allreduce fallback counted with ${c#fb:}=N>0"
                return 0
            fi
            ;;
        nowin)
            n=$(rdma_stat_sum "$err" "[a-z]+ fallback" window)
            if [ "$n" -ne 0 ]; then
                echo "statistics: $n calls handed on for want of a window: $(grep -E 'fallback: .* window=[1-9]' "$err" | head -n 1)"
                return 0
            fi
            ;;
        workeraddr:*)
            # every rank sent its worker address exactly N times over all
            # its set-ups (workeraddr:N; workeraddr:LO-HI: LO to HI times):
            # once per peer process where set-ups follow one another and
            # end with a window (docs/design.md, "Worker addresses"),
            # whatever the number of communicators
            lo=${c#workeraddr:} hi=${c#workeraddr:}
            case $lo in *-*) hi=${lo#*-} lo=${lo%-*} ;; esac
            n=$(grep -E '^\[coll/rdma\] rank [0-9]+: worker addresses: sent=[0-9]+ ' "$err" |
                sed -E 's/.*sent=([0-9]+) .*/\1/' |
                awk -v lo="$lo" -v hi="$hi" '$1 >= lo && $1 <= hi { n++ } END { print n + 0 }')
            if [ "$n" -ne "$np" ]; then
                echo "statistics: $n of $np ranks sent their worker address $lo to $hi times: $(grep -E 'worker addresses: ' "$err" | head -n 2 | tr '\n' ' ')"
                return 0
            fi
            ;;
        modules:balanced)
            # every rank's modules made and destroyed (communicators and their
            # requests all freed): nothing of coll/rdma outlived them
            n=$(grep -cE '^\[coll/rdma\] rank [0-9]+: modules: made=([0-9]+) freed=\1 ' "$err")
            if [ "$n" -ne "$np" ]; then
                echo "statistics: $n of $np ranks destroyed every module they made: $(grep -E 'modules: made' "$err" | head -n 1)"
                return 0
            fi
            ;;
        noserved:*)
            coll=$(echo "$c" | cut -d: -f2)
            alg=$(echo "$c" | cut -d: -f3)
            n=$(rdma_stat_ranks "$err" "$coll $alg")
            if [ "$n" -ne 0 ]; then
                echo "statistics: $n ranks show '$coll $alg: calls=N' with N>0, expected none"
                return 0
            fi
            ;;
        warns:*)
            if ! grep -E '^\[coll/rdma\] rank [0-9]+: warning: ' "$err" | grep -qE "${c#warns:}"; then
                echo "no coll/rdma warning matching '${c#warns:}' on stderr"
                return 0
            fi
            ;;
        says:*)
            if ! grep -E '^\[coll/rdma\] rank [0-9]+: ' "$err" | grep -qE "${c#says:}"; then
                echo "no coll/rdma line matching '${c#says:}' on stderr"
                return 0
            fi
            ;;
        once:*)
            n=$(grep -E '^\[coll/rdma\] rank [0-9]+: warning: ' "$err" | grep -cE "${c#once:}")
            if [ "$n" -ne 1 ]; then
                echo "$n coll/rdma warnings match '${c#once:}' on stderr, expected exactly one"
                return 0
            fi
            ;;
        unloaded)
            if grep -q '^\[coll/rdma\] rank ' "$err"; then
                echo "coll/rdma said something although it should not be loaded: $(grep -m1 '^\[coll/rdma\] rank ' "$err")"
                return 0
            fi
            ;;
        nofb | nofb:*)
            coll=allreduce
            [ "$c" = nofb ] || coll=${c#nofb:}
            if grep -qE "^\[coll/rdma\] rank [0-9]+: $coll fallback:" "$err"; then
                echo "statistics: $coll calls fell back: $(grep -m1 -E "$coll fallback:" "$err")"
                return 0
            fi
            ;;
        esac
    done
    return 0
}

# Final line, log directory handling; returns the exit status to use.
rdma_finish() {
    local secs=$(($(date +%s) - RDMA_T0))
    rdma_tier_report
    if [ "$RDMA_NFAIL" -gt 0 ] || [ "$KEEP_LOGS" = 1 ]; then
        echo "logs: $RDMA_LOGDIR (total ${secs}s, mode $RDMA_MODE)" >&2
    else
        rm -rf -- "$RDMA_LOGDIR"
        echo "total ${secs}s, mode $RDMA_MODE" >&2
    fi
    echo "$RDMA_NPASS passed, $RDMA_NFAIL failed"
    [ "$RDMA_NFAIL" -eq 0 ]
}
