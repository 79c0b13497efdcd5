#!/bin/bash
# In-guest Soft-RoCE setup. tests/guest/run calls it before the command; idempotent (safe to call again).
#   modules   veth, ib_uverbs, rdma_ucm, rdma_rxe
#   sysctls   accept_local=1 and rp_filter=0 on all/default/lo/veth0/veth1 (without them rxe0<->rxe1 traffic and
#             rdma_cm from 198.18.0.2 time out: both ends are local addresses of the one namespace)
#   network   veth0 198.18.0.1/24 <-> veth1 198.18.0.2/24, up; lo up (198.18/15 is the benchmark range and never
#             leaves the guest; rdma_cm cannot resolve routes on lo, hence the veth pair)
#   rdma      rxe0 on veth0, rxe1 on veth1; waits until both ports are ACTIVE and have their IPv4 GIDs
# Writes /run/rdma-test.env (RDMA_TEST_KERNEL, RDMA_TEST_DEV0/1, RDMA_TEST_NETDEV0/1, RDMA_TEST_IP0/1,
# RDMA_TEST_GID0/1 = index of the RoCE v2 GID that is the IPv4-mapped address) and prints one summary line.
# Exit status: 0 ok, 2 refused (not in the guest / not root), 3 module load failure, 4 sysctl / network setup
# failure, 5 rxe setup failure; the reason is on the last line, "setup-rdma: FAIL: <kind>: <details>".
#
# It rewires the network, so it refuses to run unless RDMA_GUEST=1 (tests/guest/run sets it) or given --force.
# Process start-up is slow in the TCG guest (~0.1-0.3 s per exec), so this uses shell builtins and batches.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

IP0=198.18.0.1 IP1=198.18.0.2 PREFIX=24
NET0=veth0 NET1=veth1 DEV0=rxe0 DEV1=rxe1
MODULES=(veth ib_uverbs rdma_ucm rdma_rxe)
WAIT=30   # seconds to wait for ACTIVE ports and GIDs

fail() { local code=$1 kind=$2; shift 2; echo "setup-rdma: FAIL: $kind: $*"; exit "$code"; }
rd() { local v=""; read -r v < "$1" 2>/dev/null; printf '%s' "$v"; }   # read a sysfs/proc file, "" if absent

if [[ "${RDMA_GUEST:-}" != 1 && "${1:-}" != --force ]]; then
    echo "setup-rdma: refusing to reconfigure this machine's network outside the test guest (set RDMA_GUEST=1 or pass --force)"
    exit 2
fi
(( EUID == 0 )) || fail 2 "not root" "must run as root"
KVER=$(rd /proc/sys/kernel/osrelease)

# --- modules -----------------------------------------------------------------------------------------------------
missing=()
for m in "${MODULES[@]}"; do [[ -d /sys/module/$m ]] || missing+=("$m"); done
if (( ${#missing[@]} )); then
    err=$(modprobe -a "${missing[@]}" 2>&1)
    for m in "${missing[@]}"; do
        [[ -d /sys/module/$m ]] || fail 3 "module load failure" "modprobe $m: ${err:-not loaded} (kernel $KVER)"
    done
fi

# --- sysctls + veth + addresses ------------------------------------------------------------------------------------
setsys() { echo "$2" > "/proc/sys/$1" 2>/dev/null || fail 4 "sysctl failure" "cannot set ${1//\//.}=$2"; }
conf_if() { setsys "net/ipv4/conf/$1/accept_local" 1; setsys "net/ipv4/conf/$1/rp_filter" 0; }
conf_if all; conf_if default; conf_if lo   # "default" first: veth0/veth1 created below inherit it

batch="link set lo up"$'\n'
[[ -d /sys/class/net/$NET0 ]] || batch+="link add $NET0 type veth peer name $NET1"$'\n'
batch+="addr replace $IP0/$PREFIX dev $NET0
addr replace $IP1/$PREFIX dev $NET1
link set $NET0 up
link set $NET1 up
"
err=$(ip -batch - <<< "$batch" 2>&1) || fail 4 "network setup failure" "ip: ${err//$'\n'/; }"
[[ -d /sys/class/net/$NET1 ]] || fail 4 "network setup failure" "$NET1 missing"
conf_if "$NET0"; conf_if "$NET1"; conf_if all

# --- rxe links -----------------------------------------------------------------------------------------------------
batch=""
for pair in "$DEV0 $NET0" "$DEV1 $NET1"; do
    read -r dev net <<< "$pair"
    [[ -d /sys/class/infiniband/$dev ]] || batch+="link add $dev type rxe netdev $net"$'\n'
done
if [[ -n "$batch" ]]; then
    err=$(rdma -b - <<< "$batch" 2>&1) || fail 5 "rxe setup failure" "rdma link add: ${err//$'\n'/; }"
fi
for pair in "$DEV0 $NET0" "$DEV1 $NET1"; do
    read -r dev net <<< "$pair"
    [[ -d /sys/class/infiniband/$dev ]] || fail 5 "rxe setup failure" "$dev missing after 'rdma link add'"
    nd=$(rd "/sys/class/infiniband/$dev/ports/1/gid_attrs/ndevs/0")
    [[ -z "$nd" || "$nd" == "$net" ]] || fail 5 "rxe setup failure" "$dev exists but is bound to $nd, not $net"
done

# IPv4-mapped GID of an address (::ffff:a.b.c.d) as sysfs prints it.
mapped_gid() { local a b c d; IFS=. read -r a b c d <<< "$1"; printf -v "$2" '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"; }
# Sets variable $3 to the index of dev $1's RoCE v2 GID equal to the GID $2, or to "".
gid_index() {
    local g i
    printf -v "$3" '%s' ""
    for g in /sys/class/infiniband/$1/ports/1/gids/*; do
        [[ "$(rd "$g")" == "$2" ]] || continue
        i=${g##*/}
        [[ "$(rd "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i")" == "RoCE v2" ]] && { printf -v "$3" '%s' "$i"; return; }
    done
}
mapped_gid "$IP0" want0; mapped_gid "$IP1" want1
deadline=$((SECONDS + WAIT))
while :; do
    s0=$(rd "/sys/class/infiniband/$DEV0/ports/1/state"); s1=$(rd "/sys/class/infiniband/$DEV1/ports/1/state")
    gid_index "$DEV0" "$want0" g0; gid_index "$DEV1" "$want1" g1
    [[ "$s0" == *ACTIVE* && "$s1" == *ACTIVE* && -n "$g0" && -n "$g1" ]] && break
    if (( SECONDS >= deadline )); then
        fail 5 "rxe setup failure" "after ${WAIT}s: $DEV0 state '${s0:-none}' ipv4 gid index '${g0:-none}';" \
            "$DEV1 state '${s1:-none}' ipv4 gid index '${g1:-none}'"
    fi
    sleep 0.1
done

nodes=(/dev/infiniband/*)
for n in uverbs0 uverbs1 rdma_cm; do
    [[ -c /dev/infiniband/$n ]] || fail 5 "rxe setup failure" "/dev/infiniband/$n missing (have: ${nodes[*]})"
done

printf '%s\n' "RDMA_TEST_KERNEL=$KVER" "RDMA_TEST_DEV0=$DEV0" "RDMA_TEST_DEV1=$DEV1" "RDMA_TEST_NETDEV0=$NET0" \
    "RDMA_TEST_NETDEV1=$NET1" "RDMA_TEST_IP0=$IP0" "RDMA_TEST_IP1=$IP1" "RDMA_TEST_GID0=$g0" "RDMA_TEST_GID1=$g1" \
    > /run/rdma-test.env || fail 5 "rxe setup failure" "cannot write /run/rdma-test.env"

echo "setup-rdma: ok: kernel $KVER; $DEV0 on $NET0 $IP0 (gid index $g0), $DEV1 on $NET1 $IP1 (gid index $g1); ${nodes[*]##*/}"
