#!/bin/bash
# The component's layering (docs/design.md, "Layers"), checked twice:
#
#  includes  over the #include lines of ompi-coll-rdma/: a room (a .c and
#            the .h of the same name; coll_rdma.h is the component's) may
#            include the header of a room on a lower floor, and its own,
#            never one on its floor or above.  A room that is not in the
#            table below fails too (every new file gets a floor), and so does
#            a room below the component that names the component's global
#            (mca_coll_rdma_component: what lower layers need comes as
#            arguments).
#  calls     over the built objects (BUILDDIR/ompi-coll-rdma/.libs/*.o, as
#            make check sets BUILDDIR): every coll_rdma_* or mca_coll_rdma_*
#            symbol that a room's object uses (nm -u) must be defined by that
#            room or by a room on a lower floor, or be declared in the room's
#            own header (an interface the rooms above implement: the plan
#            functions of coll_rdma_plans.h, which its dispatch table names).
#            This catches a call upward through a prototype the caller
#            declares itself, which the include check cannot see.
#
# Not checked: calls through function pointers (the hooks done_cb,
# teardown, tick are upward by design) and static inline functions of
# headers (reached through includes, so the include check covers them).
# Without objects (BUILDDIR unset or not built) the call check is skipped
# and says so.
#
# Usage: tests/unit/test_layers.sh [SRCDIR]   (default: the repository)
# make check runs it in the tier full only (COLL_RDMA_TEST_TIER; Makefile.am's
# TESTS_ONCE): it does not depend on the Open MPI series.
set -u
src=${1:-${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}}/ompi-coll-rdma

declare -A floor=(
    # ground: the Open MPI version's glue, the configuration and its names;
    # the default rules' text, generated into the build directory
    [compat]=0 [config]=0 [defaults_text]=0
    # on it, every layer may use them: programs, datatypes, tuning rules,
    # schedules, statistics, reductions (the kernels below them: ground)
    [prog]=1 [dtype]=1 [rules]=1 [sched]=1 [stats]=1 [kernels]=0 [op]=1
    # the names of collectives, algorithms and reasons (a rules vocabulary);
    # the configuration's MCA parameters, registered with them
    [names]=2 [params]=3
    # transport: the process's start, then the seam under the window; what
    # the process and node have left for windows (descriptors, /dev/shm)
    [ucx_start]=1 [ucx]=2 [resources]=1
    # window: its layout (pure), its memory and peers, its arrival protocol
    [layout]=2 [window]=3 [window_protocol]=4
    # the node map; the decision (pure: configuration, sizes, types)
    [topo]=4 [decision]=3
    # operations and their interpreter; the queue that orders and drives them
    [exec]=5 [queue]=6
    # the window's set-up: what ranks say and agree on, its exchanges over the
    # PML, what a rank brings to them and learns (its records), then the set-up
    [agree]=5 [exchange]=5 [records]=6 [setup]=7
    # the algorithm families: the plans' dispatch, the flat families, then
    # the two-level family that composes them
    [plans]=7 [nway]=8 [bruck]=8 [knomial]=8 [pairwise]=8 [ring]=8 [direct]=8 [read]=8
    [ssp]=8 [hier]=9
    # one communicator: its previous functions, its warm-up and set-up, its queue
    [module]=8
    # calls (decision and preparation, standing operations), requests (then
    # the early ones above them), the entry points, the component
    [call]=10 [request]=11 [request_early]=12 [entry]=13 [component]=14
)

fail=0
room_of() { # coll_rdma_X.{c,h} -> X; coll_rdma.h -> component
    local b
    b=$(basename "$1")
    b=${b%.[ch]}
    [ "$b" = coll_rdma ] && { echo component; return; }
    echo "${b#coll_rdma_}"
}

nfiles=0
for f in "$src"/coll_rdma*.[ch]; do
    nfiles=$((nfiles + 1))
    room=$(room_of "$f")
    if [ -z "${floor[$room]+x}" ]; then
        echo "FAIL $(basename "$f"): room '$room' has no floor in tests/unit/test_layers.sh"
        fail=1
        continue
    fi
    while read -r inc; do
        other=$(room_of "$inc")
        [ "$other" = "$room" ] && continue
        if [ -z "${floor[$other]+x}" ]; then
            echo "FAIL $(basename "$f") includes $inc: room '$other' has no floor"
            fail=1
        elif [ "${floor[$other]}" -ge "${floor[$room]}" ]; then
            echo "FAIL $(basename "$f") (floor ${floor[$room]}, $room) includes $inc (floor ${floor[$other]}, $other): a header of a room not below it"
            fail=1
        fi
    done < <(sed -n 's/^#[[:space:]]*include[[:space:]]*"\(coll_rdma[a-z_]*\.h\)".*/\1/p' "$f")
    if [ "$room" != component ] && grep -q 'mca_coll_rdma_component\b' "$f"; then
        echo "FAIL $(basename "$f") ($room) names mca_coll_rdma_component: only the component reads its global"
        fail=1
    fi
done
if [ "$nfiles" -eq 0 ]; then
    echo "FAIL no sources under $src"
    exit 1
fi

# calls: the symbols each room's object uses, against the room defining them
objdir=${BUILDDIR:-}/ompi-coll-rdma/.libs
calls="calls not checked (no objects under '$objdir': set BUILDDIR to a build)"
if [ -n "${BUILDDIR:-}" ] && compgen -G "$objdir/coll_rdma*.o" >/dev/null && command -v nm >/dev/null; then
    declare -A owner=()
    nobj=0
    for o in "$objdir"/coll_rdma*.o; do
        room=$(room_of "${o%.o}.c")
        for sym in $(nm --defined-only "$o" | awk '$2 ~ /^[TDRBCGSV]$/ {print $3}'); do
            owner[$sym]=$room
        done
    done
    for o in "$objdir"/coll_rdma*.o; do
        nobj=$((nobj + 1))
        room=$(room_of "${o%.o}.c")
        if [ -z "${floor[$room]+x}" ]; then
            echo "FAIL $(basename "$o"): room '$room' has no floor in tests/unit/test_layers.sh"
            fail=1
            continue
        fi
        for sym in $(nm -u "$o" | awk '{print $2}' | grep -E '^(mca_)?coll_rdma'); do
            other=${owner[$sym]:-}
            [ -z "$other" ] || [ "$other" = "$room" ] && continue
            # declared in the room's own header: an interface the rooms above
            # implement (the plans' table of the families' plan functions)
            [ -f "$src/coll_rdma_$room.h" ] && grep -qw "$sym" "$src/coll_rdma_$room.h" && continue
            if [ -z "${floor[$other]+x}" ] || [ "${floor[$other]}" -ge "${floor[$room]}" ]; then
                echo "FAIL $(basename "$o") (floor ${floor[$room]}, $room) uses $sym of room $other (floor ${floor[$other]:-none}): a call that does not point down"
                fail=1
            fi
        done
    done
    calls="every call of the $nobj objects to a lower floor"
fi
if [ "$fail" -eq 0 ]; then
    echo "PASS layers: $nfiles files, every include points to a lower floor; $calls"
fi
exit $fail
