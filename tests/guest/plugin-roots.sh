#!/bin/bash
# Another Debian release's rdma-core plug-ins under OUR libibverbs, inside that release's root (a debootstrap tree
# with ibverbs-utils, rdmacm-utils, perftest, ibverbs-providers), chrooted, in the test guest:
#
#   tests/guest/run [GUEST_KERNEL=...] -- bash tests/guest/plugin-roots.sh ROOT [ROOT...]
#
# ROOT is e.g. /work/roots/trixie (rdma-core 56.1, PABI 34 of the 56 generation) or /work/roots/sid (65.0, PABI
# 65). The root is used read-only: /proc, /sys, /dev are bound into it, a tmpfs covers its /tmp, and our build/lib is
# bound on its /mnt (all inside the guest, gone at power-off).
#
# 1. every plug-in of the root (its provider directory's lib*-rdmav*.so and the shared provider libraries) loads
#    with RTLD_NOW under ours and registers, with the generation our library decided (logged);
# 2. with RDMAV_PROVIDER=plugin the root's C rxe plug-in serves rxe0/rxe1 (ibv_devices lists them; the maps of a
#    running server show the root's plug-in and our libibverbs);
# 3. the root's own programs over ours on both sides, through that plug-in: ibv_rc_pingpong (plain, -e, and -N,
#    the ibv_wr_* API on an extended QP, which needs the generation's verbs_qp layout), rping and ib_write_bw; the
#    same pairs with the root's own libraries first, as the reference.
#
# PLUGIN_ROOTS_PROGRAMS=host runs this machine's own ibv_devices, ibv_rc_pingpong and rping (rdma-core 44's,
# copied into the root's /tmp) over ours instead of the root's, for a root whose programs need what our libraries
# do not export yet (sid's need IBVERBS_1.15-1.18); the root's plug-ins are what is tested either way.
set -u
source "$(dirname "$0")/lib/testlib.sh"

(( $# )) || { echo "usage: plugin-roots.sh ROOT..."; exit 2; }
loader_c="$WORK/plugin_load.c"
cat > "$loader_c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
/* dlopen each argument with RTLD_NOW (every undefined symbol bound now, or the load fails). */
int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL);
		if (!h) {
			printf("NOLOAD %s: %s\n", argv[i], dlerror());
			bad++;
		} else {
			printf("LOADED %s\n", argv[i]);
		}
	}
	return bad != 0;
}
EOF

for R in "$@"; do
    rel=$(basename "$R")
    if [[ ! -x $R/usr/bin/ibv_rc_pingpong ]]; then
        fail "$rel/root" "no rdma-core programs in $R"
        continue
    fi
    mount --bind /proc "$R/proc" && mount --bind /sys "$R/sys" && mount --bind /dev "$R/dev" &&
        mount -t tmpfs tmpfs "$R/tmp" && mount --bind "$OURS" "$R/mnt" ||
        { fail "$rel/mounts" "could not bind /proc /sys /dev, $OURS into $R"; continue; }
    pass "$rel/mounts" "rdma-core $(sed -n 's/^Version: //p' <(awk '/^Package: ibverbs-providers$/,/^$/' "$R/var/lib/dpkg/status"))"
    in_root() { timeout "$T" chroot "$R" /usr/bin/env "$@"; }
    ours=(LD_LIBRARY_PATH=/mnt RDMAV_PROVIDER=plugin)
    bin=""
    if [[ ${PLUGIN_ROOTS_PROGRAMS:-} == host ]]; then
        mkdir -p "$R/tmp/bin"
        cp /usr/bin/ibv_devices /usr/bin/ibv_rc_pingpong /usr/bin/rping "$R/tmp/bin/"
        bin=/tmp/bin/
    fi

    # --- 1. every plug-in loads and registers
    gcc -o "$R/tmp/plugin_load" "$loader_c" -ldl || { fail "$rel/loader" "gcc"; continue; }
    pdir=/usr/lib/x86_64-linux-gnu/libibverbs
    sos=()
    for f in "$R$pdir"/lib*-rdmav*.so; do sos+=("$pdir/${f##*/}"); done
    for lib in libmlx5.so.1 libefa.so.1 libhns.so.1 libmana.so.1 libmlx4.so.1 libionic.so.1; do
        [[ -e $R/usr/lib/x86_64-linux-gnu/$lib ]] && sos+=("/usr/lib/x86_64-linux-gnu/$lib")
    done
    (( ${#sos[@]} >= 17 )) && pass "$rel/plugins" "${#sos[@]} plug-ins and provider libraries" ||
        fail "$rel/plugins" "only ${#sos[@]} found in $R$pdir"
    for so in "${sos[@]}"; do
        out=$(in_root LD_LIBRARY_PATH=/mnt VERBS_LOG_LEVEL=4 /tmp/plugin_load "$so" 2>&1)
        if ! grep -q "^LOADED $so" <<< "$out"; then
            fail "$rel/load/${so##*/}" "$(grep NOLOAD <<< "$out")"
        elif ! grep -q "registered provider plug-in '[^']*' (match table: [1-9]" <<< "$out"; then
            fail "$rel/load/${so##*/}" "loaded, no registration in our log: $(tail -3 <<< "$out")"
        else
            pass "$rel/load/${so##*/}" "$(grep -o "registered provider plug-in .*" <<< "$out" | head -1)"
        fi
    done

    # --- 2. the root's rxe plug-in serves the devices
    out=$(in_root "${ours[@]}" VERBS_LOG_LEVEL=4 ${bin}ibv_devices 2>&1)
    if grep -q "rxe0" <<< "$out" && grep -q "rxe1" <<< "$out" && grep -q "served by provider plug-in 'rxe'" <<< "$out"; then
        pass "$rel/devices" "$(grep -o "rxe0: served by .*" <<< "$out" | head -1)"
    else
        fail "$rel/devices" "$(tail -5 <<< "$out")"
    fi
    port=$((18900 + RANDOM % 100))
    in_root "${ours[@]}" ${bin}ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p "$port" > "$WORK/$rel.maps.srv" 2>&1 &
    spid=$!
    wait_tcp_listen "$port" 20
    spid2=$(pgrep -n -f "ibv_rc_pingpong -d $DEV0 -g $GID0 -p $port")
    cp "/proc/$spid2/maps" "$WORK/$rel.maps" 2>/dev/null
    kill "$spid2" 2>/dev/null; wait "$spid" 2>/dev/null
    # The maps name the files by their paths outside the chroot.
    if grep -q " $R/mnt/libibverbs.so.1" "$WORK/$rel.maps" && grep -q "$R$pdir/librxe-rdmav" "$WORK/$rel.maps" &&
        ! grep -q "x86_64-linux-gnu/libibverbs.so" "$WORK/$rel.maps"; then
        pass "$rel/maps" "our libibverbs and $(grep -o "librxe-rdmav[0-9]*.so" "$WORK/$rel.maps" | head -1) mapped"
    else
        fail "$rel/maps" "want /mnt/libibverbs.so.1 and the root's librxe, not its libibverbs" "$WORK/$rel.maps"
    fi

    # --- 3. the root's programs over ours (then over its own libraries, the reference)
    rpair() {   # rpair NAME LIBS PORT "SERVER ARGS" "CLIENT ARGS" [CLIENT_GREP]
        local name=$1 libs=$2 port=$3 sargs=$4 cargs=$5 want=${6:-} slog clog spid crc src env_
        slog="$WORK/${name//\//_}.srv" clog="$WORK/${name//\//_}.cli"
        case $libs in
        ours) env_=("${ours[@]}") ;;
        ours-44) env_=("${ours[@]}" RDMAV_PLUGIN_GENERATION=44) ;;
        *) env_=(RDMA_STOCK=1) ;;
        esac
        # shellcheck disable=SC2086
        in_root "${env_[@]}" $sargs > "$slog" 2>&1 &
        spid=$!
        if [[ $port == - ]]; then sleep 1; else wait_tcp_listen "$port" 20; fi
        # shellcheck disable=SC2086
        in_root "${env_[@]}" $cargs > "$clog" 2>&1
        crc=$?
        wait "$spid"; src=$?
        if (( crc == 0 && src == 0 )) && { [[ -z $want ]] || grep -Eq "$want" "$clog"; }; then
            pass "$name" "$(grep -Eo "${want:-.}.*" "$clog" | head -1)"
        else
            fail "$name" "server rc $src, client rc $crc" "$slog" "$clog"
        fi
    }
    for libs in ours stock; do
        b=$bin
        [[ $libs == stock ]] && b=""
        p=$((19000 + RANDOM % 500))
        rpair "$rel/$libs/rc_pingpong" $libs $p "${b}ibv_rc_pingpong -d $DEV0 -g $GID0 -p $p -n 200" \
            "${b}ibv_rc_pingpong -d $DEV1 -g $GID1 -p $p -n 200 $IP0" "bytes in"
        p=$((p + 1))
        rpair "$rel/$libs/rc_pingpong-e" $libs $p "${b}ibv_rc_pingpong -d $DEV0 -g $GID0 -p $p -n 200 -e" \
            "${b}ibv_rc_pingpong -d $DEV1 -g $GID1 -p $p -n 200 -e $IP0" "bytes in"
        p=$((p + 1))
        rpair "$rel/$libs/rc_pingpong-N" $libs $p "${b}ibv_rc_pingpong -d $DEV0 -g $GID0 -p $p -n 200 -N" \
            "${b}ibv_rc_pingpong -d $DEV1 -g $GID1 -p $p -n 200 -N $IP0" "bytes in"
        p=$((p + 1))
        rpair "$rel/$libs/rping" $libs - "${b}rping -s -a $IP0 -p $p -C 20" "${b}rping -c -a $IP0 -p $p -C 20 -v" \
            "ping data"
        p=$((p + 1))
        if [[ -z $b ]]; then
            rpair "$rel/$libs/ib_write_bw" $libs $p "ib_write_bw -d $DEV0 -x $GID0 -p $p -n 200 -F" \
                "ib_write_bw -d $DEV1 -x $GID1 -p $p -n 200 -F $IP0" "^ *65536 "
        fi
    done
    # The negative control of the generation rule: told that trixie's plug-in was built by rdma-core 44, our
    # library reads its QPs' comp_mask 8 bytes early, finds no VERBS_QP_EX, and ibv_qp_to_qp_ex answers NULL.
    if [[ $rel == trixie ]]; then
        p=$((19600 + RANDOM % 100))
        in_root "${ours[@]}" RDMAV_PLUGIN_GENERATION=44 timeout 10 ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p "$p" \
            -n 5 -N > "$WORK/$rel.wronggen.srv" 2>&1 &
        spid=$!
        wait_tcp_listen "$p" 10
        in_root "${ours[@]}" RDMAV_PLUGIN_GENERATION=44 timeout 10 ibv_rc_pingpong -d "$DEV1" -g "$GID1" -p "$p" \
            -n 5 -N "$IP0" > "$WORK/$rel.wronggen.cli" 2>&1
        crc=$?
        wait "$spid"
        if (( crc != 0 )); then
            pass "$rel/wrong-generation-fails" "rc $crc: $(grep -v '^ *local\|remote' "$WORK/$rel.wronggen.cli" | head -1)"
        else
            fail "$rel/wrong-generation-fails" "ibv_rc_pingpong -N passed with RDMAV_PLUGIN_GENERATION=44" \
                "$WORK/$rel.wronggen.cli"
        fi
    fi
    umount "$R/mnt" "$R/tmp" "$R/dev" "$R/sys" "$R/proc"
done
summary plugin-roots
(( failed == 0 ))
