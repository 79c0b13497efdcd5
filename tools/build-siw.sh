#!/usr/bin/env bash
# Builds the Soft-iWARP kernel module (siw.ko) for a test guest kernel, out of tree: Debian's 6.1 and 6.12 kernels
# ship rdma_rxe but not siw (CONFIG_RDMA_SIW is off). It takes the source of exactly the installed kernel's version
# (`dpkg-query -W -f='${Version}' linux-image-<kver>`, or linux-image-<kver>-unsigned): linux-source-<series>=<that
# version> (series 6.1 or 6.12, from <kver>) is downloaded with
# `apt-get download` (not installed: it is a 140-150 MB tarball of which siw needs 300 KB), only
# drivers/infiniband/sw/siw/ is extracted from it, and the module is built against linux-headers-<kver> (installed
# at the same version if missing) with
#   make -C /lib/modules/<kver>/build M=<dir> CONFIG_RDMA_SIW=m modules
# The module (debug info stripped) is cached as
#   build/siw/<kver>/siw.ko
# and reused when present: then nothing is downloaded and the script takes a few milliseconds. A kernel of Debian sid
# (7.2, which tools/install-deps.sh unpacks from sid's packages; no dpkg record) is built inside a sid root instead,
# since its headers' tools need sid's glibc and gcc (below, sid_build). A build takes
# ~30 s (most of it the download and unpacking the source tarball). Kernel source and siw.ko stay under build/
# (ignored by git).
#
#   tools/build-siw.sh [KVER]    default: the kernel tests/guest/run boots (the newest /boot/vmlinuz-$GUEST_KERNEL.*,
#                                GUEST_KERNEL=6.1 by default or 6.12, whose /lib/modules/<kver>/modules.dep exists;
#                                RDMA_GUEST_KVER overrides, as for run)
#   tools/build-siw.sh --check   exit 1 (and say so) if the module for that kernel is not built yet
#
# Prints the module's path on stdout; at most one line of progress on stderr; on failure one line
# "build-siw: FAILED: <reason>" (after the tail of the failing tool's log) and exit status 1.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

die() { echo "build-siw: FAILED: $*" >&2; exit 1; }

check=0
case "${1:-}" in
    --check) check=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (usage: $0 [--check] [KVER])" ;;
esac

kver=${1:-${RDMA_GUEST_KVER:-}}
series=${GUEST_KERNEL:-6.1}
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "GUEST_KERNEL='$series' is not a kernel series such as 6.1 or 6.12"
if [[ -z $kver ]]; then
    best=""
    for k in /boot/vmlinuz-"$series".*; do
        [[ -r "$k" && -f "/lib/modules/${k#/boot/vmlinuz-}/modules.dep" ]] && best+="${k#/boot/vmlinuz-}"$'\n'
    done
    kver=$(printf '%s' "$best" | sort -V | tail -n 1)
fi
[[ -n $kver ]] || die "no Debian $series kernel (/boot/vmlinuz-$series.* with /lib/modules/<kver>): run tools/install-deps.sh"
# The source package is named after the kernel's series: linux-source-6.1 for 6.1.0-56-amd64, linux-source-6.12 for
# 6.12.117+deb12-amd64.
[[ $kver =~ ^([0-9]+\.[0-9]+)[.-] ]] || die "cannot tell the kernel series of '$kver'"
series=${BASH_REMATCH[1]}
srcpkg=linux-source-$series
out=$ROOT/build/siw/$kver
if [[ -s $out/siw.ko ]]; then
    echo "$out/siw.ko"
    exit 0
fi
if (( check )); then
    echo "build-siw: $out/siw.ko is not built (run tools/build-siw.sh)" >&2
    exit 1
fi

mkdir -p "$out" || die "cannot create $out"
# Two runners starting at once: the second waits for the first and then finds the module.
exec 9> "$out/.lock"
flock -w 900 9 || die "timed out waiting for another build-siw.sh ($out/.lock)"
if [[ -s $out/siw.ko ]]; then
    echo "$out/siw.ko"
    exit 0
fi

fail_log() { # LOG REASON
    echo >&2
    echo "build-siw: ---- last lines of $(basename "$1") ----" >&2
    tail -n 25 "$1" | sed 's/^/    /' >&2
    die "$2"
}

# ---- a kernel of Debian sid (tools/install-deps.sh unpacks its 7.2 from packages; dpkg does not know it) ----------
# Its linux-headers and kbuild tools are built for sid's glibc and gcc (CONFIG_CC_VERSION_TEXT names gcc-16), which
# bookworm lacks, so the module is built inside a sid root made for it: build/roots/kbuild-<kver>
# (debootstrap --variant=minbase sid with linux-headers-<kver>, which brings its gcc, and make), from the siw
# directory of linux-source-<series> at the headers' version (downloaded with the private sid list, never installed).
sid_build() {
    local kb=$ROOT/build/roots/kbuild-$kver stamp want mirror ver t0=${EPOCHREALTIME/./}
    # shellcheck source=tools/debian-apt.sh
    REPO=$ROOT . "$ROOT/tools/debian-apt.sh"
    want="kbuild sid linux-headers-$kver make xz-utils"
    printf 'build-siw: building siw.ko for %s inside a sid root (once: debootstrap ~2 min, source ~1 min) ... ' "$kver" >&2
    work=$(mktemp -d "${TMPDIR:-/tmp}/build-siw.XXXXXX") || die "mktemp failed"
    # (debootstrap mounts proc and sys in its target while it works; a failed one may leave them there)
    trap 'umount "$kb/proc" "$kb.new/proc" "$kb.new/sys" 2>/dev/null; rm -rf "$work"' EXIT
    stamp=$(cat "$kb/.rdma-core-rs-root" 2>/dev/null)
    if [[ $stamp != "$want" ]]; then
        mirror=$(debian_mirror) || die "cannot tell this host's Debian mirror (set RDMA_DEBIAN_MIRROR)"
        umount "$kb.new/proc" "$kb.new/sys" 2>/dev/null
        rm -rf --one-file-system "$kb.new"
        timeout 1800 debootstrap --variant=minbase --include="linux-headers-$kver,make,xz-utils" sid "$kb.new" "$mirror" \
            > "$work/debootstrap.log" 2>&1 || fail_log "$work/debootstrap.log" "debootstrap of the sid build root $kb.new"
        rm -f "$kb.new"/var/cache/apt/archives/*.deb
        echo "$want" > "$kb.new/.rdma-core-rs-root"
        rm -rf --one-file-system "$kb"
        mv "$kb.new" "$kb" || die "cannot move $kb.new to $kb"
    fi
    [[ -f $kb/lib/modules/$kver/build/Makefile ]] || die "no /lib/modules/$kver/build/Makefile in $kb"
    ver=$(dpkg-query --admindir="$kb/var/lib/dpkg" -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)
    [[ -n $ver ]] || die "linux-headers-$kver is not installed in $kb"
    sid_apt_ready > "$work/apt-update.log" 2>&1 || fail_log "$work/apt-update.log" "apt-get update of the private sid list"
    (cd "$work" && timeout 1800 apt-get "${SID_APT_OPTS[@]}" -q download "$srcpkg=$ver") > "$work/apt-download.log" 2>&1 ||
        fail_log "$work/apt-download.log" "apt-get download $srcpkg=$ver from sid"
    local deb
    deb=$(ls "$work"/${srcpkg}_*.deb 2> /dev/null | head -n 1)
    [[ -n $deb ]] || die "apt-get download left no ${srcpkg}_*.deb"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" "./usr/src/$srcpkg.tar.xz" 2> "$work/tar.log" ||
        fail_log "$work/tar.log" "no usr/src/$srcpkg.tar.xz in $(basename "$deb")"
    rm -f "$deb"
    rm -rf "$kb/tmp/siw"
    mkdir -p "$kb/tmp/siw"
    tar -xJf "$work/usr/src/$srcpkg.tar.xz" -C "$kb/tmp/siw" --strip-components=5 "$srcpkg/drivers/infiniband/sw/siw" \
        2> "$work/tar.log" || fail_log "$work/tar.log" "no drivers/infiniband/sw/siw in $srcpkg.tar.xz"
    mount -t proc proc "$kb/proc" 2> /dev/null
    chroot "$kb" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        make -C "/lib/modules/$kver/build" M=/tmp/siw CONFIG_RDMA_SIW=m modules > "$work/make.log" 2>&1 ||
        fail_log "$work/make.log" "make -C /lib/modules/$kver/build M=<siw> CONFIG_RDMA_SIW=m modules (in $kb)"
    umount "$kb/proc" 2> /dev/null
    [[ -s $kb/tmp/siw/siw.ko ]] || fail_log "$work/make.log" "make succeeded but produced no siw.ko"
    vm=$(modinfo -F vermagic "$kb/tmp/siw/siw.ko" 2> /dev/null)
    [[ $vm == "$kver "* ]] || die "siw.ko's vermagic is '$vm', not $kver"
    strip --strip-debug -o "$out/siw.ko.tmp" "$kb/tmp/siw/siw.ko" 2> /dev/null || cp "$kb/tmp/siw/siw.ko" "$out/siw.ko.tmp"
    mv -f "$out/siw.ko.tmp" "$out/siw.ko" || die "cannot write $out/siw.ko"
    echo "$ver (sid)" > "$out/source-version"
    rm -rf "$kb/tmp/siw"
    printf 'done in %d s\n' $(( (${EPOCHREALTIME/./} - t0) / 1000000 )) >&2
    echo "$out/siw.ko"
    exit 0
}

# The signed image (linux-image-<kver>) or the unsigned one (linux-image-<kver>-unsigned): same version either way.
ver=""
for p in "linux-image-$kver" "linux-image-$kver-unsigned"; do
    [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) == ii* ]] || continue
    ver=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) && [[ -n $ver ]] && break
done
if [[ -z $ver ]]; then
    # Not a package of this system: sid's kernel, unpacked by tools/install-deps.sh.
    [[ $kver == *+deb1[4-9]-* ]] || die "package linux-image-$kver(-unsigned) is not installed, so its source version is unknown"
    sid_build
fi
SUDO=()
if (( EUID != 0 )); then
    command -v sudo > /dev/null 2>&1 || die "not root and no sudo: cannot install linux-headers-$kver"
    SUDO=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-q -y -o DPkg::Lock::Timeout=600)

t0=${EPOCHREALTIME/./}
printf 'build-siw: building siw.ko for %s from %s %s (~30 s) ... ' "$kver" "$srcpkg" "$ver" >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/build-siw.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$work"' EXIT

# apt-get with one retry after `apt-get update` (stale package lists on a machine that has not updated lately).
apt_retry() { # LOG CMD...
    local log=$1; shift
    "$@" >> "$log" 2>&1 && return 0
    "${SUDO[@]}" apt-get "${APT_OPTS[@]}" update >> "$log" 2>&1 || return 1
    "$@" >> "$log" 2>&1
}

# The headers (and through them the compiler the kernel was built with) for out-of-tree modules.
if [[ ! -f /lib/modules/$kver/build/Makefile ]]; then
    apt_retry "$work/apt-headers.log" "${SUDO[@]}" apt-get "${APT_OPTS[@]}" install --no-install-recommends \
        "linux-headers-$kver=$ver" ||
        fail_log "$work/apt-headers.log" "apt-get install linux-headers-$kver=$ver"
fi
[[ -f /lib/modules/$kver/build/Makefile ]] || die "no /lib/modules/$kver/build/Makefile after installing linux-headers-$kver"
command -v make > /dev/null 2>&1 || die "make is not installed (tools/install-deps.sh installs it)"

# The source, at exactly the running image's version: downloaded, never installed.
(cd "$work" && apt_retry "$work/apt-download.log" apt-get download -q "$srcpkg=$ver") ||
    fail_log "$work/apt-download.log" \
        "apt-get download $srcpkg=$ver (is version $ver still in the archive? a newer kernel is then needed: tools/install-deps.sh after apt-get update)"
deb=$(ls "$work"/${srcpkg}_*.deb 2> /dev/null | head -n 1)
[[ -n $deb ]] || die "apt-get download left no ${srcpkg}_*.deb"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" "./usr/src/$srcpkg.tar.xz" 2> "$work/tar.log" ||
    fail_log "$work/tar.log" "no usr/src/$srcpkg.tar.xz in $(basename "$deb")"
rm -f "$deb"
tar -xJf "$work/usr/src/$srcpkg.tar.xz" -C "$work" "$srcpkg/drivers/infiniband/sw/siw" 2> "$work/tar.log" ||
    fail_log "$work/tar.log" "no drivers/infiniband/sw/siw in $srcpkg.tar.xz"
rm -f "$work/usr/src/$srcpkg.tar.xz"
src=$work/$srcpkg/drivers/infiniband/sw/siw

make -C "/lib/modules/$kver/build" M="$src" CONFIG_RDMA_SIW=m modules > "$work/make.log" 2>&1 ||
    fail_log "$work/make.log" "make -C /lib/modules/$kver/build M=<siw> CONFIG_RDMA_SIW=m modules"
[[ -s $src/siw.ko ]] || fail_log "$work/make.log" "make succeeded but produced no siw.ko"
vm=$(modinfo -F vermagic "$src/siw.ko" 2> /dev/null)
[[ $vm == "$kver "* ]] || die "siw.ko's vermagic is '$vm', not $kver"
# Debug info makes it 5 MB, read over 9p at every insmod in the guest: strip it (0.3 MB).
strip --strip-debug -o "$out/siw.ko.tmp" "$src/siw.ko" 2> /dev/null || cp "$src/siw.ko" "$out/siw.ko.tmp"
mv -f "$out/siw.ko.tmp" "$out/siw.ko" || die "cannot write $out/siw.ko"
echo "$ver" > "$out/source-version"
t1=${EPOCHREALTIME/./}
printf 'done in %d s\n' $(( (t1 - t0) / 1000000 )) >&2
echo "$out/siw.ko"
