# shellcheck shell=bash disable=SC2016,SC2034
# Hosts made of network namespaces, for the multi-host cases of
# run_robust_tests.sh (docs/reliability.md, case 8).  Source it from bash
# after common.sh; it defines functions and variables only.
#
# netns_setup N: N "hosts" (2 to 4), each a network namespace with one veth
# (eth0) into a bridge in the root namespace, which holds mpirun's address
# (.1); host i is 10.213.S.(i+2) with the name rdma-nsS-hI in /etc/hosts.
# An rsh agent (NETNS_AGENT) starts Open MPI's daemons in the namespace of
# the host named, in a UTS namespace whose hostname is that name (Open MPI
# tells hosts apart by name) and a mount namespace in which
# /proc/sys/kernel/random/boot_id is the host's own (UCX tells hosts apart by
# boot id: ucs_get_system_id).  So processes of one host use shared memory,
# processes of two hosts only TCP between the namespaces, although /dev/shm
# and /proc are in fact shared.
#
# Returns 0 when ready; otherwise NETNS_SKIP holds why the machine cannot do
# it (no root, no ip, no network namespaces) and everything made is removed.
# netns_teardown removes namespaces, veths, bridge and /etc/hosts lines; the
# runner calls it on exit and on interruption.

NETNS_TAG=
NETNS_HOSTS=
NETNS_AGENT=
NETNS_SUBNET=
NETNS_SKIP=

netns_teardown() {
    local i tmp
    [ -n "$NETNS_TAG" ] || return 0
    for i in 0 1 2 3; do
        ip netns del "${NETNS_TAG}n$i" 2>/dev/null
        ip link del "${NETNS_TAG}v$i" 2>/dev/null
    done
    ip link del "${NETNS_TAG}br" 2>/dev/null
    if grep -q "# $NETNS_TAG\$" /etc/hosts 2>/dev/null; then
        # rewrite in place: /etc/hosts may be a bind mount that rename cannot replace
        tmp=$(mktemp)
        grep -v "# $NETNS_TAG\$" /etc/hosts >"$tmp" && cat "$tmp" >/etc/hosts
        rm -f "$tmp"
    fi
    NETNS_TAG=
}

netns_setup() {
    local n=$1 i s name
    NETNS_SKIP=
    if [ "$(id -u)" != 0 ]; then
        NETNS_SKIP="needs root (network namespaces, veth, /etc/hosts)"
        return 1
    fi
    for c in ip unshare; do
        if ! command -v "$c" >/dev/null 2>&1; then
            NETNS_SKIP="no $c command (Debian: iproute2, util-linux)"
            return 1
        fi
    done
    s=$(($$ % 200 + 20))
    NETNS_TAG="rdt$$"
    NETNS_SUBNET="10.213.$s"
    NETNS_HOSTS=
    if ! ip netns add "${NETNS_TAG}n0" 2>"$RDMA_LOGDIR/netns.err"; then
        NETNS_SKIP="cannot create a network namespace: $(head -c 200 "$RDMA_LOGDIR/netns.err")"
        netns_teardown
        return 1
    fi
    if ! {
        ip link add "${NETNS_TAG}br" type bridge &&
            ip addr add "$NETNS_SUBNET.1/24" dev "${NETNS_TAG}br" &&
            ip link set "${NETNS_TAG}br" up
    } 2>>"$RDMA_LOGDIR/netns.err"; then
        NETNS_SKIP="cannot create a bridge: $(head -c 200 "$RDMA_LOGDIR/netns.err")"
        netns_teardown
        return 1
    fi
    for i in $(seq 0 $((n - 1))); do
        name="rdma-ns$s-h$i"
        if ! {
            { [ "$i" = 0 ] || ip netns add "${NETNS_TAG}n$i"; } &&
                ip link add "${NETNS_TAG}v$i" type veth peer name eth0 netns "${NETNS_TAG}n$i" &&
                ip link set "${NETNS_TAG}v$i" master "${NETNS_TAG}br" up &&
                ip netns exec "${NETNS_TAG}n$i" ip addr add "$NETNS_SUBNET.$((i + 2))/24" dev eth0 &&
                ip netns exec "${NETNS_TAG}n$i" ip link set eth0 up &&
                ip netns exec "${NETNS_TAG}n$i" ip link set lo up
        } 2>>"$RDMA_LOGDIR/netns.err"; then
            NETNS_SKIP="cannot set up host $i (veth): $(head -c 200 "$RDMA_LOGDIR/netns.err")"
            netns_teardown
            return 1
        fi
        echo "$NETNS_SUBNET.$((i + 2)) $name # $NETNS_TAG" >>/etc/hosts
        NETNS_HOSTS="$NETNS_HOSTS $name"
        cat /proc/sys/kernel/random/uuid >"$RDMA_LOGDIR/boot_id.h$i"
    done
    NETNS_AGENT=$RDMA_LOGDIR/netns-agent.sh
    {
        echo '#!/bin/sh'
        echo '# rsh agent of Open MPI: $1 is the host, the rest a shell command line'
        echo 'host=$1; shift'
        echo 'case "$host" in'
        i=0
        for name in $NETNS_HOSTS; do
            echo "$name) ns=${NETNS_TAG}n$i; boot=$RDMA_LOGDIR/boot_id.h$i ;;"
            i=$((i + 1))
        done
        echo '*) echo "netns-agent: unknown host $host" >&2; exit 1 ;;'
        echo 'esac'
        echo 'exec ip netns exec "$ns" unshare --uts --mount sh -c '"'"'hostname "$0" && mount --bind "$1" /proc/sys/kernel/random/boot_id && exec sh -c "$2"'"'"' "$host" "$boot" "$*"'
    } >"$NETNS_AGENT"
    chmod +x "$NETNS_AGENT"
    name=${NETNS_HOSTS# }
    if ! "$NETNS_AGENT" "${name%% *}" true 2>>"$RDMA_LOGDIR/netns.err"; then
        NETNS_SKIP="cannot start a process in a host (ip netns exec, unshare --uts --mount, bind mount of boot_id): $(head -c 200 "$RDMA_LOGDIR/netns.err")"
        netns_teardown
        return 1
    fi
    # the bridge needs a moment before the first connection
    i=0
    while [ $i -lt 30 ] && ! ip netns exec "${NETNS_TAG}n0" \
        bash -c "exec 3<>/dev/tcp/$NETNS_SUBNET.1/9" 2>&1 | grep -q refused; do
        sleep 0.1
        i=$((i + 1))
    done
    return 0
}

# --host argument: every host with `per` slots.
netns_host_arg() {
    local per=$1 h out=
    for h in $NETNS_HOSTS; do
        out="${out:+$out,}$h:$per"
    done
    echo "$out"
}
