#!/usr/bin/env bash
# Installs, on Debian 12 (bookworm), everything rdma-core-rs's build and tests need at run time:
#   - the test guest (tests/guest/run): qemu-system-x86, the Debian 6.1 kernel (linux-image-amd64: vmlinuz in /boot,
#     modules incl. rdma_rxe in /lib/modules), busybox-static + cpio (the guest's initramfs), xz-utils + zstd (vmlinux
#     extraction), kmod, iproute2
#   - the second guest kernel, Debian bookworm's 6.12 (GUEST_KERNEL=6.12; make test runs the guest suite on both):
#     when no /boot/vmlinuz-6.12.* with its modules (incl. rdma_rxe) is installed, the signed image
#     linux-image-6.12.<N>+deb12-amd64 of the highest version the archive serves (apt-cache search), plus
#     linux-headers of that kernel (for siw.ko). An installed 6.12 is kept as it is (no apt call).
#   - stock rdma-core 44, which the tests compare against
#   - the build tools the project uses (clang, lld, pkg-config, python3, valgrind, make, gcc)
#   - cargo-fuzz (tools/fuzz.sh, the `fuzz` check of make test), with `cargo install cargo-fuzz --locked` from
#     crates.io into ~/.cargo/bin when `cargo fuzz` is missing (~2 min once; the installed one is kept as it is)
#   - rustfmt and clippy (the `fmt` and `clippy` checks of make test), with `rustup component add` when `cargo fmt` or
#     `cargo clippy` is missing (a minimal rustup profile has neither)
#   - the third guest kernel, Linux 7.2 from Debian sid (GUEST_KERNEL=7.2; no bookworm package has it): with a
#     private apt configuration (tools/debian-apt.sh: build/apt-sid, sid main only; the host's /etc/apt is never
#     changed) the newest linux-binary-7.2.<N>+deb14-amd64, linux-modules-<same> and linux-base-<same> are
#     downloaded and unpacked (dpkg-deb -x) so that /lib/modules/<kver>/ holds the modules (with modules.builtin and
#     the config) and /boot/vmlinuz-<kver> the image, then `depmod <kver>`. Present = /boot/vmlinuz-7.2.* whose
#     /lib/modules/<kver> has modules.dep, modules.builtin and rdma_rxe (however it got there).
#     `tools/install-deps.sh --sid-kernel-into DIR` does only that download and unpack, into DIR instead of / (a
#     test of the path on a machine that has the kernel already).
#   - the Debian userlands the release cases chroot into (tests/guest/cases/70-release.sh): build/roots/trixie
#     (rdma-core 56.1) and build/roots/sid (rdma-core 65), each made once by `debootstrap --variant=minbase
#     --include=<ROOT_PACKAGES> <suite>` (~1-2 min each) with an empty /opt/rdma-core-rs/lib inside (where the
#     guest bind-mounts our build/lib); and build/roots/bookworm (rdma-core 44), made the same way for the packaging
#     case (tests/guest/cases/75-deb.sh installs our .debs there: the host's own system must never get them). A root
#     counts as made when its stamp (build/roots/<suite>/.rdma-core-rs-root: the suite, the package list, the mount
#     point) matches; anything else (no stamp, another list, a debootstrap that died half way) is made again from
#     scratch. RDMA_ROOTS_DIR=DIR uses roots made elsewhere as they are (never modified: only checked for their
#     binaries; a bookworm root missing there is not an error, only 75-deb@bookworm then fails saying so).
#   - for each root, the .debs of its rdma-core libraries (libibverbs1, librdmacm1 or librdmacm1t64) at the version
#     the root has (and ibverbs-providers, libibverbs-dev, librdmacm-dev, which apt upgrades with them), in
#     build/root-debs/<suite>/ (75-deb upgrades and downgrades them while our packages are installed): `apt-get
#     download` with a private configuration per suite (tools/debian-apt.sh: build/apt-<suite>; the roots are not
#     touched). The archive's newer version when it no longer serves the root's. A failure is a warning: only that
#     check of 75-deb needs them.
#   - what `make deb` and its check need: dpkg-dev (dpkg-shlibdeps) and lintian
#   - the Soft-iWARP module for the guest's kernel (Debian's kernels lack siw): tools/build-siw.sh builds it out of
#     tree into build/siw/<kver>/siw.ko for the three kernels (~30 s each once, then cached; it installs
#     linux-headers-<kver> and downloads linux-source-6.1 / linux-source-6.12 of that version; for sid's 7.2 it
#     builds inside a sid root made for that, build/roots/kbuild-<kver>, ~4 min once). A failure there is a
#     warning, not an error: only the 60-siw guest case needs the module, and it then fails saying so.
#
# Idempotent: when every package is already installed it does not touch apt or cargo (takes ~0.1 s).
# Prints one line of progress; on failure prints the reason (and the tail of apt's log) and exits non-zero.
#
#   tools/install-deps.sh            install what is missing
#   tools/install-deps.sh --check    only report what is missing (exit 1 if anything is)
#   tools/install-deps.sh --sid-kernel-into DIR   download and unpack sid's 7.2 kernel into DIR (a test; nothing else)
set -uo pipefail

PACKAGES=(
    # test guest
    qemu-system-x86 linux-image-amd64 busybox-static cpio kmod iproute2 xz-utils zstd
    # stock rdma-core 44 (reference implementation for comparisons)
    rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev
    # build / test tools
    clang lld pkg-config python3 valgrind make gcc
    # the trixie / sid / bookworm roots of the release and packaging cases
    debootstrap debian-archive-keyring
    # make deb (packaging/deb/build.sh) and its lintian check
    dpkg-dev lintian
)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=tools/debian-apt.sh
. "$REPO/tools/debian-apt.sh"

die() { echo "install-deps: FAILED: $*" >&2; exit 1; }

check_only=0 kernel_into=""
case "${1:-}" in
    --check) check_only=1 ;;
    --sid-kernel-into) [[ -n ${2:-} ]] || die "--sid-kernel-into needs a directory"; kernel_into=$2 ;;
    "") ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) die "unknown argument '$1' (usage: $0 [--check | --sid-kernel-into DIR])" ;;
esac

command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script supports Debian 12 (bookworm) only"

missing_packages() {
    local p st
    for p in "${PACKAGES[@]}"; do
        st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) || st=""
        [[ "$st" == ii* ]] || printf '%s\n' "$p"
    done
}

# The guest kernel series make test boots (GUEST_KERNEL=...): 6.1 comes with linux-image-amd64, 6.12 is installed
# by name below.
SERIES=(6.1 6.12)

# A package being "installed" is not quite enough for the guest: it also needs a kernel image of each series whose
# modules (with rdma_rxe) are present. Prints the problem, if any (one line per series).
kernel_problem() {
    local s
    for s in "${SERIES[@]}"; do series_problem "$s"; done
}
series_problem() { # SERIES
    local k v found=0
    for k in /boot/vmlinuz-"$1".*; do
        [[ -e "$k" ]] || continue
        v=${k#/boot/vmlinuz-}
        if [[ -f /lib/modules/$v/modules.dep ]] &&
           compgen -G "/lib/modules/$v/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko*" >/dev/null; then
            found=1
        fi
    done
    (( found )) || echo "no /boot/vmlinuz-$1.* with matching /lib/modules/<ver> (incl. rdma_rxe)"
}

# The 6.12 image package to install: the signed linux-image-6.12.<N>+deb12-amd64 of the highest version among those
# the archive lists (deterministic for a given archive state), and its headers.
k612_packages() {
    local img
    img=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
          awk '{print $1}' | sort -V | tail -n 1)
    [[ -n $img ]] || return 1
    printf '%s\n' "$img" "linux-headers-${img#linux-image-}"
}

# siw.ko for each guest kernel (cached: a few ms when it is built). Never fatal: see above.
siw_module() {
    local s
    for s in "${SERIES[@]}" "$SID_SERIES"; do
        GUEST_KERNEL=$s "$(dirname "$0")/build-siw.sh" > /dev/null ||
            echo "install-deps: WARNING: siw.ko for the $s kernel could not be built (see above; the 60-siw guest case will fail on $s); retry with GUEST_KERNEL=$s tools/build-siw.sh" >&2
    done
}
siw_check() {
    local s
    for s in "${SERIES[@]}" "$SID_SERIES"; do
        GUEST_KERNEL=$s "$(dirname "$0")/build-siw.sh" --check > /dev/null 2>&1 || return 1
    done
}

# ---- Linux 7.2 from sid ------------------------------------------------------------------------------------------
SID_SERIES=7.2
sid_kernel_problem() { # [DIR]: prints the problem, if any
    local root=${1:-} k v
    for k in "$root"/boot/vmlinuz-"$SID_SERIES".*; do
        [[ -e "$k" ]] || continue
        v=${k##*/vmlinuz-}
        [[ -f $root/lib/modules/$v/modules.dep && -f $root/lib/modules/$v/modules.builtin ]] &&
            compgen -G "$root/lib/modules/$v/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko*" >/dev/null && return 0
    done
    echo "no $root/boot/vmlinuz-$SID_SERIES.* with /lib/modules/<ver> (modules.dep, modules.builtin, rdma_rxe)"
}
# sid_kernel [DIR]: the newest linux-binary-7.2.<N>+deb14-amd64 that sid serves, with its modules and base package,
# unpacked into DIR (default /) and depmod'ed there. ~100 MB of downloads, ~1 min.
sid_kernel() {
    local root=${1:-/} pkg kver tmp deb
    echo "install-deps: Linux $SID_SERIES from sid into $root ..." >&2
    sid_apt_ready >>"$log" 2>&1 || { tail -n 20 "$log" >&2; die "apt-get update of the private sid list (build/apt-sid)"; }
    pkg=$(sid_apt_cache search --names-only "^linux-binary-${SID_SERIES//./\\.}\\.[0-9]+\\+deb[0-9]+-amd64\$" 2>/dev/null |
          awk '{print $1}' | sort -V | tail -n 1)
    [[ -n $pkg ]] || die "sid serves no linux-binary-$SID_SERIES.*-amd64 (apt-cache search with build/apt-sid)"
    kver=${pkg#linux-binary-}
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/install-deps-k.XXXXXX") || die "mktemp failed"
    (cd "$tmp" && timeout 1800 apt-get "${SID_APT_OPTS[@]}" -q download "linux-binary-$kver" "linux-modules-$kver" "linux-base-$kver") \
        >>"$log" 2>&1 || { rm -rf "$tmp"; tail -n 20 "$log" >&2; die "apt-get download of $kver's packages"; }
    mkdir -p "$tmp/x"
    for deb in "$tmp"/*.deb; do
        dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; die "dpkg-deb -x $deb"; }
    done
    [[ -f $tmp/x/usr/lib/modules/$kver/vmlinuz && -f $tmp/x/usr/lib/modules/$kver/modules.builtin ]] ||
        { rm -rf "$tmp"; die "$kver's packages hold no usr/lib/modules/$kver/vmlinuz or modules.builtin"; }
    mkdir -p "$root/lib/modules" "$root/boot" || die "cannot create $root/lib/modules, $root/boot"
    rm -rf "${root%/}/lib/modules/$kver.new"
    cp -a "$tmp/x/usr/lib/modules/$kver" "${root%/}/lib/modules/$kver.new" || die "cannot copy the modules into $root"
    rm -rf "${root%/}/lib/modules/$kver" && mv "${root%/}/lib/modules/$kver.new" "${root%/}/lib/modules/$kver" ||
        die "cannot install $root/lib/modules/$kver"
    cp "$tmp/x/usr/lib/modules/$kver/vmlinuz" "${root%/}/boot/vmlinuz-$kver.new" &&
        mv -f "${root%/}/boot/vmlinuz-$kver.new" "${root%/}/boot/vmlinuz-$kver" || die "cannot write $root/boot/vmlinuz-$kver"
    rm -rf "$tmp"
    if [[ $root == / ]]; then depmod "$kver"; else depmod -b "$root" "$kver"; fi >>"$log" 2>&1 ||
        die "depmod $kver (log: $log)"
    [[ -z $(sid_kernel_problem "${root%/}") ]] || die "after unpacking $kver: $(sid_kernel_problem "${root%/}")"
    echo "install-deps: $kver installed (${root%/}/boot/vmlinuz-$kver)" >&2
}

# ---- the release roots (Debian userlands for tests/guest/cases/70-release.sh) --------------------------------------
RELEASES=(trixie sid bookworm)
# Roots that RDMA_ROOTS_DIR may lack (only the packaging case needs it).
FOREIGN_OPTIONAL=" bookworm "
ROOT_PACKAGES=(ibverbs-utils rdmacm-utils perftest ibverbs-providers python3-pyverbs iproute2 libibverbs-dev
               librdmacm-dev)
ROOT_LIBDIR=/opt/rdma-core-rs/lib   # tests/guest/lib/testlib.sh's REL_LIBDIR: our build/lib is bind-mounted here
ROOT_STAMP=.rdma-core-rs-root
ROOTS_FOREIGN=0
[[ -n ${RDMA_ROOTS_DIR:-} ]] && ROOTS_FOREIGN=1
ROOTS_DIR=${RDMA_ROOTS_DIR:-$REPO/build/roots}
root_stamp_text() { # SUITE
    printf 'suite=%s\npackages=%s\nlibdir=%s\n' "$1" "$(IFS=,; echo "${ROOT_PACKAGES[*]}")" "$ROOT_LIBDIR"
}
root_problem() { # SUITE: prints the problem, if any
    local d=$ROOTS_DIR/$1
    if (( ROOTS_FOREIGN )); then   # made elsewhere: used as it is
        [[ ! -e $d && $FOREIGN_OPTIONAL == *" $1 "* ]] && return
        [[ -x $d/usr/bin/ibv_devinfo && -x $d/usr/bin/rping ]] || echo "$d has no ibv_devinfo / rping (RDMA_ROOTS_DIR)"
        return
    fi
    if [[ ! -f $d/$ROOT_STAMP ]]; then echo "no $1 root ($d)"
    elif [[ "$(head -n 3 "$d/$ROOT_STAMP")" != "$(root_stamp_text "$1")" ]]; then echo "$1 root made for another package list"
    elif [[ ! -d $d$ROOT_LIBDIR || ! -x $d/usr/bin/ibv_devinfo ]]; then echo "$1 root incomplete"
    fi
}
roots_problem() { local r; for r in "${RELEASES[@]}"; do root_problem "$r"; done; }
# unmount_under DIR: anything a failed debootstrap left mounted below DIR (proc, sys), deepest first.
unmount_under() {
    local m
    [[ -e $1 ]] || return 0
    while read -r m; do umount -l "$m" 2>/dev/null; done < <(awk -v d="$(realpath -m "$1")/" 'index($2 "/", d) == 1 { print $2 }' /proc/mounts | sort -r)
}
make_root() { # SUITE: debootstrap into a fresh directory, then put it in place
    local r=$1 d=$ROOTS_DIR/$1 tmp=$ROOTS_DIR/.$1.new mirror ver t0=$SECONDS
    mirror=$(debian_mirror) || die "cannot tell this host's Debian mirror (set RDMA_DEBIAN_MIRROR)"
    echo "install-deps: debootstrap $r into $d (~1-2 min) ..." >&2
    mkdir -p "$ROOTS_DIR" || die "cannot create $ROOTS_DIR"
    unmount_under "$tmp"; rm -rf --one-file-system "$tmp"
    if ! timeout 1800 "${SUDO[@]}" debootstrap --variant=minbase --include="$(IFS=,; echo "${ROOT_PACKAGES[*]}")" \
            "$r" "$tmp" "$mirror" >>"$log" 2>&1; then
        unmount_under "$tmp"
        echo "install-deps: FAILED: debootstrap $r (log: $log; the half-made root is $tmp, redone next time); last lines:" >&2
        tail -n 25 "$log" | sed 's/^/    /' >&2
        exit 1
    fi
    unmount_under "$tmp"
    mkdir -p "$tmp$ROOT_LIBDIR" || die "cannot create $tmp$ROOT_LIBDIR"
    rm -f "$tmp"/var/cache/apt/archives/*.deb
    ver=$(dpkg-query --admindir="$tmp/var/lib/dpkg" -W -f='${Version}' ibverbs-providers 2>/dev/null)
    { root_stamp_text "$r"; echo "rdma-core=$ver"; } > "$tmp/$ROOT_STAMP" || die "cannot write $tmp/$ROOT_STAMP"
    unmount_under "$d"; rm -rf --one-file-system "$d"
    mv "$tmp" "$d" || die "cannot move $tmp to $d"
    echo "install-deps: $r root made in $((SECONDS - t0)) s (rdma-core $ver)" >&2
}
release_roots() {
    local r
    for r in "${RELEASES[@]}"; do
        [[ -z $(root_problem "$r") ]] && continue
        (( ROOTS_FOREIGN )) && die "$(root_problem "$r") (RDMA_ROOTS_DIR roots are never made or changed here)"
        make_root "$r"
    done
}

# The .debs of each root's rdma-core libraries, at the root's versions (75-deb's upgrade scenario).
ROOT_DEBS_DIR=$REPO/build/root-debs
# The packages an update of rdma-core's libraries moves together: the two libraries, and those that depend on them
# at their exact version (libibverbs-dev, librdmacm-dev) or are pinned with them (ibverbs-providers), or apt keeps
# the update back.
root_deb_names() { # SUITE: "package version" of the root's libibverbs1, librdmacm1 / librdmacm1t64 and those
    dpkg-query --admindir="$ROOTS_DIR/$1/var/lib/dpkg" -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' \
        libibverbs1 'librdmacm1*' ibverbs-providers libibverbs-dev librdmacm-dev 2>/dev/null | awk '$1 == "ii" { print $2, $3 }'
}
# Open MPI for the bookworm root (75-deb runs an MPI job over our libraries, the packages installed with apt from a
# local repository in the guest): python3-mpi4py and whatever the root lacks of its dependencies (~31 .debs, 19 MB),
# in build/root-debs/bookworm/mpi/, the list the root's own dpkg database and bookworm's lists give.
MPI_SUITE=bookworm MPI_PACKAGE=python3-mpi4py
root_debs_problem() { # prints the roots whose .debs are missing
    local r p v
    for r in "${RELEASES[@]}"; do
        [[ -x $ROOTS_DIR/$r/usr/bin/ibv_devinfo ]] || continue
        while read -r p v; do
            compgen -G "$ROOT_DEBS_DIR/$r/${p}_*.deb" > /dev/null || { echo "$r"; break; }
        done < <(root_deb_names "$r")
        [[ $r == "$MPI_SUITE" && ! -f $ROOT_DEBS_DIR/$r/mpi/.complete ]] && echo "$r"
    done | sort -u
}
mpi_debs() { # SUITE (suite_apt_ready done): the MPI closure into $ROOT_DEBS_DIR/SUITE/mpi
    local r=$1 d=$ROOT_DEBS_DIR/$1/mpi want
    mapfile -t want < <(apt-get "${SUITE_APT_OPTS[@]}" -o "Dir::State::status=$ROOTS_DIR/$r/var/lib/dpkg/status" \
                            -o Debug::NoLocking=1 -s install --no-install-recommends "$MPI_PACKAGE" |
                        awk '$1 == "Inst" { v = $3; if (v ~ /^\[/) v = $4; gsub(/[()]/, "", v); print $2 "=" v }')
    (( ${#want[@]} )) || { echo "install-deps: no $MPI_PACKAGE closure for the $r root" >&2; return 1; }
    # The index of a flat file repository of them (75-deb's apt source in the guest, where scanning costs ~10 s).
    mkdir -p "$d" && (cd "$d" && timeout 900 apt-get "${SUITE_APT_OPTS[@]}" -q download "${want[@]}" &&
                      dpkg-scanpackages . /dev/null > Packages) &&
        printf '%s\n' "${want[@]}" > "$d/.complete"
}
root_debs() {
    local r p v want
    for r in $(root_debs_problem); do
        want=()
        while read -r p v; do want+=("$p=$v"); done < <(root_deb_names "$r")
        echo "install-deps: the $r root's ${want[*]} .debs into $ROOT_DEBS_DIR/$r ..." >&2
        if ! suite_apt_ready "$r" >>"$log" 2>&1; then
            echo "install-deps: WARNING: apt-get update of build/apt-$r failed (log: $log); 75-deb@$r cannot reinstall rdma-core's .debs" >&2
            continue
        fi
        mkdir -p "$ROOT_DEBS_DIR/$r" || die "cannot create $ROOT_DEBS_DIR/$r"
        # The root's version; the archive's current one when it no longer has it.
        (cd "$ROOT_DEBS_DIR/$r" && { timeout 900 apt-get "${SUITE_APT_OPTS[@]}" -q download "${want[@]}" ||
                                     timeout 900 apt-get "${SUITE_APT_OPTS[@]}" -q download "${want[@]%%=*}"; }) >>"$log" 2>&1 ||
            echo "install-deps: WARNING: apt-get download ${want[*]} for the $r root failed (log: $log); 75-deb@$r cannot reinstall rdma-core's .debs" >&2
        if [[ $r == "$MPI_SUITE" && ! -f $ROOT_DEBS_DIR/$r/mpi/.complete ]]; then
            echo "install-deps: $MPI_PACKAGE and its dependencies for the $r root into $ROOT_DEBS_DIR/$r/mpi ..." >&2
            mpi_debs "$r" >>"$log" 2>&1 ||
                echo "install-deps: WARNING: downloading $MPI_PACKAGE for the $r root failed (log: $log); 75-deb@$r cannot run MPI" >&2
        fi
    done
}

# cargo-fuzz: the version tools/fuzz.sh was written against; any installed version is accepted.
CARGO_FUZZ_VERSION=0.13.2
cargo_fuzz_present() { PATH="$HOME/.cargo/bin:$PATH" cargo fuzz --version >/dev/null 2>&1; }
cargo_fuzz() {
    cargo_fuzz_present && return 0
    echo "install-deps: installing cargo-fuzz $CARGO_FUZZ_VERSION (cargo install, ~2 min) ..." >&2
    local clog
    clog=$(mktemp /tmp/install-deps-cargo-fuzz.XXXXXX.log) || die "mktemp failed"
    if ! PATH="$HOME/.cargo/bin:$PATH" timeout 1800 cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked \
            >"$clog" 2>&1; then
        echo "install-deps: FAILED: cargo install cargo-fuzz (log: $clog); last lines:" >&2
        tail -n 25 "$clog" | sed 's/^/    /' >&2
        exit 1
    fi
    rm -f "$clog"
}
cargo_fuzz_missing=""
cargo_fuzz_present || cargo_fuzz_missing="cargo-fuzz"

# rustfmt and clippy: components of the toolchain cargo runs (rustup), added when missing.
rust_components_missing() {
    PATH="$HOME/.cargo/bin:$PATH" cargo fmt --version >/dev/null 2>&1 || echo rustfmt
    PATH="$HOME/.cargo/bin:$PATH" cargo clippy --version >/dev/null 2>&1 || echo clippy
}
rust_components() {
    local want clog
    mapfile -t want < <(rust_components_missing)
    (( ${#want[@]} )) || return 0
    PATH="$HOME/.cargo/bin:$PATH" command -v rustup >/dev/null 2>&1 ||
        die "${want[*]} missing and no rustup to add them (install the Rust toolchain with rustup)"
    echo "install-deps: adding ${want[*]} (rustup component add) ..." >&2
    clog=$(mktemp /tmp/install-deps-rustup.XXXXXX.log) || die "mktemp failed"
    if ! PATH="$HOME/.cargo/bin:$PATH" timeout 600 rustup component add "${want[@]}" >"$clog" 2>&1; then
        echo "install-deps: FAILED: rustup component add ${want[*]} (log: $clog); last lines:" >&2
        tail -n 25 "$clog" | sed 's/^/    /' >&2
        exit 1
    fi
    rm -f "$clog"
}
rust_missing=$(rust_components_missing | tr '\n' ' ')

log=$(mktemp /tmp/install-deps.XXXXXX.log) || die "mktemp failed"
trap 'rc=$?; (( rc == 0 )) && rm -f "$log"; exit $rc' EXIT   # kept when something failed
SUDO=()
if (( EUID != 0 )); then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo"
    SUDO=(sudo -n)
fi
# Serialize concurrent runs (two test runners starting at once).
lock() {
    exec 9>/tmp/.rdma-core-rs-install-deps.lock
    flock -w 1800 9 || die "timed out waiting for another install-deps to finish"
}

if [[ -n $kernel_into ]]; then
    mkdir -p "$kernel_into" || die "cannot create $kernel_into"
    sid_kernel "$(cd "$kernel_into" && pwd -P)"
    exit 0
fi

# What is not apt's: sid's kernel, the release roots (made after the apt part, which installs debootstrap).
extras() {
    [[ -z $(sid_kernel_problem) ]] || { lock; [[ -z $(sid_kernel_problem) ]] || sid_kernel; }
    [[ -z $(roots_problem) ]] || { lock; release_roots; }
    [[ -z $(root_debs_problem) ]] || { lock; root_debs; }
}
sprob=$(sid_kernel_problem)
rprob=$(roots_problem | tr '\n' ';')
dprob=$(root_debs_problem | sed 's/$/ root .debs (build\/root-debs)/' | tr '\n' ';')

mapfile -t missing < <(missing_packages)
kprob=$(kernel_problem)
siw_missing=""
siw_check || siw_missing="siw.ko (tools/build-siw.sh)"

if (( ${#missing[@]} == 0 )) && [[ -z "$kprob" ]]; then
    if (( check_only )) && [[ -n $siw_missing$cargo_fuzz_missing$rust_missing$sprob$rprob$dprob ]]; then
        echo "install-deps: all ${#PACKAGES[@]} packages present; missing: $siw_missing $cargo_fuzz_missing $rust_missing $sprob $rprob $dprob" >&2
        exit 1
    fi
    (( check_only )) || extras
    (( check_only )) || [[ -z $siw_missing ]] || siw_module
    (( check_only )) || rust_components
    (( check_only )) || cargo_fuzz
    echo "install-deps: all ${#PACKAGES[@]} packages present" >&2
    exit 0
fi

if (( check_only )); then
    echo "install-deps: missing: ${missing[*]:-} ${kprob:+(kernel: $kprob)} $siw_missing $cargo_fuzz_missing $rust_missing $sprob $rprob $dprob" >&2
    exit 1
fi

# The kernel files may be gone while dpkg still lists the package: reinstall it then.
reinstall=()
if [[ -n "$(series_problem 6.1)" ]] && [[ " ${missing[*]} " != *" linux-image-amd64 "* ]]; then
    reinstall=(--reinstall)
    kpkg=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null | sed -n 's/^\(linux-image-[^ ,]*\).*/\1/p')
    missing+=(linux-image-amd64 ${kpkg:+"$kpkg"})
fi

echo "install-deps: installing ${missing[*]} (apt, may take a few minutes) ..." >&2

export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-q -y -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

run_logged() {
    if ! timeout 1800 "${SUDO[@]}" "$@" >>"$log" 2>&1; then
        echo "install-deps: FAILED: '$*' (log: $log); last lines:" >&2
        tail -n 25 "$log" | sed 's/^/    /' >&2
        exit 1
    fi
}

lock

run_logged apt-get "${APT_OPTS[@]}" update
# 6.12: chosen only now, from the freshly updated lists.
if [[ -n "$(series_problem 6.12)" ]]; then
    mapfile -t k612 < <(k612_packages)
    (( ${#k612[@]} )) || die "no linux-image-6.12.*+deb12-amd64 in the archive (apt-cache search; is bookworm-security / bookworm-updates in sources.list?)"
    echo "install-deps: 6.12 kernel: ${k612[*]}" >&2
    # Listed by dpkg but its files gone: reinstall.
    [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "${k612[0]}" 2>/dev/null) == ii* ]] && reinstall=(--reinstall)
    missing+=("${k612[@]}")
fi
run_logged apt-get "${APT_OPTS[@]}" install --no-install-recommends "${reinstall[@]}" "${missing[@]}"

mapfile -t still < <(missing_packages)
(( ${#still[@]} == 0 )) || die "still missing after apt-get install: ${still[*]} (log: $log)"
kprob=$(kernel_problem)
[[ -z "$kprob" ]] || die "kernel: $kprob (log: $log)"
extras
siw_module
rust_components
cargo_fuzz
echo "install-deps: done" >&2
