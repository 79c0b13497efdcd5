#!/usr/bin/env bash
# make deb: Debian binary packages of our two libraries, built with dpkg's own tools (strip as dh_strip does,
# dpkg-shlibdeps for the library dependencies, dpkg-deb --build on a plain control file). docs/packaging.md says
# why they look the way they do.
#
#   packaging/deb/build.sh [LIBDIR [OUTDIR]]     (default: build/lib, build/deb)
#
# Makes OUTDIR/libibverbs1-rs_<version>_amd64.deb and OUTDIR/librdmacm1-rs_<version>_amd64.deb (older ones of
# ours in OUTDIR are removed) and prints their paths. One pair of packages serves Debian 12, 13 and sid.
#   version      <Cargo workspace version>+git<commit time, UTC>.<commit> (plain <Cargo version> outside git)
#   maintainer   DEB_MAINTAINER, else the one below
# Each package ships lib<name>.so.1.<newest ABI node>.65.100 and the SONAME link to it, which its preinst takes
# over from rdma-core's package with dpkg-divert (packaging/deb/preinst.in, postrm.in).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/../.." && pwd -P)
LIBDIR=$(cd "${1:-$REPO/build/lib}" && pwd -P)
OUT=${2:-$REPO/build/deb}
MAINTAINER=${DEB_MAINTAINER:-rdma-core-rs maintainers <maintainers@users.noreply.a-seed-86ba4d75.example>}
TRIPLET=x86_64-linux-gnu
SYSLIB=/usr/lib/$TRIPLET
DIVERT_DIR=$SYSLIB/rdma-core-rs        # where rdma-core's SONAME links wait while ours are installed
# The rdma-core release whose ABI ours matches last, and the first one it was not made for (Breaks).
RDMA_ABI=65
RDMA_NEXT=66

die() { echo "deb: $*" >&2; exit 1; }
for t in dpkg-deb dpkg-shlibdeps strip objdump gzip; do
    command -v "$t" > /dev/null || die "$t not found (tools/install-deps.sh installs dpkg-dev and binutils)"
done
for l in libibverbs librdmacm; do
    [[ -f $LIBDIR/$l.so.1 ]] || die "no $LIBDIR/$l.so.1 (run make first)"
done

base=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$REPO/Cargo.toml")
[[ -n $base ]] || die "no version in Cargo.toml's [workspace.package]"
if commit=$(git -C "$REPO" rev-parse --short=7 HEAD 2>/dev/null); then
    stamp=$(TZ=UTC git -C "$REPO" log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)
    epoch=$(git -C "$REPO" log -1 --format=%ct HEAD)
    VERSION=$base+git$stamp.$commit
else
    commit="" epoch=$(stat -c %Y "$REPO/Cargo.toml")
    VERSION=$base
fi
export SOURCE_DATE_EPOCH=$epoch      # dpkg-deb clamps the file times to it: the same tree gives the same package
DATE=$(LC_ALL=C date -u -d "@$epoch" -R)

# The newest version node a library defines (IBVERBS_1.18 -> 18), for its file name.
newest_node() { # LIB PREFIX
    objdump -p "$1" | sed -n '/^Version definitions:/,/^$/p' | sed -n "s/.* $2_1\.\([0-9]*\)$/\1/p" | sort -n | tail -n 1
}

# The library dependencies as Debian computes them (dpkg-shlibdeps reads the system's symbols files). Our own
# libibverbs, which librdmacm needs, is left to the control file.
shlibdeps() { # FILE
    local d
    d=$(mktemp -d "${TMPDIR:-/tmp}/deb-shlibdeps.XXXXXX")
    mkdir "$d/debian"
    printf 'Source: rdma-core-rs\n\nPackage: x\nArchitecture: any\n' > "$d/debian/control"
    (cd "$d" && dpkg-shlibdeps -O -l"$STAGE_LIBS" --ignore-missing-info -xlibibverbs1 "$1" 2> "$d/log") |
        sed -n 's/^shlibs:Depends=//p' || { cat "$d/log" >&2; rm -rf "$d"; return 1; }
    rm -rf "$d"
}

subst() { # TEMPLATE OUTPUT: replaces every @KEY@ by the value of $KEY (shell variables of package())
    local line k v
    cp "$1" "$2"
    for k in PACKAGE VERSION MAINTAINER SIZE DEPENDS CONFLICTS SUMMARY SONAME SONAME_BASE RDMA_PACKAGE RDMA_FILE_EXAMPLE \
             DIVERT_DIR LIBDIR REAL; do
        v=${!k-}
        v=${v//\\/\\\\}; v=${v//&/\\&}; v=${v//|/\\|}
        sed -i "s|@$k@|$v|g" "$2"
    done
    if line=$(grep -n '@[A-Z_]*@' "$2"); then die "$2: unreplaced $line"; fi
}

mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/deb-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
STAGE_LIBS=$WORK/libs      # the stripped libraries, where dpkg-shlibdeps finds ours
mkdir -p "$STAGE_LIBS"

package() { # PACKAGE LIB NODE-PREFIX RDMA_PACKAGE RDMA_FILE_EXAMPLE EXTRA-DEPENDS CONFLICTS SUMMARY
    local PACKAGE=$1 lib=$2 node=$3 RDMA_PACKAGE=$4 RDMA_FILE_EXAMPLE=$5 extra=$6 CONFLICTS=$7 SUMMARY=$8
    local SONAME=$lib.so.1 SONAME_BASE=$lib LIBDIR=$SYSLIB minor REAL root=$WORK/$1 doc deps SIZE DEPENDS f deb
    minor=$(newest_node "$LIBDIR_IN/$SONAME" "$node")
    [[ -n $minor ]] || die "$SONAME defines no ${node}_1.N version node"
    # ldconfig points the SONAME link at the highest version in the file names: above every rdma-core 65.x.
    REAL=$SONAME.$minor.$RDMA_ABI.100
    doc=$root/usr/share/doc/$PACKAGE
    install -d -m 0755 "$root/DEBIAN" "$root$SYSLIB" "$doc"
    strip --remove-section=.comment --remove-section=.note --strip-unneeded -o "$root$SYSLIB/$REAL" "$LIBDIR_IN/$SONAME"
    chmod 0644 "$root$SYSLIB/$REAL"
    ln -s "$REAL" "$root$SYSLIB/$SONAME"
    cp "$root$SYSLIB/$REAL" "$STAGE_LIBS/$SONAME"
    install -m 0644 "$HERE/copyright" "$doc/copyright"
    subst "$HERE/README.Debian.in" "$doc/README.Debian"
    chmod 0644 "$doc/README.Debian"
    printf '%s (%s) unstable; urgency=medium\n\n  * Built by make deb%s.\n\n -- %s  %s\n' \
        rdma-core-rs "$VERSION" "${commit:+ from commit $commit}" "$MAINTAINER" "$DATE" | gzip -9n > "$doc/changelog.gz"
    chmod 0644 "$doc/changelog.gz"
    deps=$(shlibdeps "$root$SYSLIB/$REAL") || die "dpkg-shlibdeps failed on $REAL"
    DEPENDS="${deps:+$deps, }$extra"
    SIZE=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    subst "$HERE/control.in" "$root/DEBIAN/control"
    subst "$HERE/preinst.in" "$root/DEBIAN/preinst"
    subst "$HERE/postrm.in" "$root/DEBIAN/postrm"
    chmod 0755 "$root/DEBIAN/preinst" "$root/DEBIAN/postrm"
    install -d -m 0755 "$root/usr/share/lintian/overrides"
    subst "$HERE/lintian-overrides.in" "$root/usr/share/lintian/overrides/$PACKAGE"
    sed -i '/^#/s/^# */# /' "$root/usr/share/lintian/overrides/$PACKAGE"
    chmod 0644 "$root/usr/share/lintian/overrides/$PACKAGE"
    echo "activate-noawait ldconfig" > "$root/DEBIAN/triggers"
    printf '%s 1 %s (>= %s)\n' "$lib" "$PACKAGE" "$VERSION" > "$root/DEBIAN/shlibs"
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/triggers" "$root/DEBIAN/shlibs"
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
        > "$root/DEBIAN/md5sums"
    chmod 0644 "$root/DEBIAN/md5sums"
    find "$root" -type d -exec chmod 0755 {} +
    rm -f "$OUT/${PACKAGE}_"*.deb
    deb=$OUT/${PACKAGE}_${VERSION}_amd64.deb
    dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" > /dev/null || die "dpkg-deb --build $PACKAGE failed"
    echo "$deb"
}

LIBDIR_IN=$LIBDIR
package libibverbs1-rs libibverbs IBVERBS libibverbs1 libibverbs.so.1.14.44.0 \
    "libibverbs1 (>= 44~)" "libibverbs1 (>= $RDMA_NEXT~)" \
    "libibverbs.so.1 of rdma-core-rs (Rust) in place of rdma-core's"
package librdmacm1-rs librdmacm RDMACM "librdmacm1t64, or librdmacm1 on Debian 12" librdmacm.so.1.3.44.0 \
    "libibverbs1-rs (= $VERSION), librdmacm1 (>= 44~)" "librdmacm1 (>= $RDMA_NEXT~), librdmacm1t64 (>= $RDMA_NEXT~)" \
    "librdmacm.so.1 of rdma-core-rs (Rust) in place of rdma-core's"
