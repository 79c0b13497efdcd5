#!/usr/bin/env bash
# The export test: our libibverbs.so.1 / librdmacm.so.1 against rdma-core 44's, as the dynamic linker sees them.
#
#   tests/exports/run.sh [LIBDIR]
#
# LIBDIR holds our libibverbs.so.1 and librdmacm.so.1 (default: $RDMA_CORE_RS_LIBDIR, else build/lib). The reference
# is the system's rdma-core 44 in $REF_LIBDIR (default /usr/lib/x86_64-linux-gnu; Debian bookworm's packages).
#
# Checks, each printing PASS/FAIL lines:
#  1. exports: every symbol@version rdma-core exports (default `@@` vs compat `@`, function vs data) is exported by
#     ours; anything we export beyond that (including unversioned symbols) is an extra; data sizes match.
#     The committed baselines abi/<lib>.symbols must equal the reference's export lists.
#  2. sonames; librdmacm has NEEDED libibverbs.so.1.
#  3. version definitions (readelf -V): same nodes and base name (parents reported, see below).
#  4. librdmacm's references into libibverbs: all versioned, each name@version defined by rdma-core's libibverbs,
#     the same version as rdma-core's librdmacm uses for the same name, and no needed version rdma-core lacks.
#  5. dynamic linking: `ldd -r` of Debian binaries (ibv_devinfo, rping, ib_write_bw) and of every rdma-core provider
#     (which import IBVERBS_PRIVATE_34) with LD_LIBRARY_PATH=LIBDIR: no undefined symbol, no missing version, and
#     our files chosen; then ibv_devices, ibv_devinfo, ib_write_bw --help (runs the libmlx5/libefa constructors that
#     call verbs_register_driver_34) and rping -h run under LD_BIND_NOW=1 and must start and exit without a loader
#     error or a signal, with LD_DEBUG=files showing our files loaded and no system copy.
# The last line is the summary: `exports: N symbols checked, N missing, N extra, N other problems`.
# Exit status 0 only when all of it passes.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIBDIR=${1:-${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}}
REF_LIBDIR=${REF_LIBDIR:-/usr/lib/x86_64-linux-gnu}
BASELINE="$ROOT/tools/symbol-baseline.sh"
LIBS="libibverbs librdmacm"

if ! LIBDIR=$(cd "$LIBDIR" 2>/dev/null && pwd); then
    echo "FAIL no library directory ${1:-${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}} (build with 'make lib')"
    echo "exports: 0 symbols checked, 0 missing, 0 extra, 1 other problems"
    exit 1
fi
for t in objdump readelf ldd awk comm; do
    command -v "$t" >/dev/null || { echo "FAIL missing tool: $t"; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/exports.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

checked=0 missing=0 extra=0 problems=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; problems=$((problems + 1)); }
# Prints its stdin indented (the detail under a FAIL line).
detail() { sed 's/^/    /'; }

# Defined dynamic symbols that have no version (objdump shows `Base`, or no version column at all), minus the
# version-definition entries. symbol-baseline.sh leaves these out, so they are collected here as extras.
unversioned_exports() {
    objdump -T "$1" | awk '
      /\*UND\*/ { next }
      NF >= 6 && ($2 ~ /^D[FO]?$/ || $3 ~ /^D[FO]?$/) {
        name = $NF; ver = $(NF-1)
        if (ver == name) next                                   # version definition entry
        if (ver == "Base" || ver ~ /^[0-9a-f]+$/) print name "@(unversioned)"
      }' | sort -u
}

# name size for every defined data symbol, keyed by its baseline spelling.
object_sizes() {
    objdump -T "$1" | awk '
      /\*UND\*/ { next }
      / DO / {
        name = $NF; ver = $(NF-1); size = $(NF-2)
        if (ver == name || ver == "Base") next
        if (ver ~ /^\(/) { gsub(/[()]/, "", ver); key = name "@" ver } else key = name "@@" ver
        print key, size
      }' | sort
}

# Version definitions as `NAME [parent PARENT]` lines, the base (soname) entry as `BASE name`.
verdefs() {
    readelf -V -W "$1" | awk '
      /^Version definition section/ { on = 1; next }
      /^Version (needs|symbols) section/ { on = 0 }
      !on { next }
      /Name:/ {
        flush(); cur = $NF; base = ($0 ~ /Flags: BASE/); par = ""; next
      }
      /Parent [0-9]+:/ { par = par " parent " $NF }
      function flush() { if (cur != "") print (base ? "BASE " cur : cur par) }
      END { flush() }' | sort
}

# Versions this library needs from FILE (readelf -V version needs).
verneeds_from() {
    readelf -V -W "$1" | awk -v file="$2" '
      /^Version needs section/ { on = 1; next }
      /^Version (definition|symbols) section/ { on = 0 }
      !on { next }
      /File:/ { cur = $0; sub(/.*File: */, "", cur); sub(/ .*/, "", cur); next }
      /Name:/ && cur == file { print $3 }' | sort -u
}

# `name version` for every undefined reference whose version is IBVERBS_*, or whose name is ibv_*.
ibverbs_refs() {
    objdump -T "$1" | awk '
      !/\*UND\*/ { next }
      { name = $NF; ver = $(NF-1); gsub(/[()]/, "", ver)
        if (ver ~ /^IBVERBS_/ || name ~ /^ibv_/) print name, ver }' | sort -u
}

soname() { readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

echo "== exports: ours in $LIBDIR, reference in $REF_LIBDIR"
for lib in $LIBS; do
    ours="$LIBDIR/$lib.so.1"
    ref="$REF_LIBDIR/$lib.so.1"
    if [ ! -e "$ref" ]; then
        fail "$lib: reference $ref not installed (apt-get install ${lib}1, or set REF_LIBDIR)"
        continue
    fi
    "$BASELINE" "$ref" > "$WORK/$lib.ref"
    n=$(wc -l < "$WORK/$lib.ref")
    checked=$((checked + n))

    # The committed baseline is what build.rs exports; it must be the reference's list.
    grep -v -e '^#' -e '^[[:space:]]*$' "$ROOT/abi/$lib.symbols" | sed 's/[[:space:]]*$//' | sort -u > "$WORK/$lib.abi"
    if cmp -s "$WORK/$lib.abi" "$WORK/$lib.ref"; then
        pass "$lib: abi/$lib.symbols equals the reference's exports ($n)"
    else
        fail "$lib: abi/$lib.symbols differs from the reference's exports (< abi file, > reference):"
        diff "$WORK/$lib.abi" "$WORK/$lib.ref" | grep '^[<>]' | detail
    fi

    if [ ! -e "$ours" ]; then
        fail "$lib: $ours does not exist"
        missing=$((missing + n))
        continue
    fi
    { "$BASELINE" "$ours"; unversioned_exports "$ours"; } | sort -u > "$WORK/$lib.ours"
    comm -23 "$WORK/$lib.ref" "$WORK/$lib.ours" > "$WORK/$lib.missing"
    comm -13 "$WORK/$lib.ref" "$WORK/$lib.ours" > "$WORK/$lib.extra"
    m=$(wc -l < "$WORK/$lib.missing"); x=$(wc -l < "$WORK/$lib.extra")
    missing=$((missing + m)); extra=$((extra + x))
    if [ "$m" -eq 0 ]; then
        pass "$lib: all $n reference symbols exported"
    else
        echo "FAIL $lib: $m of $n reference symbols missing:"
        detail < "$WORK/$lib.missing"
    fi
    if [ "$x" -eq 0 ]; then
        pass "$lib: no extra exports"
    else
        echo "FAIL $lib: $x extra exports (rdma-core 44 has none of these):"
        detail < "$WORK/$lib.extra"
    fi

    # Data symbols: same size (C code reads them in place).
    object_sizes "$ref" > "$WORK/$lib.osz.ref"
    object_sizes "$ours" > "$WORK/$lib.osz.ours"
    bad=$(join "$WORK/$lib.osz.ref" "$WORK/$lib.osz.ours" | awk '$2 != $3 { print $1 ": " $2 " (ours " $3 ")" }')
    if [ -z "$bad" ]; then
        pass "$lib: data symbol sizes match ($(wc -l < "$WORK/$lib.osz.ref"))"
    else
        fail "$lib: data symbol sizes differ:"
        echo "$bad" | detail
    fi

    # soname
    s=$(soname "$ours")
    if [ "$s" = "$lib.so.1" ]; then pass "$lib: SONAME $s"; else fail "$lib: SONAME is '${s}', want $lib.so.1"; fi

    # Version definition chain.
    verdefs "$ref" > "$WORK/$lib.vd.ref"
    verdefs "$ours" > "$WORK/$lib.vd.ours"
    # lld records no parent links in .gnu.version_d (GNU ld does); the dynamic linker never reads them, so the
    # node set must match exactly and parent differences are only reported.
    sed 's/ parent.*//' "$WORK/$lib.vd.ref" > "$WORK/$lib.vdn.ref"
    sed 's/ parent.*//' "$WORK/$lib.vd.ours" > "$WORK/$lib.vdn.ours"
    if cmp -s "$WORK/$lib.vd.ref" "$WORK/$lib.vd.ours"; then
        pass "$lib: version definitions match ($(grep -vc '^BASE' "$WORK/$lib.vd.ref") nodes, same parents)"
    elif cmp -s "$WORK/$lib.vdn.ref" "$WORK/$lib.vdn.ours"; then
        pass "$lib: version nodes match ($(grep -vc '^BASE' "$WORK/$lib.vd.ref") nodes; parent links not recorded by lld, ignored by ld.so)"
    else
        fail "$lib: version definitions differ (< reference, > ours):"
        diff "$WORK/$lib.vd.ref" "$WORK/$lib.vd.ours" | grep '^[<>]' | detail
    fi
done

# librdmacm -> libibverbs
ours_cm="$LIBDIR/librdmacm.so.1"
ref_cm="$REF_LIBDIR/librdmacm.so.1"
ref_verbs="$REF_LIBDIR/libibverbs.so.1"
if [ -e "$ours_cm" ] && [ -e "$ref_cm" ] && [ -e "$ref_verbs" ]; then
    if needed "$ours_cm" | grep -qx 'libibverbs.so.1'; then
        pass "librdmacm: NEEDED libibverbs.so.1"
    else
        fail "librdmacm: no NEEDED libibverbs.so.1 (has: $(needed "$ours_cm" | tr '\n' ' '))"
    fi

    # Versions needed from libibverbs.so.1 must all be defined by rdma-core's libibverbs.
    verneeds_from "$ours_cm" libibverbs.so.1 > "$WORK/cm.verneed"
    verdefs "$ref_verbs" | awk '$1 != "BASE" { print $1 }' | sort -u > "$WORK/verbs.nodes"
    undef_nodes=$(comm -23 "$WORK/cm.verneed" "$WORK/verbs.nodes")
    if [ -z "$undef_nodes" ]; then
        pass "librdmacm: needs only versions rdma-core's libibverbs defines ($(tr '\n' ' ' < "$WORK/cm.verneed"))"
    else
        fail "librdmacm: needs versions rdma-core's libibverbs does not define:"
        echo "$undef_nodes" | detail
    fi

    # Each reference: versioned, resolvable in rdma-core's libibverbs, same version as rdma-core's librdmacm uses.
    "$BASELINE" "$ref_verbs" | sed 's/ object$//' > "$WORK/verbs.exports"
    ibverbs_refs "$ref_cm" > "$WORK/cm.refs.ref"
    ibverbs_refs "$ours_cm" > "$WORK/cm.refs.ours"
    bad=$(while read -r name ver; do
        if [ "$ver" = "Base" ] || [ -z "$ver" ]; then
            echo "$name: unversioned reference"
            continue
        fi
        if ! grep -qxF -e "$name@@$ver" -e "$name@$ver" "$WORK/verbs.exports"; then
            echo "$name@$ver: not defined by rdma-core's libibverbs"
        fi
        rv=$(awk -v n="$name" '$1 == n { print $2 }' "$WORK/cm.refs.ref")
        if [ -n "$rv" ] && [ "$rv" != "$ver" ]; then
            echo "$name@$ver: rdma-core's librdmacm uses $name@$rv"
        fi
    done < "$WORK/cm.refs.ours")
    nrefs=$(wc -l < "$WORK/cm.refs.ours")
    if [ -z "$bad" ]; then
        pass "librdmacm: $nrefs references into libibverbs, versioned as rdma-core's"
    else
        fail "librdmacm: references into libibverbs:"
        echo "$bad" | detail
    fi
else
    fail "librdmacm: cannot check its references to libibverbs (ours or the reference is missing)"
fi

# Dynamic linking with Debian's unmodified binaries and rdma-core's providers.
echo "== dynamic linking with LD_LIBRARY_PATH=$LIBDIR"
LOADER_ERRORS='undefined symbol|symbol lookup error|version `[^'"'"']*'"'"' not found|not found|error while loading shared libraries|cannot open shared object'
provider_libs=$(ls "$REF_LIBDIR"/libmlx5.so.1 "$REF_LIBDIR"/libmlx4.so.1 "$REF_LIBDIR"/libefa.so.1 \
    "$REF_LIBDIR"/libmana.so.1 "$REF_LIBDIR"/libibverbs/*.so 2>/dev/null)
for obj in /usr/bin/ibv_devinfo /usr/bin/rping /usr/bin/ib_write_bw $provider_libs; do
    if [ ! -e "$obj" ]; then
        fail "ldd -r $obj: not installed (ibverbs-utils, rdmacm-utils, perftest, ibverbs-providers)"
        continue
    fi
    out=$(LD_LIBRARY_PATH="$LIBDIR" ldd -r "$obj" 2>&1)
    rc=$?
    errs=$(echo "$out" | grep -E "$LOADER_ERRORS")
    # Which libibverbs/librdmacm did the loader pick?
    wrong=$(echo "$out" | awk -v dir="$LIBDIR" '
      $1 ~ /^lib(ibverbs|rdmacm)\.so\.1$/ && $2 == "=>" && $3 != dir "/" $1 { print $1 " => " $3 }')
    if [ $rc -eq 0 ] && [ -z "$errs" ] && [ -z "$wrong" ]; then
        pass "ldd -r $obj"
    else
        fail "ldd -r $obj (rc $rc):"
        { echo "$errs"; echo "$wrong"; } | grep -v '^$' | sort -u | head -40 | detail
    fi
done

# Runs a program with our libraries, BIND_NOW, and LD_DEBUG=files; it must start and end on its own.
# $1: label, $2: the library files that must be ours, rest: the command.
smoke() {
    label=$1 want=$2
    shift 2
    if [ ! -x "$1" ]; then
        fail "run $label: $1 not installed"
        return
    fi
    LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/lddebug" LD_BIND_NOW=1 LD_LIBRARY_PATH="$LIBDIR" \
        timeout 30 "$@" > "$WORK/run.out" 2>&1 < /dev/null
    rc=$?
    cat "$WORK"/lddebug.* > "$WORK/lddebug" 2>/dev/null
    rm -f "$WORK"/lddebug.*
    why=""
    errs=$(grep -E "$LOADER_ERRORS" "$WORK/run.out")
    [ -n "$errs" ] && why="$why loader error;"
    [ $rc -eq 124 ] && why="$why timed out;"
    [ $rc -eq 127 ] && why="$why could not start (rc 127);"
    # 128+N is death by signal N (N <= 64); 193..255 are ordinary exit codes such as exit(-1).
    [ $rc -gt 128 ] && [ $rc -le 192 ] && why="$why killed by signal $((rc - 128));"
    for f in $want; do
        grep -qF "$LIBDIR/$f" "$WORK/lddebug" || why="$why $f not loaded from $LIBDIR;"
    done
    other=$(grep -oE "[^[:space:]=]*/lib(ibverbs|rdmacm)\.so\.1" "$WORK/lddebug" | grep -vF "$LIBDIR/" | sort -u)
    [ -n "$other" ] && why="$why another copy loaded: $(echo $other);"
    if [ -z "$why" ]; then
        pass "run $label (rc $rc): $(head -c 100 "$WORK/run.out" | head -1)"
    else
        fail "run $label (rc $rc):$why"
        head -20 "$WORK/run.out" | detail
    fi
}
smoke "ibv_devices" "libibverbs.so.1" /usr/bin/ibv_devices
smoke "ibv_devinfo" "libibverbs.so.1" /usr/bin/ibv_devinfo
smoke "ib_write_bw --help (libmlx5/libefa constructors)" "libibverbs.so.1 librdmacm.so.1" /usr/bin/ib_write_bw --help
smoke "rping -h" "libibverbs.so.1 librdmacm.so.1" /usr/bin/rping -h

echo "exports: $checked symbols checked, $missing missing, $extra extra, $problems other problems"
[ $missing -eq 0 ] && [ $extra -eq 0 ] && [ $problems -eq 0 ]
