#!/bin/bash
# The `deb` host check (tests/runner.py): make deb's packages as built, without installing them anywhere (the
# install/remove round trip runs in the guest, case 75-deb).
#   - packaging/deb/build.sh builds libibverbs1-rs and librdmacm1-rs from build/lib (into a temporary directory)
#   - lintian: no error (warnings and informational tags are printed, not failed)
#   - the control fields docs/packaging.md promises: Depends on rdma-core's package, Conflicts with rdma-core 66 and
#     later, no Provides / Replaces; the ldconfig trigger and shlibs
#   - the files: the library under its versioned name and the SONAME link to it, nothing else outside
#     /usr/share/doc and /usr/share/lintian; the preinst diverts exactly that link and the postrm removes the same
#     diversion
#   - the stripped libraries still export what rdma-core's do (tests/exports/run.sh on the unpacked packages)
# Prints PASS/FAIL lines and "deb: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
REPO=$PWD
LIBDIR=${RDMA_CORE_RS_LIBDIR:-$REPO/build/lib}
T=$(mktemp -d /tmp/deb-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
passed=0 failed=0
pass() { echo "PASS deb/$1${2:+ ($2)}"; passed=$((passed + 1)); }
fail() { echo "FAIL deb/$1: $2"; failed=$((failed + 1)); [[ -n ${3:-} && -s $3 ]] && sed 's/^/    /' "$3" | tail -n 30; }
finish() { echo "deb: $passed passed, $failed failed"; (( failed == 0 )); exit $?; }

if ! packaging/deb/build.sh "$LIBDIR" "$T/out" > "$T/build.log" 2>&1; then
    fail build "packaging/deb/build.sh failed" "$T/build.log"
    finish
fi
mapfile -t debs < "$T/build.log"
pass build "$(printf '%s ' "${debs[@]##*/}")"

SYS=usr/lib/x86_64-linux-gnu
for lib in libibverbs librdmacm; do
    deb=$(compgen -G "$T/out/${lib}1-rs_*_amd64.deb") || { fail "$lib/exists" "no ${lib}1-rs .deb"; continue; }
    pkg=${lib}1-rs
    x=$T/x-$lib
    dpkg-deb -x "$deb" "$x" && dpkg-deb -e "$deb" "$x/DEBIAN" || { fail "$pkg/unpack" "dpkg-deb -x/-e failed"; continue; }

    # Control fields.
    ctl=$x/DEBIAN/control why=""
    dep=$(sed -n 's/^Depends: //p' "$ctl") con=$(sed -n 's/^Conflicts: //p' "$ctl")
    [[ $dep == *"${lib}1 (>= 44~)"* ]] || why+="Depends lacks ${lib}1 (>= 44~) "
    [[ $lib == librdmacm && $dep != *"libibverbs1-rs (= "* ]] && why+="Depends lacks libibverbs1-rs (= version) "
    [[ $dep == *"libc6 (>= "* ]] || why+="Depends lacks libc6 (dpkg-shlibdeps) "
    [[ $con == *"${lib}1 (>= 66~)"* ]] || why+="Conflicts lacks ${lib}1 (>= 66~) "
    [[ $lib == librdmacm && $con != *"librdmacm1t64 (>= 66~)"* ]] && why+="Conflicts lacks librdmacm1t64 (>= 66~) "
    grep -Eq '^(Provides|Replaces|Breaks):' "$ctl" && why+="has $(grep -Eo '^(Provides|Replaces|Breaks):' "$ctl" | tr '\n' ' ')"
    [[ $(cat "$x/DEBIAN/triggers" 2>/dev/null) == "activate-noawait ldconfig" ]] || why+="no ldconfig trigger "
    grep -q "^$lib 1 $pkg (>= " "$x/DEBIAN/shlibs" 2>/dev/null || why+="no shlibs line for $lib 1 "
    if [[ -z $why ]]; then pass "$pkg/control" "Depends: $dep; Conflicts: $con"
    else fail "$pkg/control" "$why" "$ctl"; fi

    # Files: lib<name>.so.1.<minor>.65.100 and the SONAME link to it; the rest is documentation.
    why=""
    real=$(cd "$x/$SYS" && compgen -G "$lib.so.1.*.65.100") || why+="no $SYS/$lib.so.1.<minor>.65.100 "
    [[ $(readlink "$x/$SYS/$lib.so.1") == "$real" ]] || why+="$SYS/$lib.so.1 is not a link to $real "
    [[ -n $real ]] && [[ $(readelf -d "$x/$SYS/$real" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p') == "$lib.so.1" ]] ||
        why+="$real's SONAME is not $lib.so.1 "
    [[ -n $real ]] && file "$x/$SYS/$real" | grep -q 'not stripped' && why+="$real is not stripped "
    other=$(cd "$x" && find . -path ./DEBIAN -prune -o \( -type f -o -type l \) -print | sed 's|^\./||' |
            grep -Ev "^($SYS/$lib\.so\.1(\.[0-9.]+)?|usr/share/doc/$pkg/.*|usr/share/lintian/overrides/$pkg)$")
    [[ -z $other ]] || why+="other files: $(echo $other) "
    for f in copyright changelog.gz README.Debian; do [[ -f $x/usr/share/doc/$pkg/$f ]] || why+="no doc/$f "; done
    if [[ -z $why ]]; then pass "$pkg/files" "$SYS/$real, $SYS/$lib.so.1 -> $real"
    else fail "$pkg/files" "$why"; fi

    # The diversion: the preinst diverts the SONAME link, the postrm removes that same diversion.
    d="--divert /$SYS/rdma-core-rs/$lib.so.1.distrib /$SYS/$lib.so.1"
    why=""
    grep -q -- "dpkg-divert --package $pkg --add --rename" "$x/DEBIAN/preinst" && grep -qF -- "$d" "$x/DEBIAN/preinst" ||
        why+="the preinst does not divert /$SYS/$lib.so.1 "
    grep -q -- "dpkg-divert --package $pkg --remove --rename" "$x/DEBIAN/postrm" && grep -qF -- "$d" "$x/DEBIAN/postrm" ||
        why+="the postrm does not remove the diversion "
    sh -n "$x/DEBIAN/preinst" && sh -n "$x/DEBIAN/postrm" || why+="maintainer script syntax "
    if [[ -z $why ]]; then pass "$pkg/diversion" "/$SYS/$lib.so.1 -> /$SYS/rdma-core-rs/$lib.so.1.distrib"
    else fail "$pkg/diversion" "$why"; fi
    mkdir -p "$T/libs" && cp -a "$x/$SYS/." "$T/libs/"
done

# lintian (tools/install-deps.sh installs it): no error.
if command -v lintian > /dev/null; then
    lintian --pedantic -I "$T"/out/*.deb > "$T/lintian.log" 2>&1
    errors=$(grep -c '^E: ' "$T/lintian.log") warnings=$(grep -c '^W: ' "$T/lintian.log")
    if (( errors == 0 )) && ! grep -Eq '^(internal error|.*[Cc]annot|.*failed)' "$T/lintian.log"; then
        pass lintian "$(lintian --version): 0 errors, $warnings warnings, $(grep -c '^[IP]: ' "$T/lintian.log") info/pedantic"
        grep -E '^[WIP]: ' "$T/lintian.log" | sed 's/^/    /'
    else
        fail lintian "$errors errors" "$T/lintian.log"
    fi
else
    fail lintian "lintian not installed (tools/install-deps.sh installs it)"
fi

# The packaged (stripped) libraries export what rdma-core's do, as build/lib's must.
if tests/exports/run.sh "$T/libs" > "$T/exports.log" 2>&1; then
    pass exports "packaged libraries: $(tail -n 1 "$T/exports.log")"
else
    fail exports "tests/exports/run.sh on the packaged libraries" "$T/exports.log"
fi
finish
