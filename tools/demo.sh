#!/usr/bin/env bash
# tools/demo.sh (`make demo`): the first thing to try. On a Debian 12 machine it
#   1. installs what it needs (tools/install-deps.sh: QEMU, Debian's 6.1 kernel, rdma-core 44 for comparison, ...),
#   2. builds our libraries (make) and the teaching examples (make examples),
#   3. boots the Soft-RoCE test guest (tests/guest/run: rxe0 on veth0 198.18.0.1 <-> rxe1 on veth1 198.18.0.2),
#   4. runs c-examples/cm_server.c on rxe0 and c-examples/cm_client.c on rxe1 over OUR libibverbs.so.1 and
#      librdmacm.so.1, and prints what crossed the wire and which libraries the dynamic linker initialised in both
#      processes (LD_DEBUG=files), showing that the system's rdma-core was not loaded.
# About 20 lines of output, the last one SUCCESS or FAILED; exit status 0 only on success.
# Logs: build/demo/ (build.log, guest.log).
#
#   tools/demo.sh                  our libraries
#   DEMO_LIBS=stock tools/demo.sh  the same run on the system's rdma-core 44 (to compare)
#   tools/demo.sh --in-guest       (internal) step 4, run inside the guest
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$REPO" || exit 1
MODE=${DEMO_LIBS:-ours}
case $MODE in ours|stock) ;; *) echo "demo: DEMO_LIBS must be 'ours' or 'stock', not '$MODE'" >&2; exit 2 ;; esac
SYSLIB=/usr/lib/x86_64-linux-gnu
NMSG=3

# ---------------------------------------------------------------------------------------------------------------------
# Step 4, inside the guest. Prints its lines for the user, and a last line "DEMO-RESULT: ok|fail TEXT" for the host.
in_guest() {
    source "$REPO/tests/guest/lib/testlib.sh"       # DEV0/1 IP0/1 OURS SYSLIB WORK log_wait
    local ex=$REPO/build/examples libdir=$OURS side f line n dir text crc src spid bad=""
    [[ $MODE == stock ]] && libdir=$SYSLIB
    echo "[4/4] cm_server on $DEV0 ($IP0), cm_client on $DEV1 ($IP1): an rdma_cm connection, RC send/receive"

    timeout 60 env LD_LIBRARY_PATH="$libdir" LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/server.ld" \
        "$ex/cm_server" -a "$IP0" -p 7471 > "$WORK/server.log" 2>&1 &
    spid=$!
    log_wait "$WORK/server.log" 'listening on' 60 "$spid"
    timeout 60 env LD_LIBRARY_PATH="$libdir" LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/client.ld" \
        "$ex/cm_client" -a "$IP0" -b "$IP1" -p 7471 -n "$NMSG" > "$WORK/client.log" 2>&1
    crc=$?
    (( crc != 0 )) && kill "$spid" 2>/dev/null
    wait "$spid"
    src=$?

    # What crossed the wire, as the client saw it: each message and the reply it checked.
    while IFS= read -r line; do
        if [[ $line =~ (sent|received)\ +([0-9]+)\ bytes:\ (.*)$ ]]; then
            dir="client -> server"
            [[ ${BASH_REMATCH[1]} == received ]] && dir="server -> client"
            printf '      %s  %3s bytes  %s\n' "$dir" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
        fi
    done < "$WORK/client.log"

    if (( crc != 0 || src != 0 )) || ! grep -q "$NMSG messages sent, $NMSG replies checked: OK" "$WORK/client.log"; then
        for side in server client; do
            echo "      --- $side output (exit $([[ $side == server ]] && echo "$src" || echo "$crc")), last lines:"
            tail -n 6 "$WORK/$side.log" | sed 's/^/      | /'
        done
        echo "DEMO-RESULT: fail the message exchange failed (cm_server exit $src, cm_client exit $crc)"
        return 1
    fi
    echo "      both exited 0; the client checked all $NMSG replies, the server answered $NMSG messages"

    # Which libibverbs / librdmacm the dynamic linker initialised in each process.
    for side in server client; do
        cat "$WORK/$side.ld".* > "$WORK/$side.ldso" 2>/dev/null
        text=""
        for f in libibverbs librdmacm; do
            line=$(grep -Eo "calling init: [^ ]*/$f\.so\.1\$" "$WORK/$side.ldso" | head -n 1)
            line=${line#calling init: }
            text+="${text:+, }${line:-NO $f.so.1}"
            [[ $line == "$libdir/$f.so.1" ]] || bad+=" $side:$f"
        done
        n=$(grep -Eo '^ *[0-9]+:' "$WORK/$side.ldso" | head -n 1 | tr -dc 0-9)
        printf '      %s (pid %s) loaded %s\n' "$side" "${n:-?}" "$text"
    done
    if [[ $MODE == stock ]]; then
        [[ -n $bad ]] && { echo "DEMO-RESULT: fail the system's libraries from $libdir were not the ones initialised:$bad"; return 1; }
        echo "DEMO-RESULT: ok $NMSG messages and $NMSG replies crossed Soft-RoCE through the system's rdma-core (DEMO_LIBS=stock)"
        return 0
    fi
    # Not loaded: the system's libibverbs / librdmacm, nor any provider plugin from /usr/lib/.../libibverbs/.
    if grep -Eq "calling init: $SYSLIB/(libibverbs\.so|librdmacm\.so|libibverbs/)" "$WORK/server.ldso" "$WORK/client.ldso"; then
        bad+=" system-rdma-core"
    fi
    if [[ -n $bad ]]; then
        echo "DEMO-RESULT: fail not only our libraries from $libdir were initialised:$bad"
        return 1
    fi
    echo "      not loaded in either: the system's rdma-core ($SYSLIB/libibverbs.so.1, librdmacm.so.1, its provider plugins)"
    echo "DEMO-RESULT: ok $NMSG messages and $NMSG replies crossed Soft-RoCE through our libibverbs.so.1 and librdmacm.so.1"
    return 0
}

if [[ ${1:-} == --in-guest ]]; then
    in_guest
    exit
fi

# ---------------------------------------------------------------------------------------------------------------------
# Steps 1-3, on the host.
LOGDIR=$REPO/build/demo
mkdir -p "$LOGDIR"
t_start=$SECONDS
finish() {   # finish ok|fail TEXT
    if [[ $1 == ok ]]; then echo "SUCCESS: $2 (total $((SECONDS - t_start))s)"; exit 0; fi
    echo "FAILED: $2"
    exit 1
}
tail_log() { tail -n "${2:-12}" "$1" | sed 's/^/      | /'; }

echo "rdma-core-rs demo: an RDMA message exchange over Soft-RoCE, served by $([[ $MODE == stock ]] &&
    echo "the SYSTEM's rdma-core (DEMO_LIBS=stock)" || echo "our libibverbs.so.1 and librdmacm.so.1")"

# [1/4] dependencies
if ! tools/install-deps.sh > "$LOGDIR/deps.log" 2>&1; then
    echo "[1/4] dependencies: tools/install-deps.sh failed"
    tail_log "$LOGDIR/deps.log"
    finish fail "could not install the dependencies (log: build/demo/deps.log)"
fi
echo "[1/4] dependencies: $(tail -n 1 "$LOGDIR/deps.log" | sed 's/^install-deps: //')"
if ! command -v cargo > /dev/null; then
    finish fail "no Rust toolchain (cargo): install Rust 1.85 or newer (e.g. https://rustup.rs), then run make demo again"
fi

# [2/4] build
t0=$SECONDS
if ! { make && make examples; } > "$LOGDIR/build.log" 2>&1; then
    echo "[2/4] build: failed"
    tail_log "$LOGDIR/build.log" 15
    finish fail "the build failed (log: build/demo/build.log)"
fi
echo "[2/4] build ($((SECONDS - t0))s): build/lib/libibverbs.so.1, librdmacm.so.1; build/examples/cm_server, cm_client"

# [3/4] + [4/4] the guest. Its stderr says when it has booted and set up Soft-RoCE; its stdout is step 4's output.
marker=$LOGDIR/booted
result=""
run_guest() {
    rm -f "$marker"
    echo "[3/4] booting the test guest (QEMU without KVM, Debian's 6.1 kernel, Soft-RoCE on a veth pair)..."
    # A progress line at 5, 10, 20 and 40 s while the guest boots (3-25 s is normal, more on a busy host).
    ( t=0; for d in 5 5 10 20; do sleep "$d"; t=$((t + d)); [[ -e $marker ]] && exit 0; echo "      ... booting (${t}s)"; done ) &
    ticker=$!
    tests/guest/run --no-install --boot-timeout 90 --timeout 600 -e DEMO_LIBS="$MODE" -- tools/demo.sh --in-guest 2>&1 |
        tee "$LOGDIR/guest.log" | while IFS= read -r line; do
            case $line in
                "guest: booting "*) ;;
                "guest: booted in "*)
                    : > "$marker"
                    line=${line#guest: booted in }
                    echo "      booted in ${line%% *}" ;;
                "setup-rdma: ok: "*)
                    if [[ $line =~ kernel\ ([^;]+)\;\ ([a-z0-9]+)\ on\ ([a-z0-9]+)\ ([0-9.]+).*,\ ([a-z0-9]+)\ on\ ([a-z0-9]+)\ ([0-9.]+) ]]; then
                        printf '      Soft-RoCE ready: %s on %s %s <-> %s on %s %s (kernel %s)\n' "${BASH_REMATCH[@]:2:6}" \
                            "${BASH_REMATCH[1]}"
                    else
                        echo "      $line"
                    fi ;;
                "guest: command exited "*) ;;
                "DEMO-RESULT: "*) echo "$line" > "$LOGDIR/result" ;;
                "guest: ----"* | "guest|"* | "qemu|"*) ;;      # console tails: in build/demo/guest.log
                "guest: "* | "setup-rdma: "*) echo "      $line" ;;
                *) echo "$line" ;;
            esac
        done
    local rc=${PIPESTATUS[0]}
    kill "$ticker" 2>/dev/null
    wait "$ticker" 2>/dev/null
    return "$rc"
}
rm -f "$LOGDIR/result"
run_guest
rc=$?
if (( rc == 125 )) && grep -q 'FAILED TO BOOT' "$LOGDIR/guest.log"; then
    echo "      the guest did not boot (it happens now and then under TCG on a busy host): trying once more"
    rm -f "$LOGDIR/result"
    run_guest
    rc=$?
fi
[[ -s $LOGDIR/result ]] && result=$(< "$LOGDIR/result")
result=${result#DEMO-RESULT: }
if (( rc == 0 )) && [[ $result == ok* ]]; then
    finish ok "${result#ok }"
fi
if [[ $result == fail* ]]; then
    finish fail "${result#fail }"
fi
case $rc in
    124) finish fail "the guest run timed out (log: build/demo/guest.log)" ;;
    125) finish fail "the guest failed to boot or to set up Soft-RoCE (log: build/demo/guest.log)" ;;
    *) finish fail "the guest run exited $rc (log: build/demo/guest.log)" ;;
esac
