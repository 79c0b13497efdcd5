#!/usr/bin/env bash
# The export test: our libibverbs.so.1 / librdmacm.so.1 against those of every rdma-core release we replace, as the
# dynamic linker sees them.
#
#   tests/exports/run.sh [LIBDIR]
#
# LIBDIR holds our libibverbs.so.1 and librdmacm.so.1 (default: $RDMA_CORE_RS_LIBDIR, else build/lib). The references
# are Debian's rdma-core builds, one per release in $EXPORTS_RELEASES (default "44 56 65"):
#   44  the system's, in $REF_LIBDIR (default /usr/lib/x86_64-linux-gnu; bookworm's packages)
#   56  trixie's, in $RDMA_ROOTS_DIR/trixie (default build/roots/trixie; a debootstrap root, tools/install-deps.sh)
#   65  sid's, in $RDMA_ROOTS_DIR/sid
#
# Checks, each printing PASS/FAIL lines:
#  1. exports: every symbol@version a reference exports (function vs data) is exported by ours, with the same
#     default (`@@`) or non-default (`@`) spelling, except that a name whose default version we export in a newer
#     node than the reference's (IBVERBS_PRIVATE_65) keeps the older node as a non-default version (counted, not a
#     failure: a versioned reference binds either); anything we export that no reference does (including
#     unversioned symbols) is an extra; data sizes match each reference; our export list is abi/<lib>.symbols.
#  2. sonames; librdmacm has NEEDED libibverbs.so.1.
#  3. version definitions (readelf -V): our nodes are the union of the references' (parents reported, see below).
#  4. librdmacm's references into libibverbs: all versioned, each name@version defined by a reference libibverbs,
#     the same version as the reference librdmacm uses for the same name.
#  5. dynamic linking: each release's binaries (ibv_devinfo, rping, ib_write_bw) and every provider plug-in and
#     provider library (which import the private node) resolved with our libraries first, BIND_NOW (`ldd -r`; for
#     a root, its own dynamic linker with --library-path LIBDIR:<root's libraries>): no undefined symbol, no
#     missing version, our files chosen; then ibv_devices, ibv_devinfo, ib_write_bw --help (runs the
#     libmlx5/libefa constructors that register them) and rping -h start and exit without a loader error or a
#     signal, with LD_DEBUG=files showing our files loaded and no other copy.
# The last line is the summary: `exports: N symbols checked, N missing, N extra, N other problems`.
# Exit status 0 only when all of it passes.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIBDIR=${1:-${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}}
REF_LIBDIR=${REF_LIBDIR:-/usr/lib/x86_64-linux-gnu}
ROOTS=${RDMA_ROOTS_DIR:-$ROOT/build/roots}
RELEASES=${EXPORTS_RELEASES:-44 56 65}
BASELINE="$ROOT/tools/symbol-baseline.sh"
LIBS="libibverbs librdmacm"
MULTIARCH=usr/lib/x86_64-linux-gnu

if ! LIBDIR=$(cd "$LIBDIR" 2>/dev/null && pwd); then
    echo "FAIL no library directory ${1:-${RDMA_CORE_RS_LIBDIR:-$ROOT/build/lib}} (build with 'make lib')"
    echo "exports: 0 symbols checked, 0 missing, 0 extra, 1 other problems"
    exit 1
fi
for t in objdump readelf ldd awk comm python3; do
    command -v "$t" >/dev/null || { echo "FAIL missing tool: $t"; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/exports.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

checked=0 missing=0 extra=0 problems=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; problems=$((problems + 1)); }
# Prints its stdin indented (the detail under a FAIL line).
detail() { sed 's/^/    /'; }

# The root directory ("" for the system) and the library directory of a release.
release_root() {
    case $1 in
    44) echo "" ;;
    56) echo "$ROOTS/trixie" ;;
    65) echo "$ROOTS/sid" ;;
    *) echo "/nonexistent-release-$1" ;;
    esac
}
release_libdir() {
    if [ "$1" = 44 ]; then echo "$REF_LIBDIR"; else echo "$(release_root "$1")/$MULTIARCH"; fi
}

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

# The releases whose reference libraries exist; the others are failures (their roots are made by `make deps`).
present=""
for r in $RELEASES; do
    d=$(release_libdir "$r")
    if [ -e "$d/libibverbs.so.1" ] && [ -e "$d/librdmacm.so.1" ]; then
        present="$present $r"
    else
        fail "rdma-core $r: no reference libraries in $d (make deps, or set RDMA_ROOTS_DIR / REF_LIBDIR)"
    fi
done

echo "== exports: ours in $LIBDIR, references:$(for r in $present; do printf ' %s=%s' "$r" "$(release_libdir "$r")"; done)"
for lib in $LIBS; do
    ours="$LIBDIR/$lib.so.1"
    if [ ! -e "$ours" ]; then
        fail "$lib: $ours does not exist"
        continue
    fi
    refargs=""
    for r in $present; do
        "$BASELINE" "$(release_libdir "$r")/$lib.so.1" > "$WORK/$lib.ref.$r"
        refargs="$refargs $r=$WORK/$lib.ref.$r"
    done
    "$BASELINE" "$ours" > "$WORK/$lib.ours"
    unversioned_exports "$ours" > "$WORK/$lib.unversioned"
    grep -v -e '^#' -e '^[[:space:]]*$' "$ROOT/abi/$lib.symbols" > "$WORK/$lib.abi"
    # shellcheck disable=SC2086
    python3 - "$lib" "$WORK/$lib.ours" "$WORK/$lib.unversioned" "$WORK/$lib.abi" $refargs > "$WORK/$lib.cmp" <<'PY'
import sys

lib, ours_f, unv_f, abi_f = sys.argv[1:5]
refs = [a.split("=", 1) for a in sys.argv[5:]]


def entries(path, annotated=False):
    """(name, version) -> (default, object) of a symbol list (symbol-baseline.sh's, or abi/<lib>.symbols')."""
    out = {}
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        sym, words = w[0], w[1:]
        if "@@" in sym:
            name, ver = sym.split("@@")
            default = True
        else:
            name, ver = sym.split("@")
            default = False
        out[(name, ver)] = (default, "object" in words)
    return out


def spell(key, val):
    return f"{key[0]}{'@@' if val[0] else '@'}{key[1]}{' object' if val[1] else ''}"


ours = entries(ours_f)
unversioned = [l.strip() for l in open(unv_f) if l.strip()]
abi = entries(abi_f, annotated=True)
our_default = {k[0]: k[1] for k, v in ours.items() if v[0]}
checked = missing = moved = others = 0
union = {}
for release, path in refs:
    ref = entries(path)
    checked += len(ref)
    miss, kind, spelled = [], [], []
    for key, (default, obj) in sorted(ref.items()):
        union[key] = (default, obj)
        got = ours.get(key)
        if got is None:
            miss.append(spell(key, (default, obj)))
        elif got[1] != obj:
            kind.append(f"{spell(key, (default, obj))}: ours is {'data' if got[1] else 'a function'}")
        elif got[0] != default:
            newer = our_default.get(key[0])
            if default and newer and (key[0], newer) not in ref:
                moved += 1
            else:
                spelled.append(f"{spell(key, (default, obj))}: ours is {spell(key, got)}")
    missing += len(miss)
    if miss:
        print(f"FAIL {lib}: {len(miss)} of rdma-core {release}'s {len(ref)} symbols missing:")
        print("\n".join("    " + m for m in miss))
    else:
        print(f"PASS {lib}: all {len(ref)} symbols of rdma-core {release} exported")
    for what, bad in (("function/data kind", kind), ("default/non-default version", spelled)):
        if bad:
            others += 1
            print(f"FAIL {lib}: rdma-core {release}: {len(bad)} differ in {what}:")
            print("\n".join("    " + b for b in bad))
extras = sorted(spell(k, v) for k, v in ours.items() if k not in union) + unversioned
if extras:
    print(f"FAIL {lib}: {len(extras)} extra exports (no reference release has these):")
    print("\n".join("    " + e for e in extras))
else:
    print(f"PASS {lib}: no extra exports ({len(ours)} exported"
          + (f"; {moved} keep an older node as a non-default version beside a newer default" if moved else "") + ")")
if abi == ours:
    print(f"PASS {lib}: the export list is abi/{lib}.symbols ({len(abi)})")
else:
    diff = sorted(f"< {spell(k, v)}" for k, v in abi.items() if ours.get(k) != v) + \
        sorted(f"> {spell(k, v)}" for k, v in ours.items() if abi.get(k) != v)
    others += 1
    print(f"FAIL {lib}: abi/{lib}.symbols (<) differs from what the library exports (>); rebuild?")
    print("\n".join("    " + d for d in diff))
print(f"COUNT {checked} {missing} {len(extras)} {others}")
PY
    grep -v '^COUNT' "$WORK/$lib.cmp"
    read -r _ c m x o < <(grep '^COUNT' "$WORK/$lib.cmp")
    checked=$((checked + c)); missing=$((missing + m)); extra=$((extra + x)); problems=$((problems + o))

    # Data symbols: the size of each reference's (C code reads them in place).
    object_sizes "$ours" | sed 's/@@*/@/' | sort > "$WORK/$lib.osz.ours"
    for r in $present; do
        object_sizes "$(release_libdir "$r")/$lib.so.1" | sed 's/@@*/@/' | sort > "$WORK/$lib.osz.ref"
        bad=$(join "$WORK/$lib.osz.ref" "$WORK/$lib.osz.ours" | awk '$2 != $3 { print $1 ": " $2 " (ours " $3 ")" }')
        if [ -z "$bad" ]; then
            pass "$lib: data symbol sizes match rdma-core $r's ($(wc -l < "$WORK/$lib.osz.ref"))"
        else
            fail "$lib: data symbol sizes differ from rdma-core $r's:"
            echo "$bad" | detail
        fi
    done

    # soname
    s=$(soname "$ours")
    if [ "$s" = "$lib.so.1" ]; then pass "$lib: SONAME $s"; else fail "$lib: SONAME is '${s}', want $lib.so.1"; fi

    # Version nodes: the union of the references'. lld records no parent links in .gnu.version_d (GNU ld does);
    # the dynamic linker never reads them, so parent differences are only reported.
    : > "$WORK/$lib.vdn.ref"
    for r in $present; do
        verdefs "$(release_libdir "$r")/$lib.so.1" | sed 's/ parent.*//' >> "$WORK/$lib.vdn.ref"
    done
    sort -u -o "$WORK/$lib.vdn.ref" "$WORK/$lib.vdn.ref"
    verdefs "$ours" | sed 's/ parent.*//' > "$WORK/$lib.vdn.ours"
    if cmp -s "$WORK/$lib.vdn.ref" "$WORK/$lib.vdn.ours"; then
        pass "$lib: version nodes are the references' ($(grep -vc '^BASE' "$WORK/$lib.vdn.ours") nodes; parent links not recorded by lld, ignored by ld.so)"
    else
        fail "$lib: version nodes differ from the references' union (< references, > ours):"
        diff "$WORK/$lib.vdn.ref" "$WORK/$lib.vdn.ours" | grep '^[<>]' | detail
    fi
done

# librdmacm -> libibverbs
ours_cm="$LIBDIR/librdmacm.so.1"
if [ -e "$ours_cm" ] && [ -n "$present" ]; then
    if needed "$ours_cm" | grep -qx 'libibverbs.so.1'; then
        pass "librdmacm: NEEDED libibverbs.so.1"
    else
        fail "librdmacm: no NEEDED libibverbs.so.1 (has: $(needed "$ours_cm" | tr '\n' ' '))"
    fi
    # What the references define and use.
    : > "$WORK/verbs.nodes"; : > "$WORK/verbs.exports"; : > "$WORK/cm.refs.ref"
    for r in $present; do
        d=$(release_libdir "$r")
        verdefs "$d/libibverbs.so.1" | awk '$1 != "BASE" { print $1 }' >> "$WORK/verbs.nodes"
        "$BASELINE" "$d/libibverbs.so.1" | sed 's/ object$//' >> "$WORK/verbs.exports"
        ibverbs_refs "$d/librdmacm.so.1" >> "$WORK/cm.refs.ref"
    done
    sort -u -o "$WORK/verbs.nodes" "$WORK/verbs.nodes"
    verneeds_from "$ours_cm" libibverbs.so.1 > "$WORK/cm.verneed"
    undef_nodes=$(comm -23 "$WORK/cm.verneed" "$WORK/verbs.nodes")
    if [ -z "$undef_nodes" ]; then
        pass "librdmacm: needs only versions rdma-core's libibverbs defines ($(tr '\n' ' ' < "$WORK/cm.verneed"))"
    else
        fail "librdmacm: needs versions no reference libibverbs defines:"
        echo "$undef_nodes" | detail
    fi
    ibverbs_refs "$ours_cm" > "$WORK/cm.refs.ours"
    bad=$(while read -r name ver; do
        if [ "$ver" = "Base" ] || [ -z "$ver" ]; then
            echo "$name: unversioned reference"
            continue
        fi
        if ! grep -qxF -e "$name@@$ver" -e "$name@$ver" "$WORK/verbs.exports"; then
            echo "$name@$ver: not defined by a reference libibverbs"
        fi
        rv=$(awk -v n="$name" '$1 == n { print $2 }' "$WORK/cm.refs.ref" | sort -u)
        if [ -n "$rv" ] && ! echo "$rv" | grep -qxF "$ver"; then
            echo "$name@$ver: the reference librdmacm uses $name@$(echo $rv)"
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
    fail "librdmacm: cannot check its references to libibverbs (ours or every reference is missing)"
fi

# Dynamic linking with each release's unmodified binaries and rdma-core's providers. A root's programs need its
# own C library: they are run by its dynamic linker, with our directory first on its library path.
LOADER_ERRORS='undefined symbol|symbol lookup error|version `[^'"'"']*'"'"' not found|not found|error while loading shared libraries|cannot open shared object'
for r in $present; do
    root=$(release_root "$r")
    d=$(release_libdir "$r")
    if [ -z "$root" ]; then
        trace() { LD_LIBRARY_PATH="$LIBDIR" ldd -r "$1" 2>&1; }
        launcher=(env LD_LIBRARY_PATH="$LIBDIR")
    else
        rtld="$d/ld-linux-x86-64.so.2"
        libpath="$LIBDIR:$root/$MULTIARCH:$root/usr/lib"
        trace() { LD_TRACE_LOADED_OBJECTS=1 LD_WARN=yes LD_BIND_NOW=yes "$rtld" --library-path "$libpath" "$1" 2>&1; }
        launcher=("$rtld" --library-path "$libpath")
    fi
    echo "== dynamic linking, rdma-core $r's binaries ($d) with $LIBDIR first"
    provider_libs=$(ls "$d"/libmlx5.so.1 "$d"/libmlx4.so.1 "$d"/libefa.so.1 "$d"/libhns.so.1 "$d"/libmana.so.1 \
        "$d"/libionic.so.1 "$d"/libibverbs/*.so 2>/dev/null)
    for obj in "$root/usr/bin/ibv_devinfo" "$root/usr/bin/rping" "$root/usr/bin/ib_write_bw" $provider_libs; do
        if [ ! -e "$obj" ]; then
            fail "ldd -r $obj: not installed (ibverbs-utils, rdmacm-utils, perftest, ibverbs-providers)"
            continue
        fi
        out=$(trace "$obj")
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
        LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/lddebug" LD_BIND_NOW=1 timeout 30 "${launcher[@]}" "$@" > "$WORK/run.out" 2>&1 \
            < /dev/null
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
    smoke "rdma-core $r ibv_devices" "libibverbs.so.1" "$root/usr/bin/ibv_devices"
    smoke "rdma-core $r ibv_devinfo" "libibverbs.so.1" "$root/usr/bin/ibv_devinfo"
    smoke "rdma-core $r ib_write_bw --help (libmlx5/libefa constructors)" "libibverbs.so.1 librdmacm.so.1" \
        "$root/usr/bin/ib_write_bw" --help
    smoke "rdma-core $r rping -h" "libibverbs.so.1 librdmacm.so.1" "$root/usr/bin/rping" -h
done

echo "exports: $checked symbols checked, $missing missing, $extra extra, $problems other problems"
[ $missing -eq 0 ] && [ $extra -eq 0 ] && [ $problems -eq 0 ]
