#!/usr/bin/env bash
# The plug-in command comparison: rdma-core's ibv_cmd_* (Debian's libibverbs.so.1) against ours, byte for byte, for
# each release whose provider interface we serve: 44 (the system's, bookworm) and 56.1 (trixie's, from the root
# $RDMA_ROOTS_DIR/trixie, default build/roots/trixie) under IBVERBS_PRIVATE_34, 65.0 (sid's, $RDMA_ROOTS_DIR/sid)
# under IBVERBS_PRIVATE_65; a release whose root is absent is skipped with a note.
#
#   tests/plugin-cmd/run.sh [LIBDIR]
#
# driver.c calls the provider interface (the ibv_cmd_*, execute_ioctl, verbs_init_cq) with the same inputs, as a
# provider plug-in of that release would (it is compiled once per release: rdma-core 56's verbs_qp is 8 bytes
# longer, its ibv_cmd_reg_dmabuf_mr takes an 8th argument, it has ibv_cmd_create_cq_ex2; 65's verbs_context is 48
# bytes longer in front, and four ibv_cmd_* take new arguments), once
# in rdma-core's library and once in ours (LIBDIR/libibverbs.so.1, default $RDMA_CORE_RS_LIBDIR, else build/lib).
# trixie's and sid's libraries need their own C library: both runs of such a comparison are started by the root's
# own dynamic linker with its libraries on the library path. interpose.c (LD_PRELOAD) plays the kernel on a fake command fd:
# it logs every write() and RDMA_VERBS_IOCTL and answers with canned responses; ioctls without a canned answer get
# ENOTTY, so rdma-core takes its write fallback (those probes are not compared: which ABI is tried first is each
# library's choice, see src/kernel/mod.rs). All buffers and objects live in a fixed-address arena, so user handles
# and response addresses are equal in both runs; addresses of a library's own buffers are logged as LOCAL.
# Compared per command: the bytes written, the ioctl headers and attributes, the return code and the fields the
# command fills. Our library finds a fake Soft-RoCE device in a fake sysfs tree (netlink is made to fail); its
# context belongs to no plug-in whose generation could be detected, so RDMAV_PLUGIN_GENERATION tells it which
# release's layouts to serve (docs/providers.md, "Generations").
#
# The last line: `plugin-cmd: N commands compared, N differ` (all releases). Exit status 0 only when nothing differs
# and N > 0.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/tests/plugin-cmd"
LIBDIR=${1:-${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}}
REF=${REF_LIBIBVERBS:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}
TRIXIE=${RDMA_ROOTS_DIR:-$ROOT/build/roots}/trixie
SID=${RDMA_ROOTS_DIR:-$ROOT/build/roots}/sid
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
for r in 44 56 65; do
    cc $CFLAGS -DPC_RELEASE=$r -o "$WORK/driver$r" "$HERE/driver.c" -L"$WORK" -lplugcmd -Wl,-rpath,"$WORK" -ldl \
        -lpthread || fail "building driver.c for rdma-core $r"
done

# A Soft-RoCE device as sysfs shows one, for our library's discovery.
S="$WORK/sys"
mkdir -p "$S/class/infiniband_verbs/uverbs0" "$S/class/infiniband/rxe0"
echo 6 >"$S/class/infiniband_verbs/abi_version"
echo rxe0 >"$S/class/infiniband_verbs/uverbs0/ibdev"
echo 231:192 >"$S/class/infiniband_verbs/uverbs0/dev"
echo 2 >"$S/class/infiniband_verbs/uverbs0/abi_version"
echo "1: CA" >"$S/class/infiniband/rxe0/node_type"

run() { # RELEASE LIB LOG MODE [LOADER...]
    local r=$1 lib=$2 log=$3 mode=$4
    shift 4
    local gen=$r
    [ "$r" = 65 ] && gen=  # PABI 65 has one generation; the variable chooses between 34's two
    env LD_PRELOAD="$WORK/libplugcmd.so" SYSFS_PATH="$S" RDMAV_PROVIDER=native RDMAV_PLUGIN_GENERATION=$gen \
        "$@" "$WORK/driver$r" "$lib" "$log" "$mode" >"$log.out" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || { sed 's/^/    /' "$log.out" | tail -20; fail "driver $r ($mode) exited with status $rc"; }
}

compare() { # RELEASE
python3 - "$1" "$WORK/ref$1.log" "$WORK/ours$1.log" <<'PY'
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

release = sys.argv[1]
ro, ref = blocks(sys.argv[2])
oo, ours = blocks(sys.argv[3])
compared = differ = 0
if ro != oo:
    print(f"FAIL rdma-core {release}: the two runs executed different command sequences")
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
        print(f"FAIL {release}: {label}")
        for l in difflib.unified_diff(r, o, "rdma-core", "ours", lineterm="", n=0):
            print("    " + l)
    else:
        print(f"PASS {release}: {label} ({syscalls} kernel command{'s' if syscalls != 1 else ''})")
print(f"plugin-cmd rdma-core {release}: {compared} commands compared, {differ} differ")
PY
}

run 44 "$REF" "$WORK/ref44.log" ref
run 44 "$OURS" "$WORK/ours44.log" ours
compare 44 | tee "$WORK/cmp44"
if [ -e "$TRIXIE/usr/lib/x86_64-linux-gnu/libibverbs.so.1" ]; then
    T="$TRIXIE/usr/lib/x86_64-linux-gnu"
    rtld=("$T/ld-linux-x86-64.so.2" --library-path "$T")
    run 56 "$T/libibverbs.so.1" "$WORK/ref56.log" ref "${rtld[@]}"
    run 56 "$OURS" "$WORK/ours56.log" ours "${rtld[@]}"
    compare 56 | tee "$WORK/cmp56"
else
    echo "NOTE rdma-core 56: no trixie root at $TRIXIE (make deps, or set RDMA_ROOTS_DIR): not compared"
fi
if [ -e "$SID/usr/lib/x86_64-linux-gnu/libibverbs.so.1" ]; then
    T="$SID/usr/lib/x86_64-linux-gnu"
    rtld=("$T/ld-linux-x86-64.so.2" --library-path "$T")
    run 65 "$T/libibverbs.so.1" "$WORK/ref65.log" ref "${rtld[@]}"
    run 65 "$OURS" "$WORK/ours65.log" ours "${rtld[@]}"
    compare 65 | tee "$WORK/cmp65"
else
    echo "NOTE rdma-core 65: no sid root at $SID (make deps, or set RDMA_ROOTS_DIR): not compared"
fi
total=$(cat "$WORK"/cmp* | sed -n 's/^plugin-cmd rdma-core [0-9]*: \([0-9]*\) commands compared, \([0-9]*\) differ$/\1 \2/p' |
    awk '{ c += $1; d += $2 } END { print c + 0, d + 0 }')
read -r c d <<<"$total"
echo "plugin-cmd: $c commands compared, $d differ"
[ "$d" -eq 0 ] && [ "$c" -gt 0 ]
