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
#   - the Soft-iWARP module for the guest's kernel (Debian's kernels lack siw): tools/build-siw.sh builds it out of
#     tree into build/siw/<kver>/siw.ko for both kernels (~30 s each once, then cached; it installs
#     linux-headers-<kver> and downloads linux-source-6.1 / linux-source-6.12 of that version). A failure there is a
#     warning, not an error: only the 60-siw guest case needs the module, and it then fails saying so.
#
# Idempotent: when every package is already installed it does not touch apt or cargo (takes ~0.1 s).
# Prints one line of progress; on failure prints the reason (and the tail of apt's log) and exits non-zero.
#
#   tools/install-deps.sh            install what is missing
#   tools/install-deps.sh --check    only report what is missing (exit 1 if anything is)
set -uo pipefail

PACKAGES=(
    # test guest
    qemu-system-x86 linux-image-amd64 busybox-static cpio kmod iproute2 xz-utils zstd
    # stock rdma-core 44 (reference implementation for comparisons)
    rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest libibverbs-dev librdmacm-dev
    # build / test tools
    clang lld pkg-config python3 valgrind make gcc
)

die() { echo "install-deps: FAILED: $*" >&2; exit 1; }

check_only=0
case "${1:-}" in
    --check) check_only=1 ;;
    "") ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d'; exit 0 ;;
    *) die "unknown argument '$1' (usage: $0 [--check])" ;;
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
    for s in "${SERIES[@]}"; do
        GUEST_KERNEL=$s "$(dirname "$0")/build-siw.sh" > /dev/null ||
            echo "install-deps: WARNING: siw.ko for the $s kernel could not be built (see above; the 60-siw guest case will fail on $s); retry with GUEST_KERNEL=$s tools/build-siw.sh" >&2
    done
}
siw_check() {
    local s
    for s in "${SERIES[@]}"; do
        GUEST_KERNEL=$s "$(dirname "$0")/build-siw.sh" --check > /dev/null 2>&1 || return 1
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

mapfile -t missing < <(missing_packages)
kprob=$(kernel_problem)
siw_missing=""
siw_check || siw_missing="siw.ko (tools/build-siw.sh)"

if (( ${#missing[@]} == 0 )) && [[ -z "$kprob" ]]; then
    if (( check_only )) && [[ -n $siw_missing$cargo_fuzz_missing$rust_missing ]]; then
        echo "install-deps: all ${#PACKAGES[@]} packages present; missing: $siw_missing $cargo_fuzz_missing $rust_missing" >&2
        exit 1
    fi
    (( check_only )) || [[ -z $siw_missing ]] || siw_module
    (( check_only )) || rust_components
    (( check_only )) || cargo_fuzz
    echo "install-deps: all ${#PACKAGES[@]} packages present" >&2
    exit 0
fi

if (( check_only )); then
    echo "install-deps: missing: ${missing[*]:-} ${kprob:+(kernel: $kprob)} $siw_missing $cargo_fuzz_missing $rust_missing" >&2
    exit 1
fi

SUDO=()
if (( EUID != 0 )); then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install ${missing[*]}"
    SUDO=(sudo -n)
fi

# The kernel files may be gone while dpkg still lists the package: reinstall it then.
reinstall=()
if [[ -n "$(series_problem 6.1)" ]] && [[ " ${missing[*]} " != *" linux-image-amd64 "* ]]; then
    reinstall=(--reinstall)
    kpkg=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null | sed -n 's/^\(linux-image-[^ ,]*\).*/\1/p')
    missing+=(linux-image-amd64 ${kpkg:+"$kpkg"})
fi

echo "install-deps: installing ${missing[*]} (apt, may take a few minutes) ..." >&2

log=$(mktemp /tmp/install-deps.XXXXXX.log) || die "mktemp failed"
export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-q -y -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

run_logged() {
    if ! timeout 1800 "${SUDO[@]}" "$@" >>"$log" 2>&1; then
        echo "install-deps: FAILED: '$*' (log: $log); last lines:" >&2
        tail -n 25 "$log" | sed 's/^/    /' >&2
        exit 1
    fi
}

# Serialize concurrent runs (two test runners starting at once).
exec 9>/tmp/.rdma-core-rs-install-deps.lock
flock -w 1800 9 || die "timed out waiting for another install-deps to finish"

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
rm -f "$log"
siw_module
rust_components
cargo_fuzz
echo "install-deps: done" >&2
