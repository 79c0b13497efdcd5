# Running programs chrooted in a Debian sid root (rdma-core 65), the reference for rdma-core 65's behaviour
# (sourced by cases 35-cm-c and 45-rsocket, after testlib.sh).
#
# The root is ${RDMA_SID_ROOT:-$RDMA_ROOTS_DIR/sid}, else $REPO/build/roots/sid (tools/install-deps.sh's). It is
# shared read-only; sid_root_ready mounts, once per guest boot, what a chroot needs: /proc, /sys and /dev bound into
# it, and a tmpfs on its /tmp holding our build/lib (/tmp/rdma-core-rs/lib), our librdmacm alone
# (/tmp/rdma-core-rs/cm), tests/out/c (/tmp/rdma-core-rs/c) and a scratch directory (/tmp/rdma-core-rs/work).
# Pass RDMA_ROOTS_DIR into the guest with `tests/guest/run -e RDMA_ROOTS_DIR=...`.
#
# sid_run LIBS CMD [ARGS...]: runs CMD in the root, with LIBS = sid (rdma-core 65's own libraries), ours (our
# libibverbs and librdmacm) or cm (our librdmacm over sid's libibverbs). Paths in CMD are the root's.
# sid_root_release undoes the mounts (call it on exit).

SID_ROOT=${RDMA_SID_ROOT:-}
if [[ -z $SID_ROOT ]]; then
    for r in ${RDMA_ROOTS_DIR:+"$RDMA_ROOTS_DIR/sid"} "$REPO/build/roots/sid"; do
        [[ -x $r/usr/bin/rping ]] && { SID_ROOT=$r; break; }
    done
fi
SID_IN=/tmp/rdma-core-rs   # where our files appear inside the root

# sid_root_ready: 0 when the root can be used (mounting what it needs the first time), 1 (with a reason in
# SID_WHY) when there is no root or it cannot be prepared.
sid_root_ready() {
    SID_WHY=""
    if [[ -z $SID_ROOT || ! -d $SID_ROOT/usr/lib ]]; then
        SID_WHY="no Debian sid root (RDMA_SID_ROOT, \$RDMA_ROOTS_DIR/sid or $REPO/build/roots/sid)"
        return 1
    fi
    if ! mountpoint -q "$SID_ROOT/tmp"; then
        SID_MOUNTED=1
        local d
        for d in proc sys dev; do
            mountpoint -q "$SID_ROOT/$d" || mount --bind "/$d" "$SID_ROOT/$d" || { SID_WHY="mount $d"; return 1; }
        done
        mount -t tmpfs tmpfs "$SID_ROOT/tmp" || { SID_WHY="tmpfs on $SID_ROOT/tmp"; return 1; }
        mkdir -p "$SID_ROOT$SID_IN"/{lib,cm,c,work} && chmod 1777 "$SID_ROOT$SID_IN/work"
        mount --bind "$OURS" "$SID_ROOT$SID_IN/lib" || { SID_WHY="bind $OURS"; return 1; }
        cp "$OURS/librdmacm.so.1" "$SID_ROOT$SID_IN/cm/" || { SID_WHY="copy librdmacm.so.1"; return 1; }
        [[ -d $REPO/tests/out/c ]] && mount --bind "$REPO/tests/out/c" "$SID_ROOT$SID_IN/c"
    fi
    return 0
}

# sid_root_release: undoes what sid_root_ready mounted in this process (cases call it on exit, so that the next
# case, or another helper's, finds the root as it was).
sid_root_release() {
    [[ ${SID_MOUNTED:-0} == 1 ]] || return 0
    local m
    for m in "$SID_ROOT$SID_IN/c" "$SID_ROOT$SID_IN/lib" "$SID_ROOT/tmp" "$SID_ROOT/dev" "$SID_ROOT/sys" "$SID_ROOT/proc"; do
        mountpoint -q "$m" && umount -l "$m"
    done
    SID_MOUNTED=0
}

# sid_run LIBS CMD [ARGS...] (see above); the exit status is CMD's.
sid_run() {
    local libs=$1 lp=""
    shift
    case $libs in
        sid) lp="" ;;
        ours) lp=$SID_IN/lib ;;
        cm) lp=$SID_IN/cm ;;
        *) echo "sid_run: unknown library set '$libs'" >&2; return 2 ;;
    esac
    chroot "$SID_ROOT" env ${lp:+LD_LIBRARY_PATH=$lp} "$@"
}

# sid_compare NAME LIBS TIMEOUT PROG [ARGS...]: runs one of our PASS/FAIL test programs (PROG, a path inside the
# root) with rdma-core 65 (sid) and with LIBS, and judges ours against the reference, check by check: PASS
# "sid65/NAME/<check>" when both pass it, or both fail it with the same reason; FAIL when only ours fails (or only
# rdma-core's: the test or the environment is wrong), or a program died without a summary line.
sid_compare() {
    local name=$1 libs=$2 to=$3 slog olog line check rest
    shift 3
    slog="$WORK/sid65.$name.sid.log" olog="$WORK/sid65.$name.$libs.log"
    timeout "$to" chroot "$SID_ROOT" "$@" > "$slog" 2>&1
    local src=$?
    # shellcheck disable=SC2046
    timeout "$to" chroot "$SID_ROOT" env LD_LIBRARY_PATH=$([[ $libs == cm ]] && echo "$SID_IN/cm" || echo "$SID_IN/lib") \
        "$@" > "$olog" 2>&1
    local orc=$?
    declare -A sres=() ores=()
    while IFS= read -r line; do
        [[ $line =~ ^(PASS|FAIL)\ ([^ :]+)(.*)$ ]] && sres[${BASH_REMATCH[2]}]="${BASH_REMATCH[1]}${BASH_REMATCH[3]}"
    done < "$slog"
    while IFS= read -r line; do
        [[ $line =~ ^(PASS|FAIL)\ ([^ :]+)(.*)$ ]] && ores[${BASH_REMATCH[2]}]="${BASH_REMATCH[1]}${BASH_REMATCH[3]}"
    done < "$olog"
    if (( ${#sres[@]} == 0 )); then
        fail "sid65/$name" "rdma-core 65's run reported nothing (exit $src)" "$slog"
        return
    fi
    for check in "${!sres[@]}"; do
        rest=${ores[$check]:-}
        if [[ ${sres[$check]} == PASS* && $rest == PASS* ]]; then
            pass "sid65/$name/$check" "$libs and rdma-core 65 pass"
        elif [[ ${sres[$check]} == FAIL* && $rest == "${sres[$check]}" ]]; then
            pass "sid65/$name/$check" "$libs and rdma-core 65 fail alike${rest#FAIL}"
        elif [[ ${sres[$check]} == FAIL* ]]; then
            fail "sid65/$name/$check" "rdma-core 65 fails${sres[$check]#FAIL}; $libs: ${rest:-nothing}"
        else
            fail "sid65/$name/$check" "$libs: ${rest:-no result} (rdma-core 65 passes)" "$olog"
        fi
    done
    for check in "${!ores[@]}"; do
        [[ -n ${sres[$check]:-} ]] || fail "sid65/$name/$check" "only $libs ran this check: ${ores[$check]}"
    done
    (( orc > 128 )) && fail "sid65/$name" "$libs run killed by signal $((orc - 128))" "$olog"
}
