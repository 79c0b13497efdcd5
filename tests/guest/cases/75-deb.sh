#!/bin/bash
# Our Debian packages (make deb: build/deb/libibverbs1-rs_*.deb, librdmacm1-rs_*.deb; docs/packaging.md) installed
# as the system's rdma-core, and removed again, in a Debian root: RELEASE=bookworm (rdma-core 44, the default),
# trixie (56.1) or sid (65), chrooted into build/roots/$RELEASE through testlib's rel_mount (a throw-away overlay:
# dpkg writes only there; the host's own system never gets our packages). Every program runs with no library
# variable at all (chrooted with LD_LIBRARY_PATH and LD_PRELOAD unset), so which library it gets is the dynamic
# linker's own choice. The administrator's commands are apt's, as README says: the guest has no network, so the
# root's apt source is replaced (in the overlay) by a local file repository, /srv/rs75, holding rdma-core's libibverbs1
# and librdmacm .debs at the root's version (build/root-debs/$RELEASE from tools/install-deps.sh), the same repacked as
# <version>+rs75 (an upgrade), and for bookworm Open MPI (python3-mpi4py and the dependencies the root lacks,
# build/root-debs/bookworm/mpi); our own packages are installed as local files (apt install ./lib*-rs_*.deb). dpkg
# itself only where it is the point (the refusal of a conflicting package, --verify). The checks read the root's
# dpkg database from outside (dpkg-query/dpkg-divert --admindir), which costs no chroot.
#   debs      the packages hold the libraries under test: the GNU build IDs of their libraries equal build/lib's
#   root      the root's rdma-core (packages, versions, the files its SONAME links name) and ours, all known
#   apt-repo  the local repository made and apt-get update of it
#   mpi-install  (bookworm) apt install python3-mpi4py from it: Open MPI, UCX, libfabric, with rdma-core's libraries
#   install   apt install of both .debs: the diversions of rdma-core's SONAME links, rdma-core's packages (and every
#             package depending on them) still installed, nothing else changed
#   ours/*    the corpus (ibv_devinfo, ibv_rc_pingpong, rping, rstream, ib_write_bw pairs, pyverbs, rdma-core's rxe
#             plug-in under RDMAV_PROVIDER=plugin): /proc/<pid>/maps of each process (server and client) map our
#             lib*.so.1.<minor>.65.100, owned by our package (dpkg -S), and not rdma-core's file; rspreload: a plain
#             TCP server and client (tests/c/rsock_preload) under rdma-core's own librspreload.so, LD_PRELOAD its only
#             variable, map our librdmacm, and the rxe packet counters show the bytes went over RDMA; mpi (bookworm):
#             a 2-rank Open MPI job (mpirun, mpi4py), each rank's maps
#   upgrade   while ours are installed, apt upgrade: rdma-core's libibverbs1, librdmacm, ibverbs-providers and -dev
#             packages to <version>+rs75; rdma-core's
#             links go to the diverted names, ours stays the SONAME target and new programs (ibv_devinfo, rping)
#             still map ours
#   downgrade apt install --allow-downgrades of the root's version: the links as after the upgrade
#   plugin    (ours/plugin) rdma-core's rxe plug-in mapped under ours with RDMAV_PROVIDER=plugin
#   conflict  dpkg -i of a stand-in libibverbs1 66.0 (made here with dpkg-deb) is refused, naming our package;
#             conflict-apt: with it in the repository, apt upgrade keeps libibverbs1 back and apt full-upgrade (-s)
#             would remove ours: never a silent switch
#   remove    apt remove of both: no diversion left, the SHA-256 of every file (the target of every link) of
#             libibverbs1, librdmacm1(t64) and ibverbs-providers equal to before the install, dpkg --verify clean,
#             the installed package list equal to before; purge: apt purge leaves no trace of ours in dpkg's database
#   checksums, dpkg-verify: the remove's file checks, each its own line
#   stock/*   the corpus again: rdma-core's own files mapped
# CASE_LIBS does not apply: the case installs our packages by definition.
set -u
source "$(dirname "$0")/../lib/testlib.sh"
RELEASE=${RELEASE:-bookworm}
T=${CASE_TIMEOUT:-60}
P=deb/$RELEASE
SYS=/usr/lib/x86_64-linux-gnu
DEBS=$REPO/build/deb
ROOTDEBS=$REPO/build/root-debs/$RELEASE
case_t0=$(now)
echo "# 75-deb: our packages in the $RELEASE root, kernel $(uname -r)"

debs=("$DEBS"/libibverbs1-rs_*_amd64.deb "$DEBS"/librdmacm1-rs_*_amd64.deb)
if [[ ! -f ${debs[0]} || ! -f ${debs[1]} ]]; then
    fail "$P/debs" "no build/deb/libibverbs1-rs_*.deb / librdmacm1-rs_*.deb (make deb on the host)"
    summary "75-deb-$RELEASE"; exit 1
fi
# The packages must hold the libraries under test (make deb after make): the GNU build ID survives the packaging's
# strip, so it is compared with build/lib's.
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: //p'; }
stale=""
for i in 0 1; do
    l=libibverbs; (( i )) && l=librdmacm
    dpkg-deb --fsys-tarfile "${debs[$i]}" | tar -xO --wildcards "./usr/lib/x86_64-linux-gnu/$l.so.1.*" > "$WORK/$l.deb.so"
    a=$(build_id "$WORK/$l.deb.so") b=$(build_id "$OURS/$l.so.1")
    [[ -n $a && $a == "$b" ]] || stale+="${debs[$i]##*/} holds build ID '${a:-none}', $OURS/$l.so.1 '${b:-none}' "
done
if [[ -n $stale ]]; then
    fail "$P/debs" "${stale}(make deb again)"
    summary "75-deb-$RELEASE"; exit 1
fi
pass "$P/debs" "${debs[0]##*/} and ${debs[1]##*/} hold build/lib's libraries (build IDs $(build_id "$WORK/libibverbs.deb.so" | cut -c1-12), $(build_id "$WORK/librdmacm.deb.so" | cut -c1-12))"
if ! rel_mount "$RELEASE"; then
    fail "$P/root" "$REL_ERROR"
    summary "75-deb-$RELEASE"; exit 1
fi
trap rel_umount EXIT
ADM=--admindir=$REL_ROOT/var/lib/dpkg
# X CMD...: runs CMD in the root with no library variable; in the background, ( exec ... ) & keeps the program's pid.
X() { chroot "$REL_ROOT" /usr/bin/env -u LD_LIBRARY_PATH -u LD_PRELOAD \
          PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp "$@"; }
XE() { exec chroot "$REL_ROOT" /usr/bin/env -u LD_LIBRARY_PATH -u LD_PRELOAD \
          PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp "$@"; }
RDMACM_PKG=$(dpkg-query "$ADM" -W -f='${db:Status-Abbrev} ${Package}\n' 'librdmacm1*' 2>/dev/null | awk '$1 == "ii" { print $2 }')
RDMA_PKGS="libibverbs1 $RDMACM_PKG ibverbs-providers"
RELVER=$(dpkg-query "$ADM" -W -f='${Version}' libibverbs1)
# The file names behind the SONAME links: rdma-core's now, ours from our packages.
RDMA_IBV=$(readlink "$REL_ROOT$SYS/libibverbs.so.1") RDMA_CM=$(readlink "$REL_ROOT$SYS/librdmacm.so.1")
OUR_IBV=$(dpkg-deb -c "${debs[0]}" | sed -n 's|.*/libibverbs\.so\.1 -> ||p') OUR_CM=$(dpkg-deb -c "${debs[1]}" | sed -n 's|.*/librdmacm\.so\.1 -> ||p')
# Every name a later check compares with must be known, or a comparison of two empty strings would pass.
why=""
for v in RDMACM_PKG RELVER RDMA_IBV RDMA_CM OUR_IBV OUR_CM; do [[ -n ${!v} ]] || why+="$v unknown "; done
[[ -n $RDMA_IBV && -f $REL_ROOT$SYS/$RDMA_IBV && -n $RDMA_CM && -f $REL_ROOT$SYS/$RDMA_CM ]] ||
    why+="rdma-core's $SYS/libibverbs.so.1 / librdmacm.so.1 do not name a file "
if [[ -n $why ]]; then
    fail "$P/root" "$why"
    summary "75-deb-$RELEASE"; exit 1
fi
pass "$P/root" "rdma-core $RELVER ($RDMA_PKGS: $RDMA_IBV, $RDMA_CM); ours: ${debs[0]##*/} ($OUR_IBV), ${debs[1]##*/} ($OUR_CM)"
cp "${debs[@]}" "$REL_ROOT/tmp/"
CBIN=${CM_C_BIN:-$REPO/tests/out/c}
[[ -x $CBIN/rsock_preload ]] && cp "$CBIN/rsock_preload" "$REL_ROOT/tmp/"
cat > "$REL_ROOT/tmp/mpi_maps.py" <<'EOF'
from mpi4py import MPI
c = MPI.COMM_WORLD
r = c.Get_rank()
x = c.sendrecv(b"x" * 100000, dest=1 - r, source=1 - r)
print("rank", r, "got", len(x), flush=True)
m = sorted(set(l.split()[-1] for l in open("/proc/self/maps") if any(n in l for n in ("/libibverbs.so", "/librdmacm.so", "/libfabric.so"))))
print("rank", r, "maps:", " ".join(m), flush=True)
EOF

# ---- helpers ---------------------------------------------------------------------------------------------------------
# The SHA-256 of every file of rdma-core's packages (a link: its target), as dpkg lists them; read from outside.
sums() {
    local f files=() links=()
    while read -r f; do
        if [[ -L $REL_ROOT$f ]]; then links+=("link $f -> $(readlink "$REL_ROOT$f")")
        elif [[ -f $REL_ROOT$f ]]; then files+=("$REL_ROOT$f"); fi
    done < <(dpkg-query "$ADM" -L $RDMA_PKGS | sort -u)
    { printf '%s\n' "${links[@]}"; sha256sum "${files[@]}" | sed "s| $REL_ROOT| |"; } | sort
}
# The installed packages (a removed package with maintainer scripts stays listed as "rc" until purged).
installed() { dpkg-query "$ADM" -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' | grep '^ii' | sort; }
diversions() { dpkg-divert "$ADM" --list | grep -E ' by lib(ibverbs|rdmacm)1-rs$' | sort; }
owner() { local o; o=$(dpkg-query "$ADM" -S "$1" 2>/dev/null | tail -n 1); echo "${o%%:*}"; }
# A ARGS...: apt in the root, as an administrator runs it (-y; dpkg without fsync: the overlay is thrown away, and
# under TCG it halves the time of an install).
A() { X env DEBIAN_FRONTEND=noninteractive apt -y -q -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-unsafe-io "$@"; }
# The rxe ports' sent packets, both devices (as 45-rsocket).
pkts() {
    local a b
    read -r a < "/sys/class/infiniband/$DEV0/ports/1/hw_counters/sent_pkts" || a=0
    read -r b < "/sys/class/infiniband/$DEV1/ports/1/hw_counters/sent_pkts" || b=0
    echo $((a + b))
}

# grab_maps PID FILE LIBS: waits (at most 20 s) until PID has mapped a file of each of LIBS (libibverbs librdmacm),
# then copies its maps to FILE. 1 when PID exited first. Read from outside the root with bash builtins (no process
# per poll), so that a short-lived client is caught too.
grab_maps() {
    local pid=$1 f=$2 libs=$3 deadline=$((SECONDS + 20)) l ok m
    while (( SECONDS < deadline )); do
        if mapfile -t m < "/proc/$pid/maps" 2>/dev/null; then
            ok=1
            for l in $libs; do [[ "${m[*]}" == *"/$l.so.1"* ]] || ok=0; done
            if (( ok )); then printf '%s\n' "${m[@]}" > "$f"; return 0; fi
        fi
        kill -0 "$pid" 2>/dev/null || return 1
    done
    return 1
}

# maps_why MAPS LIBS WHO: empty when MAPS maps exactly the expected file of each of LIBS: WHO=ours our
# lib*.so.1.<minor>.65.100 (and dpkg says our package owns it), WHO=stock rdma-core's.
maps_why() {
    local m=$1 libs=$2 who=$3 l got want owner why=""
    for l in $libs; do
        got=$(grep -oE "/$l\.so\.1[^/ ]*\$" "$m" | sort -u | tr -d / | tr '\n' ' ')
        got=${got% }
        case $l:$who in
            libibverbs:ours) want=$OUR_IBV ;; librdmacm:ours) want=$OUR_CM ;;
            libibverbs:stock) want=$RDMA_IBV ;; librdmacm:stock) want=$RDMA_CM ;;
        esac
        if [[ $got != "$want" ]]; then why+="$l: mapped '${got:-nothing}', not $want "; continue; fi
        owner=$(owner "$SYS/$got")
        [[ $who == ours && $owner != "${l}1-rs" ]] && why+="$SYS/$got belongs to '$owner' "
        [[ $who == stock && $owner == *-rs ]] && why+="$SYS/$got belongs to '$owner' "
    done
    echo "$why"
}

# wait_or_kill PID SECS: waits for PID's exit (its status in WAITED), killing it after SECS.
wait_or_kill() {
    local pid=$1 deadline=$((SECONDS + $2))
    while kill -0 "$pid" 2>/dev/null && (( SECONDS < deadline )); do sleep 0.1; done
    kill "$pid" 2>/dev/null
    wait "$pid"; WAITED=$?
}

# one NAME WHO LIBS RE CMD...: a single program (no library variable); its maps and its output (RE) judged.
# Three tries: a program that ends before its maps are read once.
one() {
    local name=$1 who=$2 libs=$3 re=$4 try pid why t0; shift 4
    local f=$WORK/${name//\//_}
    t0=$(now)
    for try in 1 2 3; do
        ( XE "$@" ) > "$f.out" 2>&1 &
        pid=$!
        grab_maps "$pid" "$f.maps" "$libs" && break
        wait "$pid"
    done
    wait_or_kill "$pid" "$T"
    why=$( [[ -s $f.maps ]] && maps_why "$f.maps" "$libs" "$who" || echo "exited before its maps were read ")
    (( WAITED == 0 )) || why+="exit $WAITED "
    grep -Eq -- "$re" "$f.out" || why+="output lacks /$re/ "
    if [[ -z $why ]]; then pass "$name" "$(dur "$t0" "$(now)"): $(grep -oE "/lib(ibverbs|rdmacm)\.so\.1[^/ ]*\$" "$f.maps" | sort -u | tr -d / | tr '\n' ' ')mapped"
    else fail "$name" "$why" "$f.out"; rm -f "$f.maps"; fi
    rm -f "$f.maps"
}

# duo NAME WHO LIBS tcp:PORT|cm "SERVER" "CLIENT" CLIENT_RE: a server/client pair; both processes' maps judged
# (and, when DUO_MAPS_RE is set, must both match it).
# tcp:PORT: the client starts once the server listens on PORT; cm: an rdma_cm listener (not in /proc/net/tcp), so
# the client is retried while it is refused (CM_RETRY_RE, testlib) and the server runs, for 15 s.
duo() {
    local name=$1 who=$2 libs=$3 ready=$4 scmd=$5 ccmd=$6 re=$7 spid cpid why="" f=$WORK/${1//\//_} deadline src t0
    t0=$(now)
    # shellcheck disable=SC2086
    ( XE $scmd ) > "$f.srv" 2>&1 &
    spid=$!
    grab_maps "$spid" "$f.smaps" "$libs" || why+="server: exited before its maps were read "
    if [[ -z $why && $ready == tcp:* ]]; then
        wait_tcp_listen "${ready#tcp:}" "$T" "$spid" || why+="server never listened on port ${ready#tcp:} "
    fi
    deadline=$((SECONDS + 15))
    while [[ -z $why ]]; do
        sleep 0.3
        # shellcheck disable=SC2086
        ( XE $ccmd ) > "$f.cli" 2>&1 &
        cpid=$!
        grab_maps "$cpid" "$f.cmaps" "$libs"
        wait_or_kill "$cpid" "$T"
        [[ $ready == cm ]] && cm_match "$CM_RETRY_RE" "$f.cli" && kill -0 "$spid" 2>/dev/null && (( SECONDS < deadline )) &&
            continue
        break
    done
    if [[ -z $why ]]; then
        (( WAITED == 0 )) || why+="client exit $WAITED "
        wait_or_kill "$spid" "$T"; src=$WAITED
        (( src == 0 )) || why+="server exit $src "
        [[ -s $f.cmaps ]] || why+="client: exited before its maps were read "
        grep -Eq -- "$re" "$f.cli" || why+="client output lacks /$re/ "
        [[ -s $f.smaps ]] && why+=$(maps_why "$f.smaps" "$libs" "$who" | sed 's/^./server: &/')
        [[ -s $f.cmaps ]] && why+=$(maps_why "$f.cmaps" "$libs" "$who" | sed 's/^./client: &/')
        if [[ -n ${DUO_MAPS_RE:-} ]]; then
            grep -Eq -- "$DUO_MAPS_RE" "$f.smaps" || why+="server maps lack /$DUO_MAPS_RE/ "
            grep -Eq -- "$DUO_MAPS_RE" "$f.cmaps" || why+="client maps lack /$DUO_MAPS_RE/ "
        fi
    else
        wait_or_kill "$spid" 1
    fi
    if [[ -z $why ]]; then
        pass "$name" "$(dur "$t0" "$(now)"): server and client map $(grep -oE "/lib(ibverbs|rdmacm)\.so\.1[^/ ]*\$" "$f.smaps" | sort -u | tr -d / | tr '\n' ' ')"
    else
        fail "$name" "$why" "$f.srv" "$f.cli"
    fi
    rm -f "$f.smaps" "$f.cmaps"
}

tport=19500 cport=7800
RS_RE='^(custom|[0-9]+[kmg_]*) +[0-9.]+[kmg]? +[0-9.]+[kmg]? +[0-9.]+[kmg]? +[0-9.]+[kmg]? +[0-9.]+s'   # as 70-release
PERF_RE='^ *[0-9]+ +[0-9]+ +([0-9.]+|inf) +([0-9.]+|inf)'
corpus() { # WHO: ours | stock
    local w=$1
    one "$P/$w/ibv_devinfo" "$w" libibverbs "hca_id:[[:space:]]+$DEV0" ibv_devinfo -d "$DEV0"
    tport=$((tport + 1))
    duo "$P/$w/rc_pingpong" "$w" libibverbs "tcp:$tport" "ibv_rc_pingpong -d $DEV0 -g $GID0 -p $tport -n 20" \
        "ibv_rc_pingpong -d $DEV1 -g $GID1 -p $tport -n 20 $IP0" '[0-9]+ bytes in [0-9.]+ seconds'
    cport=$((cport + 1))
    duo "$P/$w/rping" "$w" "libibverbs librdmacm" cm "rping -s -v -a $IP0 -p $cport -C 3" \
        "rping -c -v -a $IP0 -I $IP1 -p $cport -C 3" 'ping data: rdma-ping-2: '
    cport=$((cport + 1))
    duo "$P/$w/rstream" "$w" "libibverbs librdmacm" cm "rstream -b $IP0 -p $cport -S 8192 -C 20" \
        "rstream -s $IP0 -b $IP1 -p $cport -S 8192 -C 20" "$RS_RE"
    tport=$((tport + 1))
    duo "$P/$w/ib_write_bw" "$w" "libibverbs librdmacm" "tcp:$tport" "ib_write_bw -d $DEV0 -x $GID0 -n 20 -p $tport" \
        "ib_write_bw -d $DEV1 -x $GID1 -n 20 -p $tport $IP0" "$PERF_RE"
    # pyverbs reads its own maps (paths as the root sees them).
    X python3 -c 'import pyverbs.device as d
print(sorted(x.name.decode() for x in d.get_device_list()))
print(open("/proc/self/maps").read())' > "$WORK/pyverbs.$w" 2>&1
    local why
    why=$(maps_why "$WORK/pyverbs.$w" libibverbs "$w")
    grep -q "'$DEV0'" "$WORK/pyverbs.$w" || why+="no $DEV0 listed "
    if [[ -z $why ]]; then pass "$P/$w/pyverbs" "lists $DEV0, maps $(grep -oE '/libibverbs\.so\.1[^/ ]*$' "$WORK/pyverbs.$w" | sort -u | tr -d /)"
    else fail "$P/$w/pyverbs" "$why" "$WORK/pyverbs.$w"; fi
    rspreload "$w"
    mpi "$w"
}

# rspreload WHO: rsockets as they are used: rdma-core's librspreload.so (librdmacm1's, /usr/lib/.../rsocket) preloaded
# into a plain TCP server and client (tests/c/rsock_preload, copied into the root), LD_PRELOAD the only variable. Both
# map librspreload and the librdmacm the dynamic linker gives it; librspreload falls back to kernel TCP silently when
# rsocket() fails, so the rxe packet counters must grow by one packet per KiB moved.
PBYTES=4000000
rspreload() {
    local w=$1 before delta pl=$SYS/rsocket/librspreload.so
    if [[ ! -x $REL_ROOT/tmp/rsock_preload ]]; then fail "$P/$w/rspreload" "no $CBIN/rsock_preload (tests/c/compile.sh)"; return; fi
    cport=$((cport + 1))
    before=$(pkts)
    DUO_MAPS_RE="$pl\$" duo "$P/$w/rspreload" "$w" "libibverbs librdmacm" cm \
        "env LD_PRELOAD=$pl /tmp/rsock_preload server $IP0 $cport $PBYTES" \
        "env LD_PRELOAD=$pl /tmp/rsock_preload client $IP0 $cport $PBYTES" "^sent $PBYTES bytes, server verified $PBYTES\$"
    delta=$(( $(pkts) - before ))
    if (( delta >= PBYTES / 1024 )); then pass "$P/$w/rspreload-rdma" "$delta rxe packets for $PBYTES bytes"
    else fail "$P/$w/rspreload-rdma" "only $delta rxe packets for $PBYTES bytes: the data went over kernel TCP"; fi
}

# mpi WHO (when Open MPI is installed, bookworm): a 2-rank job, mpirun with no library variable, mpi4py exchanging
# 100000 bytes; each rank prints the libibverbs/librdmacm/libfabric files it maps. Open MPI's transport is its OFI
# MTL over libfabric (which links libibverbs and librdmacm), with libfabric's tcp provider: libfabric's verbs;ofi_rxm
# and UCX's verbs transports fail on rxe under TCG with rdma-core's own libraries as well (MPI_ERR_OTHER; UCX: "UD
# endpoint ... unhandled timeout error"), and Open MPI's default (ob1 over shared memory) unloads its verbs
# components, so no rank maps libibverbs at all.
MPI=0
mpi() {
    local w=$1 r why="" f=$WORK/mpi.$w t0
    (( MPI )) || return 0
    t0=$(now)
    X timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 --mca pml cm --mca mtl ofi \
        --mca mtl_ofi_provider_exclude shm -x FI_PROVIDER=tcp python3 /tmp/mpi_maps.py > "$f" 2>&1 || why+="mpirun exit $? "
    for r in 0 1; do
        grep -q "^rank $r got 100000\$" "$f" || why+="rank $r did not get the 100000 bytes "
        sed -n "s/^rank $r maps: //p" "$f" | tr ' ' '\n' > "$f.$r"
        why+=$(maps_why "$f.$r" "libibverbs librdmacm" "$w" | sed "s/^./rank $r: &/")
    done
    if [[ -z $why ]]; then pass "$P/$w/mpi" "$(dur "$t0" "$(now)"): 2 ranks exchanged 100000 bytes; each maps $(sed -n 's/^rank 0 maps: //p' "$f" | tr ' ' '\n' | sed 's|.*/||' | tr '\n' ' ')"
    else fail "$P/$w/mpi" "$why" "$f"; fi
}

# ---- the local apt repository -----------------------------------------------------------------------------------------
# rdma-core's libibverbs1 and librdmacm .debs at the root's version (build/root-debs/$RELEASE), the same packages
# repacked as version <root's>+rs75 (made here: only the control file's Version changes, and the exact-version
# dependencies among them, as a rebuild's ${binary:Version} would), so that apt upgrade is an
# upgrade (the old version's files replaced, its maintainer scripts run) and apt install of the root's version
# afterwards a downgrade back to the root's exact packages; Open MPI's .debs for bookworm (their index made by
# tools/install-deps.sh: dpkg-scanpackages of 32 .debs costs ~10 s under TCG).
RREPO=$REL_ROOT/srv/rs75
mkdir -p "$RREPO/rdma"
# The packages an update of rdma-core's libraries moves together (apt keeps it back otherwise): the libraries and,
# where installed, ibverbs-providers, libibverbs-dev and librdmacm-dev (the -dev packages depend on the libraries and
# on ibverbs-providers at their exact version).
rdebs=() UPKGS=() why=""
for p in libibverbs1 "$RDMACM_PKG" ibverbs-providers libibverbs-dev librdmacm-dev; do
    [[ $(dpkg-query "$ADM" -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) == "ii " ]] || continue
    UPKGS+=("$p")
    d=$(compgen -G "$ROOTDEBS/${p}_*.deb" | head -n 1)
    if [[ -n $d ]]; then rdebs+=("$d"); else why+="no $p .deb in $ROOTDEBS (tools/install-deps.sh downloads them) "; fi
done
NEWVER=$RELVER+rs75
if [[ -z $why ]]; then
    for d in "${rdebs[@]}"; do
        b=${d##*/} x=$WORK/repack-${b%%_*}
        v=$(dpkg-deb -f "$d" Version)
        [[ $v == "$RELVER" ]] || why+="$b is version $v, the root has $RELVER "
        cp "$d" "$RREPO/rdma/$b"
        { dpkg-deb -R "$d" "$x" && sed -i "s/^Version: .*/Version: $NEWVER/; s/(= ${RELVER//./\\.})/(= $NEWVER)/g" "$x/DEBIAN/control" &&
          dpkg-deb --root-owner-group -Zgzip -z1 -b "$x" "$RREPO/rdma/${b%%_*}_${NEWVER}_amd64.deb"; } >> "$WORK/repack.log" 2>&1 ||
            why+="repacking $b failed "
    done
fi
# repo_index: the repository's Packages (the rdma-core .debs in rdma/ scanned here, Open MPI's index appended) and apt-get update.
repo_index() {
    { (cd "$RREPO" && dpkg-scanpackages -m rdma /dev/null 2>/dev/null) && { [[ ! -f $RREPO/mpi.Packages ]] || cat "$RREPO/mpi.Packages"; }; } \
        > "$WORK/Packages" && cp "$WORK/Packages" "$RREPO/Packages" && X apt-get -q update >> "$WORK/apt-update.log" 2>&1
}
MPIDEBS=$ROOTDEBS/mpi
if [[ -f $MPIDEBS/Packages ]]; then
    mkdir -p "$RREPO/mpi" && cp "$MPIDEBS"/*.deb "$RREPO/mpi/" &&
        sed 's|^Filename: \./|Filename: ./mpi/|' "$MPIDEBS/Packages" > "$RREPO/mpi.Packages"
fi
echo 'deb [trusted=yes] file:/srv/rs75 ./' > "$REL_ROOT/etc/apt/sources.list"
rm -f "$REL_ROOT"/etc/apt/sources.list.d/*
t0=$(now)
repo_index || why+="apt-get update of the local repository failed "
if [[ -z $why ]]; then pass "$P/apt-repo" "$(dur "$t0" "$(now)"): /srv/rs75: $(grep -c '^Package:' "$RREPO/Packages") packages, apt-get update"
else fail "$P/apt-repo" "$why" "$WORK/repack.log" "$WORK/apt-update.log"; fi
# Open MPI, as a machine with rdma-core has it (before ours: it is part of the system the removal must give back).
if [[ $RELEASE == bookworm ]]; then
    t0=$(now)
    if [[ ! -f $RREPO/mpi.Packages ]]; then
        fail "$P/mpi-install" "no $MPIDEBS/Packages (tools/install-deps.sh downloads Open MPI for the bookworm root)"
    elif A install --no-install-recommends python3-mpi4py > "$WORK/mpi-install.log" 2>&1 && X test -x /usr/bin/mpirun; then
        MPI=1
        pass "$P/mpi-install" "$(dur "$t0" "$(now)"): apt install python3-mpi4py: $(grep -c '^Setting up' "$WORK/mpi-install.log") packages ($(grep -oE '^Setting up (libopenmpi3|libfabric1|libucx0)[^ ]* \([^)]*\)' "$WORK/mpi-install.log" | sed 's/^Setting up //' | tr '\n' ' '))"
    else
        fail "$P/mpi-install" "apt install python3-mpi4py failed" "$WORK/mpi-install.log"
    fi
fi

# ---- install ---------------------------------------------------------------------------------------------------------
sums > "$WORK/sums.before"
installed > "$WORK/pkgs.before"
t0=$(now)
A install "${debs[@]/#$DEBS//tmp}" > "$WORK/install.log" 2>&1; rc=$?
installed > "$WORK/pkgs.installed"
why=""
(( rc == 0 )) || why+="apt install exit $rc "
[[ $(diversions | wc -l) == 2 ]] || why+="diversions: $(diversions | tr '\n' ';') "
for l in libibverbs:$OUR_IBV librdmacm:$OUR_CM; do
    [[ $(readlink "$REL_ROOT$SYS/${l%%:*}.so.1") == "${l#*:}" ]] || why+="$SYS/${l%%:*}.so.1 is not a link to ${l#*:} "
done
# Only our two packages added: every package of rdma-core (and everything depending on it) still installed as it was.
changed=$(diff "$WORK/pkgs.before" "$WORK/pkgs.installed" | grep '^[<>]' | grep -vE '^> ii +lib(ibverbs|rdmacm)1-rs ' | tr '\n' ';')
[[ -z $changed ]] || why+="package list changed: $changed "
if [[ -z $why ]]; then
    pass "$P/install" "$(dur "$t0" "$(now)"): $(diversions | sed 's/^diversion of //; s/ by .*//' | tr '\n' ';') $(grep -c '^ii' "$WORK/pkgs.installed") packages, rdma-core's all still installed"
else
    fail "$P/install" "$why" "$WORK/install.log"
fi

corpus ours
# rdma-core's plug-in (ibverbs-providers) under ours: it serves rxe0 when asked to.
rxe_plugin=$(cd "$REL_ROOT$SYS/libibverbs" && compgen -G 'librxe-rdmav*.so' | sort | tail -n 1)
( XE env RDMAV_PROVIDER=plugin ibv_rc_pingpong -d "$DEV0" -g "$GID0" -p 19599 ) > "$WORK/plugin.out" 2>&1 &
pid=$!
wait_tcp_listen 19599 "$T" "$pid" && cp "/proc/$pid/maps" "$WORK/plugin.maps"
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
touch "$WORK/plugin.maps"
why=$(maps_why "$WORK/plugin.maps" libibverbs ours)
grep -q "$SYS/libibverbs/$rxe_plugin\$" "$WORK/plugin.maps" || why+="$rxe_plugin not mapped "
if [[ -z $why ]]; then pass "$P/ours/plugin" "RDMAV_PROVIDER=plugin: ibverbs-providers' $rxe_plugin serves $DEV0 under $OUR_IBV"
else fail "$P/ours/plugin" "$why" "$WORK/plugin.out"; fi

# ---- an upgrade of rdma-core's own packages while ours are installed ------------------------------------------------
# apt upgrade takes rdma-core's packages to the repository's <root's>+rs75, apt install --allow-downgrades back.
# links_why NEW-VERSION: empty when both rdma-core packages are at NEW-VERSION, the diversions are in place, the
# SONAME links name ours and rdma-core's links sit at the diverted names.
links_why() {
    local why="" n o r l v p
    for p in "${UPKGS[@]}"; do
        v=$(dpkg-query "$ADM" -W -f='${Version} ${db:Status-Abbrev}' "$p")
        [[ $v == "$1 ii " ]] || why+="$p is '$v', not $1 "
    done
    [[ $(diversions | wc -l) == 2 ]] || why+="diversions: $(diversions | tr '\n' ';') "
    for l in libibverbs:$OUR_IBV:$RDMA_IBV librdmacm:$OUR_CM:$RDMA_CM; do
        IFS=: read -r n o r <<< "$l"
        [[ $(readlink "$REL_ROOT$SYS/$n.so.1") == "$o" ]] || why+="$SYS/$n.so.1 -> $(readlink "$REL_ROOT$SYS/$n.so.1"), not $o "
        [[ $(readlink "$REL_ROOT$SYS/rdma-core-rs/$n.so.1.distrib") == "$r" ]] || why+="rdma-core's $n link not at its diverted name "
        [[ -f $REL_ROOT$SYS/$r ]] || why+="rdma-core's $SYS/$r is gone "
    done
    echo "$why"
}
if [[ ! -f $RREPO/rdma/libibverbs1_${NEWVER}_amd64.deb ]]; then
    fail "$P/upgrade" "no repacked libibverbs1 $NEWVER in the repository (apt-repo)"
else
    t0=$(now) why=""
    A upgrade > "$WORK/upgrade.log" 2>&1; rc=$?
    (( rc == 0 )) || why+="apt upgrade exit $rc "
    grep -q "^Unpacking libibverbs1.* ($NEWVER) over ($RELVER)" "$WORK/upgrade.log" || why+="apt did not upgrade libibverbs1 from $RELVER "
    why+=$(links_why "$NEWVER")
    if [[ -z $why ]]; then
        pass "$P/upgrade" "$(dur "$t0" "$(now)"): apt upgrade: ${UPKGS[*]} $RELVER -> $NEWVER: rdma-core's links went to $SYS/rdma-core-rs/, the SONAME links still name ours"
    else
        fail "$P/upgrade" "$why" "$WORK/upgrade.log"
    fi
    one "$P/upgrade/ibv_devinfo" ours libibverbs "hca_id:[[:space:]]+$DEV0" ibv_devinfo -d "$DEV0"
    cport=$((cport + 1))
    duo "$P/upgrade/rping" ours "libibverbs librdmacm" cm "rping -s -v -a $IP0 -p $cport -C 3" \
        "rping -c -v -a $IP0 -I $IP1 -p $cport -C 3" 'ping data: rdma-ping-2: '
    # Back to the root's own packages (a downgrade: the same unpack path): what remove's checks compare with.
    t0=$(now)
    A install --allow-downgrades "${UPKGS[@]/%/=$RELVER}" > "$WORK/downgrade.log" 2>&1; rc=$?
    why=$(links_why "$RELVER")
    (( rc == 0 )) || why+="apt install exit $rc "
    if [[ -z $why ]]; then
        pass "$P/downgrade" "$(dur "$t0" "$(now)"): apt install --allow-downgrades ${UPKGS[*]/%/=$RELVER}: the SONAME links still name ours"
    else
        fail "$P/downgrade" "$why" "$WORK/downgrade.log"
    fi
fi

# A libibverbs1 of rdma-core 66 (which ours was not made for): dpkg refuses it, naming our package.
mkdir -p "$REL_ROOT/tmp/fake66/DEBIAN"
printf 'Package: libibverbs1\nVersion: 66.0-1\nArchitecture: amd64\nMulti-Arch: same\nMaintainer: 75-deb <t@example.org>\nDescription: stand-in for rdma-core 66\n' \
    > "$REL_ROOT/tmp/fake66/DEBIAN/control"
dpkg-deb --root-owner-group -b "$REL_ROOT/tmp/fake66" "$REL_ROOT/tmp/fake66.deb" > "$WORK/fake66.log" 2>&1
X dpkg -i /tmp/fake66.deb >> "$WORK/fake66.log" 2>&1; rc=$?
why=""
(( rc != 0 )) || why+="dpkg -i succeeded "
grep -q 'libibverbs1-rs.* conflicts with libibverbs1 (>= 66~)' "$WORK/fake66.log" || why+="dpkg did not name the conflict "
v=$(dpkg-query "$ADM" -W -f='${Version} ${db:Status-Abbrev}' libibverbs1)
[[ $v == "$RELVER ii " ]] || why+="libibverbs1 is now $v "
if [[ -z $why ]]; then pass "$P/conflict" "dpkg -i libibverbs1 66.0-1: $(grep -m1 'conflicts with' "$WORK/fake66.log" | sed 's/^ *//')"
else fail "$P/conflict" "$why" "$WORK/fake66.log"; fi
# The same package in the repository (the repacked +rs75 packages out of it, so that it is the only upgrade on
# offer): apt upgrade keeps libibverbs1 back and upgrades nothing, apt full-upgrade would remove ours (asked with -s
# only), and then out of the repository again.
rm -f "$RREPO"/rdma/*_"$NEWVER"_amd64.deb
cp "$REL_ROOT/tmp/fake66.deb" "$RREPO/rdma/libibverbs1_66.0-1_amd64.deb"
why=""
repo_index || why+="apt-get update failed "
A upgrade > "$WORK/fake66-apt.log" 2>&1 || why+="apt upgrade exit $? "
# (apt 2's words: "kept back", "0 upgraded, 0 newly installed"; apt 3's (sid): "Not upgrading:", "Upgrading: 0,
# Installing: 0, Removing: 0")
kept() { grep -A1 -E 'kept back|^Not upgrading' "$1" | grep -q 'libibverbs1$\|libibverbs1 '; }
kept "$WORK/fake66-apt.log" || why+="apt upgrade did not keep libibverbs1 back "
grep -Eq '^0 upgraded, 0 newly installed|Upgrading: 0, Installing: 0, Removing: 0' "$WORK/fake66-apt.log" ||
    why+="apt upgrade changed packages "
v=$(dpkg-query "$ADM" -W -f='${Version} ${db:Status-Abbrev}' libibverbs1)
[[ $v == "$RELVER ii " ]] || why+="libibverbs1 is now $v "
# full-upgrade: apt 2 removes ours for 66 (said, with -s); apt 3's solver keeps 66 back rather than remove a package
# installed by hand. Either way not silent; what it must not do is install 66 and keep ours.
X apt-get -s full-upgrade > "$WORK/fake66-full.log" 2>&1
if grep -q '^Remv libibverbs1-rs ' "$WORK/fake66-full.log" && grep -q '^Inst libibverbs1 .*(66\.0-1 ' "$WORK/fake66-full.log"; then
    full="apt full-upgrade -s: $(grep '^Remv' "$WORK/fake66-full.log" | cut -d' ' -f2 | tr '\n' ' ')removed"
elif kept "$WORK/fake66-full.log" && ! grep -q '^Inst libibverbs1 ' "$WORK/fake66-full.log"; then
    full="apt full-upgrade -s keeps it back too"
else
    why+="apt full-upgrade -s neither removes libibverbs1-rs for libibverbs1 66.0-1 nor keeps it back "
fi
rm -f "$RREPO/rdma/libibverbs1_66.0-1_amd64.deb"
repo_index || why+="apt-get update failed "
if [[ -z $why ]]; then pass "$P/conflict-apt" "libibverbs1 66.0-1 in the repository: apt upgrade keeps it back, $full"
else fail "$P/conflict-apt" "$why" "$WORK/fake66-apt.log" "$WORK/fake66-full.log"; fi

# ---- remove ----------------------------------------------------------------------------------------------------------
t0=$(now)
A remove librdmacm1-rs libibverbs1-rs > "$WORK/remove.log" 2>&1; rc=$?
sums > "$WORK/sums.after"
installed > "$WORK/pkgs.after"
why=""
(( rc == 0 )) || why+="apt remove exit $rc "
[[ -z $(diversions) ]] || why+="diversions left: $(diversions | tr '\n' ';') "
[[ -e $REL_ROOT$SYS/rdma-core-rs ]] && why+="$SYS/rdma-core-rs left "
diff -q "$WORK/pkgs.before" "$WORK/pkgs.after" > /dev/null || why+="package list differs from before the install "
if [[ -z $why ]]; then pass "$P/remove" "$(dur "$t0" "$(now)"): no diversion left, the package list as before"
else fail "$P/remove" "$why" "$WORK/remove.log"; fi
# Not vacuous: the list holds rdma-core's two libraries and its rxe plug-in.
why=""
for f in "$SYS/$RDMA_IBV" "$SYS/$RDMA_CM" "$SYS/libibverbs/$rxe_plugin"; do
    grep -q " $f\$" "$WORK/sums.before" || why+="$f not among the files summed "
done
if [[ -z $why ]] && diff "$WORK/sums.before" "$WORK/sums.after" > "$WORK/sums.diff"; then
    pass "$P/checksums" "$(grep -c . "$WORK/sums.after") files and links of $RDMA_PKGS equal to before the install"
else
    [[ -n $why ]] || why="the files of $RDMA_PKGS differ from before the install"
    fail "$P/checksums" "$why" "$WORK/sums.diff"
fi
if X dpkg --verify $RDMA_PKGS > "$WORK/verify.log" 2>&1 && [[ ! -s $WORK/verify.log ]]; then
    pass "$P/dpkg-verify" "dpkg --verify $RDMA_PKGS: clean"
else
    fail "$P/dpkg-verify" "dpkg --verify $RDMA_PKGS" "$WORK/verify.log"
fi

# apt purge: nothing of ours left in dpkg's database (remove keeps a package with a postrm as "rc").
A purge librdmacm1-rs libibverbs1-rs > "$WORK/purge.log" 2>&1; rc=$?
left=$(dpkg-query "$ADM" -W -f='${db:Status-Abbrev} ${Package}\n' 'lib*-rs' 2>/dev/null | tr '\n' ';')
if (( rc == 0 )) && [[ -z $left ]]; then pass "$P/purge" "apt purge: dpkg knows neither package any more"
else fail "$P/purge" "apt purge exit $rc, left: $left" "$WORK/purge.log"; fi

corpus stock
echo "# 75-deb@$RELEASE took $(dur "$case_t0" "$(now)")"
summary "75-deb-$RELEASE"
(( failed == 0 ))
