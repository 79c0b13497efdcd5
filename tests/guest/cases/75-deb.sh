#!/bin/bash
# Our Debian packages (make deb: build/deb/libibverbs1-rs_*.deb, librdmacm1-rs_*.deb; docs/packaging.md) installed
# as the system's rdma-core, and removed again, in a Debian root: RELEASE=bookworm (rdma-core 44, the default),
# trixie (56.1) or sid (65), chrooted into build/roots/$RELEASE through testlib's rel_mount (a throw-away overlay:
# dpkg writes only there; the host's own system never gets our packages). Every program runs with no library
# variable at all (chrooted with LD_LIBRARY_PATH and LD_PRELOAD unset), so which library it gets is the dynamic
# linker's own choice. Installs and removals run dpkg inside the root (apt calls the same dpkg and maintainer scripts;
# its cache of the root's package lists alone costs ~20 s per call under TCG); the checks read the root's dpkg
# database from outside (dpkg-query/dpkg-divert --admindir), which costs no chroot.
#   debs      the packages hold the libraries under test: the GNU build IDs of their libraries equal build/lib's
#   root      the root's rdma-core (packages, versions, the files its SONAME links name) and ours, all known
#   install   dpkg -i of both .debs: the diversions of rdma-core's SONAME links, rdma-core's packages (and every
#             package depending on them) still installed, nothing else changed
#   ours/*    the corpus (ibv_devinfo, ibv_rc_pingpong, rping, rstream, ib_write_bw pairs, pyverbs, rdma-core's rxe
#             plug-in under RDMAV_PROVIDER=plugin): /proc/<pid>/maps of each process (server and client) map our
#             lib*.so.1.<minor>.65.100, owned by our package (dpkg -S), and not rdma-core's file
#   upgrade   while ours are installed, dpkg -i of rdma-core's own libibverbs1 and librdmacm .debs (the root's
#             version, build/root-debs/$RELEASE from tools/install-deps.sh) repacked as <version>+rs75: an upgrade;
#             rdma-core's links go to the diverted names, ours stays the SONAME target and new programs (ibv_devinfo,
#             rping) still map ours
#   downgrade dpkg -i of the original .debs: the root's version back, the links as after the upgrade
#   plugin    (ours/plugin) rdma-core's rxe plug-in mapped under ours with RDMAV_PROVIDER=plugin
#   conflict  dpkg -i of a stand-in libibverbs1 66.0 (made here with dpkg-deb) is refused, naming our package
#   remove    dpkg -r of both: no diversion left, the SHA-256 of every file (the target of every link) of
#             libibverbs1, librdmacm1(t64) and ibverbs-providers equal to before the install, dpkg --verify clean,
#             the installed package list equal to before
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

# duo NAME WHO LIBS tcp:PORT|cm "SERVER" "CLIENT" CLIENT_RE: a server/client pair; both processes' maps judged.
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
}

# ---- install ---------------------------------------------------------------------------------------------------------
sums > "$WORK/sums.before"
installed > "$WORK/pkgs.before"
t0=$(now)
X dpkg -i "${debs[@]/#$DEBS//tmp}" > "$WORK/install.log" 2>&1; rc=$?
installed > "$WORK/pkgs.installed"
why=""
(( rc == 0 )) || why+="dpkg -i exit $rc "
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
# rdma-core's libibverbs1 and librdmacm .debs at the root's version (build/root-debs/$RELEASE), and the same packages
# repacked as version <root's>+rs75 (made here: only the control file's Version changes), so that dpkg -i of those is
# an upgrade (the old version's files replaced, its maintainer scripts run) and dpkg -i of the originals afterwards a
# downgrade back to the root's exact packages.
# links_why NEW-VERSION: empty when both rdma-core packages are at NEW-VERSION, the diversions are in place, the
# SONAME links name ours and rdma-core's links sit at the diverted names.
links_why() {
    local why="" n o r l v p
    for p in libibverbs1 "$RDMACM_PKG"; do
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
rdebs=("$ROOTDEBS"/libibverbs1_*.deb "$ROOTDEBS"/"$RDMACM_PKG"_*.deb)
if [[ ! -f ${rdebs[0]} || ! -f ${rdebs[1]} ]]; then
    fail "$P/upgrade" "no libibverbs1 / $RDMACM_PKG .deb in $ROOTDEBS (tools/install-deps.sh downloads them)"
else
    NEWVER=$RELVER+rs75 why="" up=()
    for d in "${rdebs[@]}"; do
        b=${d##*/} x=$WORK/repack-${b%%_*}
        v=$(dpkg-deb -f "$d" Version)
        [[ $v == "$RELVER" ]] || why+="$b is version $v, the root has $RELVER "
        cp "$d" "$REL_ROOT/tmp/$b"
        { dpkg-deb -R "$d" "$x" && sed -i "s/^Version: .*/Version: $NEWVER/" "$x/DEBIAN/control" &&
          dpkg-deb --root-owner-group -b "$x" "$REL_ROOT/tmp/${b%%_*}_${NEWVER}_amd64.deb"; } >> "$WORK/repack.log" 2>&1 ||
            why+="repacking $b failed "
        up+=("/tmp/${b%%_*}_${NEWVER}_amd64.deb")
    done
    t0=$(now)
    if [[ -z $why ]]; then
        X dpkg -i "${up[@]}" > "$WORK/upgrade.log" 2>&1; rc=$?
        (( rc == 0 )) || why+="dpkg -i exit $rc "
        grep -q "Preparing to unpack .*libibverbs1_${NEWVER}_amd64.deb" "$WORK/upgrade.log" &&
            grep -q "over ($RELVER)" "$WORK/upgrade.log" || why+="dpkg did not upgrade from $RELVER "
        why+=$(links_why "$NEWVER")
    fi
    if [[ -z $why ]]; then
        pass "$P/upgrade" "$(dur "$t0" "$(now)"): dpkg -i libibverbs1 and $RDMACM_PKG $RELVER -> $NEWVER: rdma-core's links went to $SYS/rdma-core-rs/, the SONAME links still name ours"
    else
        fail "$P/upgrade" "$why" "$WORK/repack.log" "$WORK/upgrade.log"
    fi
    one "$P/upgrade/ibv_devinfo" ours libibverbs "hca_id:[[:space:]]+$DEV0" ibv_devinfo -d "$DEV0"
    cport=$((cport + 1))
    duo "$P/upgrade/rping" ours "libibverbs librdmacm" cm "rping -s -v -a $IP0 -p $cport -C 3" \
        "rping -c -v -a $IP0 -I $IP1 -p $cport -C 3" 'ping data: rdma-ping-2: '
    # Back to the root's own packages (a downgrade: the same unpack path): what remove's checks compare with.
    t0=$(now)
    X dpkg -i "${rdebs[@]/#$ROOTDEBS//tmp}" > "$WORK/downgrade.log" 2>&1; rc=$?
    why=$(links_why "$RELVER")
    (( rc == 0 )) || why+="dpkg -i exit $rc "
    if [[ -z $why ]]; then
        pass "$P/downgrade" "$(dur "$t0" "$(now)"): dpkg -i ${rdebs[*]##*/}: back at $RELVER, the SONAME links still name ours"
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

# ---- remove ----------------------------------------------------------------------------------------------------------
t0=$(now)
X dpkg -r librdmacm1-rs libibverbs1-rs > "$WORK/remove.log" 2>&1; rc=$?
sums > "$WORK/sums.after"
installed > "$WORK/pkgs.after"
why=""
(( rc == 0 )) || why+="dpkg -r exit $rc "
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

corpus stock
echo "# 75-deb@$RELEASE took $(dur "$case_t0" "$(now)")"
summary "75-deb-$RELEASE"
(( failed == 0 ))
