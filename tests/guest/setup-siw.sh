#!/bin/bash
# In-guest Soft-iWARP setup, sourced by the siw cases after setup-rdma.sh has made veth0/veth1: loads the siw.ko
# that tools/build-siw.sh built for this kernel (libcrc32c first), REMOVES the rxe links (with rxe and siw on one
# netdev, rdma_cm may resolve an address to either device), and adds siw0 on veth0 and siw1 on veth1 (same
# addresses, 198.18.0.1/.2). Then exports RDMA_TEST_DEV0/1=siw0/siw1 and GID0/1=0 (iWARP GIDs are the MAC, one
# per port), waits for ACTIVE ports. Undo with `siw_teardown` (siw links removed, rxe links back).
# On failure sets SIW_SETUP_ERROR and returns 1.
siw_setup() {
    local kver ko dev net i st
    SIW_SETUP_ERROR=""
    kver=$(uname -r)
    ko=${SIW_KO:-$REPO/build/siw/$kver/siw.ko}
    if [[ ! -f $ko ]]; then
        SIW_SETUP_ERROR="no $ko (tools/build-siw.sh builds it on the host)"
        return 1
    fi
    modprobe libcrc32c 2>/dev/null
    if [[ ! -d /sys/module/siw ]] && ! insmod "$ko" 2> "$WORK/insmod.log"; then
        SIW_SETUP_ERROR="insmod $ko: $(cat "$WORK/insmod.log")"
        return 1
    fi
    for dev in rxe0 rxe1; do
        [[ -d /sys/class/infiniband/$dev ]] && rdma link delete "$dev" 2>/dev/null
    done
    for pair in "siw0 veth0" "siw1 veth1"; do
        read -r dev net <<< "$pair"
        if [[ ! -d /sys/class/infiniband/$dev ]] && ! rdma link add "$dev" type siw netdev "$net" 2> "$WORK/link.log"; then
            SIW_SETUP_ERROR="rdma link add $dev type siw netdev $net: $(cat "$WORK/link.log")"
            return 1
        fi
    done
    for dev in siw0 siw1; do
        for i in $(seq 100); do
            read -r st _ < "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null
            [[ $st == 4: ]] && break
            sleep 0.1
        done
        if [[ $st != 4: ]]; then
            SIW_SETUP_ERROR="$dev port not ACTIVE (state $st)"
            return 1
        fi
    done
    export RDMA_TEST_DEV0=siw0 RDMA_TEST_DEV1=siw1 RDMA_TEST_GID0=0 RDMA_TEST_GID1=0
    DEV0=siw0 DEV1=siw1 GID0=0 GID1=0
    return 0
}

siw_teardown() {
    local dev
    for dev in siw0 siw1; do
        [[ -d /sys/class/infiniband/$dev ]] && rdma link delete "$dev" 2>/dev/null
    done
    rdma link add rxe0 type rxe netdev veth0 2>/dev/null
    rdma link add rxe1 type rxe netdev veth1 2>/dev/null
    export RDMA_TEST_DEV0=rxe0 RDMA_TEST_DEV1=rxe1
}
