#!/bin/bash
# rdma-core's provider plug-ins under OUR libibverbs (issue: IBVERBS_PRIVATE_34 for real).
#
# 1. Every plug-in Debian ships (each /etc/libibverbs.d/*.driver entry, and the directly linked libmlx5.so.1,
#    libefa.so.1, libmlx4.so.1, libmana.so.1) loads under our libibverbs with RTLD_NOW (every import resolved), and
#    registers itself with its match table (our debug log names both).
# 2. With RDMAV_PROVIDER=plugin, Debian's C rxe provider (librxe-rdmav34.so) serves rxe0/rxe1: proven from the
#    process maps of a running server (the plug-in and OUR libibverbs mapped, the system's libibverbs not), and
#    RDMAV_PROVIDER=native never maps it.
# 3. The verbs and CM cases (20, 25, 30, 35, 51) run again with RDMAV_PROVIDER=plugin, their check names prefixed
#    with "plugin/": the same assertions, now through the plug-in (PLUGIN_CASES="" skips them, for quick runs).
# 4. ibv_reg_dmabuf_mr and ibv_reg_mr_ex's dma-buf form reach a plug-in's reg_dmabuf_mr op: Debian's librxe has
#    none, so tests/guest/lib/dmabuf_shim.so (LD_PRELOAD) gives it one that records its calls; tests/c/verbs_dmabuf
#    with RDMA_TEST_DMABUF_SHIM=1, through rdma-core 44 first (the reference), then ours ("plugin-dmabuf/<libs>/").
set -u
source "$(dirname "$0")/../lib/testlib.sh"

PLUGDIR=/usr/lib/x86_64-linux-gnu/libibverbs
SYSLIB=/usr/lib/x86_64-linux-gnu

# --- 1. every plug-in loads with RTLD_NOW and registers ------------------------------------------------------------
loader="$WORK/plugin_load"
if ! gcc -o "$loader" "$REPO/tests/guest/lib/plugin_load.c" -L"$OURS" -Wl,--no-as-needed -libverbs -ldl \
        2> "$WORK/plugin_load.cc"; then
    fail plugin-load-compile "$(cat "$WORK/plugin_load.cc")"
else
    names=()
    for f in /etc/libibverbs.d/*.driver; do
        n=$(awk '$1 == "driver" { print $2; exit }' "$f")
        [[ -n "$n" ]] && names+=("$n")
    done
    (( ${#names[@]} >= 17 )) && pass plugin-driver-files "${#names[@]} .driver entries" \
        || fail plugin-driver-files "only ${#names[@]} .driver entries in /etc/libibverbs.d"
    for n in "${names[@]}"; do
        so="$PLUGDIR/lib$n-rdmav34.so"
        out=$(LD_LIBRARY_PATH="$OURS" VERBS_LOG_LEVEL=4 timeout 20 "$loader" "$so" 2>&1)
        if ! grep -q "^LOADED $so" <<< "$out"; then
            fail "plugin-load/$n" "$(grep NOLOAD <<< "$out")"
        elif ! grep -q "registered provider plug-in '[^']*' (match table: [1-9]" <<< "$out"; then
            fail "plugin-load/$n" "loaded but no registration with a match table in our log: $(tail -3 <<< "$out")"
        else
            pass "plugin-load/$n" "$(grep -o "registered provider plug-in .*" <<< "$out" | head -1)"
        fi
    done
    for lib in libmlx5.so.1 libefa.so.1 libmlx4.so.1 libmana.so.1; do
        out=$(LD_LIBRARY_PATH="$OURS" VERBS_LOG_LEVEL=4 timeout 20 "$loader" "$SYSLIB/$lib" 2>&1)
        if grep -q "^LOADED" <<< "$out" && grep -q "registered provider plug-in" <<< "$out"; then
            pass "plugin-load/$lib" "$(grep -o "registered provider plug-in .*" <<< "$out" | head -1)"
        else
            fail "plugin-load/$lib" "$(tail -3 <<< "$out")"
        fi
    done
fi

# --- 2. which provider ran: the maps of a live process -------------------------------------------------------------
maps_check() {   # maps_check NAME MODE MUST_MAP MUST_NOT_MAP
    local name=$1 mode=$2 want=$3 nowant=$4 port=$((18700 + RANDOM % 200))
    # Started directly (not under `timeout`, whose pid would be the one we got): killed below.
    RDMAV_PROVIDER=$mode LD_LIBRARY_PATH="$OURS" ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p "$port" \
        > "$WORK/$name.srv" 2>&1 &
    local pid=$! i
    # The server opens the device before it listens on its TCP port: then every library is mapped.
    wait_tcp_listen "$port" 20
    cp "/proc/$pid/maps" "$WORK/$name.maps" 2>/dev/null
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    if ! grep -q "$OURS/libibverbs.so.1" "$WORK/$name.maps"; then
        fail "$name" "our libibverbs not mapped"
    elif grep -q "$SYSLIB/libibverbs.so.1" "$WORK/$name.maps"; then
        fail "$name" "the system's libibverbs is mapped"
    elif [[ -n $want ]] && ! grep -q "$want" "$WORK/$name.maps"; then
        fail "$name" "$want not mapped"
    elif [[ -n $nowant ]] && grep -q "$nowant" "$WORK/$name.maps"; then
        fail "$name" "$nowant mapped"
    else
        pass "$name" "${want:+$want mapped}${nowant:+$nowant not mapped}"
    fi
}
maps_check plugin-maps-plugin plugin librxe-rdmav34.so ""
maps_check plugin-maps-native native "" rdmav34.so

# --- 3. the verbs and CM suites through the plug-in --------------------------------------------------------------
export RDMAV_PROVIDER=plugin
for c in ${PLUGIN_CASES-20-verbs-debian 25-verbs-c 30-cm-debian 35-cm-c 51-manual}; do
    bash "$(dirname "$0")/$c.sh" 2>&1 | sed -e 's/^PASS /PASS plugin\//' -e 's/^FAIL /FAIL plugin\//' > "$WORK/plugin-$c.out"
    cat "$WORK/plugin-$c.out"
    passed=$((passed + $(grep -c '^PASS ' "$WORK/plugin-$c.out")))
    failed=$((failed + $(grep -c '^FAIL ' "$WORK/plugin-$c.out")))
done
unset RDMAV_PROVIDER

# --- 4. a plug-in's reg_dmabuf_mr op -------------------------------------------------------------------------------
shim="$WORK/dmabuf_shim.so"
if ! gcc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o "$shim" "$REPO/tests/guest/lib/dmabuf_shim.c" \
        -Wl,--version-script="$REPO/tests/guest/lib/dmabuf_shim.map" -ldl 2> "$WORK/dmabuf_shim.cc"; then
    fail plugin-dmabuf/compile "$(cat "$WORK/dmabuf_shim.cc")"
elif [[ ! -x $REPO/tests/out/c/verbs_dmabuf ]]; then
    fail plugin-dmabuf/compile "tests/out/c/verbs_dmabuf not built (tests/c/compile.sh)"
else
    for mode in stock ours; do
        # shellcheck disable=SC2046
        env $(rpathenv "$mode") LD_PRELOAD="$shim" RDMAV_PROVIDER=plugin RDMA_TEST_DMABUF_SHIM=1 \
            timeout 60 "$REPO/tests/out/c/verbs_dmabuf" > "$WORK/dmabuf-$mode.log" 2>&1
        rc=$?
        sed -n -e "s|^PASS |PASS plugin-dmabuf/$mode/|p" -e "s|^FAIL |FAIL plugin-dmabuf/$mode/|p" -e '/^# /p' \
            "$WORK/dmabuf-$mode.log"
        passed=$((passed + $(grep -c '^PASS ' "$WORK/dmabuf-$mode.log")))
        failed=$((failed + $(grep -c '^FAIL ' "$WORK/dmabuf-$mode.log")))
        if (( rc != 0 )) && ! grep -q '^FAIL ' "$WORK/dmabuf-$mode.log"; then
            fail "plugin-dmabuf/$mode/exit" "exit $rc without a FAIL line" "$WORK/dmabuf-$mode.log"
        fi
    done
fi

summary plugin
(( failed == 0 ))
