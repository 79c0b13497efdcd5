#!/bin/bash
# Debian's unmodified binaries start against OUR libraries (LD_LIBRARY_PATH=build/lib, and LD_PRELOAD): the dynamic
# linker resolves every symbol and version under LD_BIND_NOW, and its trace (LD_DEBUG=files) shows our files
# initialised, not the system's. Exit status of the programs is not judged here (behaviour is in later cases).
set -u
source "$(dirname "$0")/../lib/testlib.sh"

trace() {   # trace NAME LIBS-MODE CHECK-LIBS CMD...
    local name=$1 mode=$2 libs=$3; shift 3
    # shellcheck disable=SC2046
    env $(libenv "$mode") LD_BIND_NOW=1 LD_DEBUG=files timeout 10 "$@" > "$WORK/$name.log" 2>&1
    ldso_check "$name" "$WORK/$name.log" "$libs"
}

trace load-ibv_devices ours libibverbs ibv_devices
trace load-ibv_devinfo ours libibverbs ibv_devinfo
trace load-ibv_rc_pingpong ours libibverbs ibv_rc_pingpong -d "$DEV0" -g "$GID0" -n 1 -p 18600
trace load-rping ours "libibverbs librdmacm" rping -s -a "$IP0" -C 1 -p 7300
trace load-ib_write_bw ours "libibverbs" ib_write_bw -d "$DEV0" -x "$GID0" -p 18601
trace load-ucmatose ours "libibverbs librdmacm" ucmatose -b "$IP0" -c 1
trace preload-ibv_devinfo preload libibverbs ibv_devinfo
trace preload-rping preload "libibverbs librdmacm" rping -s -a "$IP0" -C 1 -p 7301

summary load
(( failed == 0 ))
