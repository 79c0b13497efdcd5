# Shared helpers for in-guest test cases (sourced). Each case prints one line per check:
#   PASS name (details)      or      FAIL name: reason   (+ indented log tails)
# and keeps counters in $passed / $failed. Every program runs under `timeout`.
#
# Environment (from setup-rdma.sh): RDMA_TEST_DEV0/1, RDMA_TEST_IP0/1, RDMA_TEST_GID0/1.
# OURS=<repo>/build/lib is where our libraries are (RDMA_CORE_RS_LIBDIR overrides).

DEV0=${RDMA_TEST_DEV0:-rxe0} DEV1=${RDMA_TEST_DEV1:-rxe1}
IP0=${RDMA_TEST_IP0:-198.18.0.1} IP1=${RDMA_TEST_IP1:-198.18.0.2}
GID0=${RDMA_TEST_GID0:-1} GID1=${RDMA_TEST_GID1:-1}
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
OURS=${RDMA_CORE_RS_LIBDIR:-$REPO/build/lib}
SYSLIB=/usr/lib/x86_64-linux-gnu
T=${CASE_TIMEOUT:-60}
passed=${passed:-0} failed=${failed:-0}
WORK=${WORK:-$(mktemp -d /tmp/case.XXXXXX)}

now() { local t=${EPOCHREALTIME/./}; echo "$t"; }
dur() { local us=$(( $2 - $1 )); printf '%d.%ds' $((us / 1000000)) $(((us / 100000) % 10)); }
pass() { echo "PASS $1${2:+ ($2)}"; passed=$((passed + 1)); }
fail() {
    local name=$1 reason=$2; shift 2
    echo "FAIL $name: $reason"
    local f
    for f in "$@"; do
        [[ -s "$f" ]] || continue
        echo "    --- ${f##*/} (last lines)"
        tail -n 15 "$f" | sed 's/^/    /'
    done
    failed=$((failed + 1))
}

# libenv ours|stock|preload : the environment prefix (as `env` arguments) that selects a library set.
libenv() {
    case "$1" in
        ours) echo "LD_LIBRARY_PATH=$OURS" ;;
        preload) echo "LD_PRELOAD=$OURS/libibverbs.so.1:$OURS/librdmacm.so.1" ;;
        stock) echo "RDMA_CORE_RS_STOCK=1" ;;   # a harmless variable: no override
        *) echo "libenv: unknown '$1'" >&2; return 1 ;;
    esac
}

# Waits until a TCP socket listens on port $1 (from /proc/net/tcp); at most $2 seconds.
wait_tcp_listen() {
    local hex deadline=$((SECONDS + $2)) line
    printf -v hex ':%04X ' "$1"
    while (( SECONDS < deadline )); do
        while read -r line; do
            [[ "$line" == *"$hex"*" 0A "* ]] && return 0
        done < /proc/net/tcp
        sleep 0.1
    done
    return 1
}

# pair NAME SERVER_LIBS CLIENT_LIBS PORT|- "SERVER CMD" "CLIENT CMD" [CLIENT_GREP]
# Starts the server (in the background), waits for its TCP port (or, with '-', retries the client up to 10 times
# while the server runs, for rdma_cm listeners that /proc does not show), runs the client, and passes when both
# exit 0 (and the client output matches CLIENT_GREP, an extended regex, if given).
pair() {
    local name=$1 slibs=$2 clibs=$3 port=$4 scmd=$5 ccmd=$6 want=${7:-}
    local slog="$WORK/$name.server.log" clog="$WORK/$name.client.log" t0 spid crc src attempt
    t0=$(now)
    # shellcheck disable=SC2086
    env $(libenv "$slibs") timeout "$T" $scmd > "$slog" 2>&1 &
    spid=$!
    crc=1
    if [[ $port != - ]]; then
        if ! wait_tcp_listen "$port" "$T"; then
            kill "$spid" 2>/dev/null; wait "$spid"
            fail "$name" "server never listened on port $port" "$slog"
            return
        fi
        # shellcheck disable=SC2086
        env $(libenv "$clibs") timeout "$T" $ccmd > "$clog" 2>&1
        crc=$?
    else
        for attempt in 1 2 3 4 5 6 7 8 9 10; do
            sleep 0.3
            # shellcheck disable=SC2086
            env $(libenv "$clibs") timeout "$T" $ccmd > "$clog" 2>&1
            crc=$?
            (( crc == 0 )) && break
            kill -0 "$spid" 2>/dev/null || break
        done
    fi
    (( crc != 0 )) && kill "$spid" 2>/dev/null
    wait "$spid"
    src=$?
    local why=""
    (( crc != 0 )) && why+="client exit $crc "
    (( src != 0 )) && why+="server exit $src "
    if [[ -z $why && -n $want ]] && ! grep -Eq "$want" "$clog"; then why+="client output lacks /$want/ "; fi
    if [[ -z $why ]]; then
        pass "$name" "$(dur "$t0" "$(now)")${want:+: $(grep -Em1 "$want" "$clog")}"
    else
        [[ $why == *124* ]] && why+="(124 = killed by timeout ${T}s)"
        fail "$name" "$why" "$slog" "$clog"
    fi
}

# ldso_evidence LOG : passes when the dynamic-linker trace in LOG shows our libraries initialised, not the system's,
# and no unresolved symbol or version.
ldso_check() {
    local name=$1 log=$2 libs=${3:-libibverbs}
    local bad
    bad=$(grep -E "symbol lookup error|undefined symbol|version .* not found|cannot open shared object" "$log" | head -3)
    if [[ -n $bad ]]; then fail "$name" "dynamic linker: $bad" "$log"; return; fi
    local l
    for l in $libs; do
        if ! grep -q "calling init: $OURS/$l.so.1" "$log"; then
            fail "$name" "$l.so.1 was not loaded from $OURS" "$log"; return
        fi
        if grep -q "calling init: $SYSLIB/$l.so.1" "$log"; then
            fail "$name" "the system's $l.so.1 was loaded too" "$log"; return
        fi
    done
    pass "$name" "${libs// /, } from $OURS"
}

summary() { echo "${1:-case}: $passed passed, $failed failed"; }
