#!/usr/bin/env bash
# The plug-in command comparison: rdma-core 44's ibv_cmd_* (Debian's libibverbs.so.1) against ours, byte for byte.
#
#   tests/plugin-cmd/run.sh [LIBDIR]
#
# driver.c calls the provider interface (IBVERBS_PRIVATE_34: the ibv_cmd_*, execute_ioctl, verbs_init_cq) with
# the same inputs, as a provider plug-in would, once in rdma-core's library and once in ours (LIBDIR/libibverbs.so.1,
# default $RDMA_CORE_RS_LIBDIR, else build/lib). interpose.c (LD_PRELOAD) plays the kernel on a fake command fd:
# it logs every write() and RDMA_VERBS_IOCTL and answers with canned responses; ioctls without a canned answer get
# ENOTTY, so rdma-core takes its write fallback (those probes are not compared: which ABI is tried first is each
# library's choice, see src/kernel/mod.rs). All buffers and objects live in a fixed-address arena, so user handles
# and response addresses are equal in both runs; addresses of a library's own buffers are logged as LOCAL.
# Compared per command: the bytes written, the ioctl headers and attributes, the return code and the fields the
# command fills. Our library finds a fake Soft-RoCE device in a fake sysfs tree (netlink is made to fail); its
# context belongs to no plug-in whose generation could be detected, so RDMAV_PLUGIN_GENERATION=44 tells it to serve
# rdma-core 44's layouts (docs/providers.md, "Generations").
#
# The last line: `plugin-cmd: N commands compared, N differ`. Exit status 0 only when nothing differs and N > 0.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/tests/plugin-cmd"
LIBDIR=${1:-${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}}
REF=${REF_LIBIBVERBS:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}
OURS="$LIBDIR/libibverbs.so.1"
[ -e "$OURS" ] || OURS="$LIBDIR/libibverbs.so"

fail() {
    echo "FAIL $*"
    echo "plugin-cmd: 0 commands compared, 1 differ"
    exit 1
}
[ -e "$OURS" ] || fail "no $OURS (build with 'make lib')"
[ -e "$REF" ] || fail "no reference $REF (rdma-core 44's libibverbs1)"
command -v cc >/dev/null || fail "no C compiler"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/plugin-cmd.XXXXXX")
[ -n "${PLUGIN_CMD_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

CFLAGS="-std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-missing-field-initializers -I$HERE"
cc $CFLAGS -shared -fPIC -o "$WORK/libplugcmd.so" "$HERE/interpose.c" -ldl || fail "building interpose.c"
cc $CFLAGS -o "$WORK/driver" "$HERE/driver.c" -L"$WORK" -lplugcmd -Wl,-rpath,"$WORK" -ldl -lpthread ||
    fail "building driver.c"

# A Soft-RoCE device as sysfs shows one, for our library's discovery.
S="$WORK/sys"
mkdir -p "$S/class/infiniband_verbs/uverbs0" "$S/class/infiniband/rxe0"
echo 6 >"$S/class/infiniband_verbs/abi_version"
echo rxe0 >"$S/class/infiniband_verbs/uverbs0/ibdev"
echo 231:192 >"$S/class/infiniband_verbs/uverbs0/dev"
echo 2 >"$S/class/infiniband_verbs/uverbs0/abi_version"
echo "1: CA" >"$S/class/infiniband/rxe0/node_type"

run() { # LIB LOG MODE
    env LD_PRELOAD="$WORK/libplugcmd.so" SYSFS_PATH="$S" RDMAV_PROVIDER=native RDMAV_PLUGIN_GENERATION=44 \
        "$WORK/driver" "$1" "$2" "$3" \
        >"$2.out" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || { sed 's/^/    /' "$2.out" | tail -20; fail "driver ($3) exited with status $rc"; }
}
run "$REF" "$WORK/ref.log" ref
run "$OURS" "$WORK/ours.log" ours

python3 - "$WORK/ref.log" "$WORK/ours.log" <<'PY'
import difflib, sys

def blocks(path):
    out, label = {}, None
    order = []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("== "):
            label = line[3:]
            order.append(label)
            out[label] = []
        elif line.startswith("X "):
            continue  # an ioctl answered ENOTTY: a probe before the write fallback
        elif label is not None:
            out[label].append(line)
    return order, out

ro, ref = blocks(sys.argv[1])
oo, ours = blocks(sys.argv[2])
compared = differ = 0
if ro != oo:
    print("FAIL the two runs executed different command sequences")
    for l in difflib.unified_diff(ro, oo, "rdma-core", "ours", lineterm="", n=1):
        print("    " + l)
    differ += 1
for label in ro:
    r, o = ref.get(label, []), ours.get(label)
    if o is None:
        continue
    syscalls = sum(1 for l in r if l[:2] in ("W ", "I "))
    if syscalls:
        compared += 1
    if r != o:
        differ += 1
        print(f"FAIL {label}")
        for l in difflib.unified_diff(r, o, "rdma-core", "ours", lineterm="", n=0):
            print("    " + l)
    else:
        print(f"PASS {label} ({syscalls} kernel command{'s' if syscalls != 1 else ''})")
print(f"plugin-cmd: {compared} commands compared, {differ} differ")
sys.exit(0 if differ == 0 and compared > 0 else 1)
PY
