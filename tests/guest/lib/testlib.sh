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

# libenv ours|stock|preload : the environment prefix (as `env` arguments) that selects a library set. Inside a
# release case (rel_mount below) it selects the set for $REL_EXEC instead: REL_LIBS=ours|stock|preload.
libenv() {
    if [[ -n ${REL_EXEC:-} ]]; then
        case "$1" in ours|stock|preload) echo "REL_LIBS=$1"; return 0 ;; esac
    fi
    case "$1" in
        ours) echo "LD_LIBRARY_PATH=$OURS" ;;
        preload) echo "LD_PRELOAD=$OURS/libibverbs.so.1:$OURS/librdmacm.so.1" ;;
        stock) echo "RDMA_CORE_RS_STOCK=1" ;;   # a harmless variable: no override
        *) echo "libenv: unknown '$1'" >&2; return 1 ;;
    esac
}

# Waits until a TCP socket listens on port $1 (from /proc/net/tcp and tcp6: rdma-core 65's pingpongs listen on IPv6's
# "::" when the system offers it); at most $2 seconds. With a pid $3, gives up as soon as that process has exited (a
# server that could not start: a missing symbol, a bad option): returns 2.
wait_tcp_listen() {
    local hex deadline=$((SECONDS + $2)) line pid=${3:-}
    printf -v hex ':%04X ' "$1"
    while (( SECONDS < deadline )); do
        while read -r line; do
            [[ "$line" == *"$hex"*" 0A "* ]] && return 0
        done < <(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
        [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && return 2
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
    local slog="$WORK/${name//\//_}.server.log" clog="$WORK/${name//\//_}.client.log" t0 spid crc src attempt
    t0=$(now)
    # shellcheck disable=SC2086
    env $(libenv "$slibs") timeout "$T" $scmd > "$slog" 2>&1 &
    spid=$!
    crc=1
    if [[ $port != - ]]; then
        if ! wait_tcp_listen "$port" "$T" "$spid"; then
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
    # BASELINE=FILE: the same program's trace with the release's own libraries; lookup errors it shows too (sid's
    # libudev looks up functions its glibc lacks under LD_BIND_NOW) are not ours.
    bad=$(grep -E "symbol lookup error|undefined symbol|version .* not found|cannot open shared object" "$log" |
          sed -E 's/^ *[0-9]+:\s*//' | sort -u |
          if [[ -n ${BASELINE:-} && -f ${BASELINE:-} ]]; then
              grep -vxF -f <(grep -E "symbol lookup error|undefined symbol|version .* not found|cannot open shared object" \
                  "$BASELINE" | sed -E 's/^ *[0-9]+:\s*//' | sort -u)
          else cat; fi | head -3)
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

# kernel_ge MAJOR MINOR : the running kernel is MAJOR.MINOR or newer (uname's release), as tests/c's tu_kernel_ge.
kernel_ge() {
    local ma mi
    IFS=. read -r ma mi _ <<< "$(uname -r)"
    mi=${mi%%[!0-9]*}
    (( ma > $1 || (ma == $1 && mi >= $2) ))
}

# ---- Helpers for the verbs cases (20-verbs-debian, 25-verbs-c) --------------------------------------------------------

# CASE_LIBS=stock runs every "ours"/"preload" side with the system's rdma-core instead, so that a case can be
# validated against rdma-core itself; the default (ours) leaves the modes alone. Pass it into the guest with
#   tests/guest/run -e CASE_LIBS=stock -- bash tests/guest/cases/20-verbs-debian.sh
CASE_LIBS=${CASE_LIBS:-ours}

# libs MODE : MODE, or stock when CASE_LIBS=stock.
libs() { if [[ $CASE_LIBS == stock ]]; then echo stock; else echo "$1"; fi; }

# rpathenv ours|stock|preload : like libenv, for programs linked with a RUNPATH to $OURS (tests/out/c/*): "stock"
# must then point LD_LIBRARY_PATH at the system's directory, which wins over RUNPATH.
rpathenv() {
    case "$1" in
        stock) echo "LD_LIBRARY_PATH=$SYSLIB" ;;
        *) libenv "$1" ;;
    esac
}

# pair_run NAME SERVER_LIBS CLIENT_LIBS PORT "SERVER CMD" "CLIENT CMD"
# Like pair (server in the background, wait for its TCP port, client, both under `timeout $T`) but judges nothing:
# it sets PAIR_SRC / PAIR_CRC (exit statuses; 124 = timeout), PAIR_SLOG / PAIR_CLOG and PAIR_T0 for pair_judge.
pair_run() {
    local name=$1 slibs=$2 clibs=$3 port=$4 scmd=$5 ccmd=$6 spid
    PAIR_SLOG="$WORK/${name//\//_}.server.log" PAIR_CLOG="$WORK/${name//\//_}.client.log" PAIR_T0=$(now)
    # shellcheck disable=SC2086
    env $(libenv "$slibs") timeout "$T" $scmd > "$PAIR_SLOG" 2>&1 &
    spid=$!
    if ! wait_tcp_listen "$port" "$T" "$spid"; then
        kill "$spid" 2>/dev/null; wait "$spid"
        PAIR_SRC=$? PAIR_CRC=-1
        echo "(server never listened on port $port)" >> "$PAIR_CLOG"
        return
    fi
    # shellcheck disable=SC2086
    env $(libenv "$clibs") timeout "$T" $ccmd > "$PAIR_CLOG" 2>&1
    PAIR_CRC=$?
    (( PAIR_CRC != 0 )) && kill "$spid" 2>/dev/null
    wait "$spid"
    PAIR_SRC=$?
}

# pair_judge NAME CLIENT_RE [SERVER_RE] [BAD_RE]: after pair_run, PASS when both sides exited 0, the client's
# output matches CLIENT_RE and the server's SERVER_RE (extended regexes; empty = not checked), and neither output
# matches BAD_RE.
pair_judge() {
    local name=$1 cre=${2:-} sre=${3:-} bre=${4:-} why=""
    (( PAIR_CRC == -1 )) && why+="server never listened "
    (( PAIR_CRC > 0 )) && why+="client exit $PAIR_CRC "
    (( PAIR_SRC != 0 )) && why+="server exit $PAIR_SRC "
    if [[ -z $why ]]; then
        [[ -n $cre ]] && ! grep -Eq -- "$cre" "$PAIR_CLOG" && why+="client output lacks /$cre/ "
        [[ -n $sre ]] && ! grep -Eq -- "$sre" "$PAIR_SLOG" && why+="server output lacks /$sre/ "
        [[ -n $bre ]] && grep -Eq -- "$bre" "$PAIR_SLOG" "$PAIR_CLOG" && why+="output has /$bre/ "
    fi
    if [[ -z $why ]]; then
        pass "$name" "$(dur "$PAIR_T0" "$(now)")${cre:+: $(grep -Em1 -- "$cre" "$PAIR_CLOG" | tr -s ' \t' ' ')}"
    else
        [[ $why == *124* ]] && why+="(124 = killed by timeout ${T}s)"
        fail "$name" "$why" "$PAIR_SLOG" "$PAIR_CLOG"
    fi
}

# pair2 NAME SERVER_LIBS CLIENT_LIBS PORT "SERVER CMD" "CLIENT CMD" CLIENT_RE [SERVER_RE] [BAD_RE]
pair2() { pair_run "$1" "$2" "$3" "$4" "$5" "$6"; pair_judge "$1" "${7:-}" "${8:-}" "${9:-}"; }

# wait_port_active DEV SECS : waits until DEV's port 1 is ACTIVE (sysfs); 0 or 1.
wait_port_active() {
    local deadline=$((SECONDS + $2)) st
    while (( SECONDS < deadline )); do
        read -r st < "/sys/class/infiniband/$1/ports/1/state" && [[ $st == *ACTIVE* ]] && return 0
        sleep 0.1
    done
    return 1
}

# wait_file_match FILE REGEX SECS : waits until FILE has a line matching REGEX (extended); 0 or 1.
wait_file_match() {
    local deadline=$((SECONDS + $3))
    while (( SECONDS < deadline )); do
        grep -Eq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# ---- Helpers for the examples cases (50-examples, 51-manual) ----------------------------------------------------------

# log_wait FILE REGEX SECS [PID] : waits until a line of FILE matches REGEX (bash extended regex; no process is started
# per poll). Returns 0 when found, 1 after SECS seconds, 2 as soon as PID (if given) has exited without printing it.
log_wait() {
    local file=$1 re=$2 deadline=$((SECONDS + $3)) pid=${4:-} line dead
    while :; do
        dead=0
        [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && dead=1
        if [[ -r $file ]]; then
            while IFS= read -r line; do [[ $line =~ $re ]] && return 0; done < "$file"
        fi
        (( dead )) && return 2
        (( SECONDS >= deadline )) && return 1
        sleep 0.1
    done
}

# pair_ready NAME SERVER_LIBS CLIENT_LIBS READY_RE "SERVER CMD" "CLIENT CMD"
# Like pair_run, for servers that print a line when they are ready (an rdma_cm listener does not show in
# /proc/net/tcp): starts the server in the background, waits until its output matches READY_RE (bash regex), then runs
# the client; both under `timeout $T`. LIBS go through rpathenv, so programs linked with a RUNPATH to build/lib
# (build/examples, tests/out/c) really run on stock with "stock". Sets PAIR_SRC / PAIR_CRC (-1: the server never got
# ready, PAIR_WHY says why) / PAIR_SLOG / PAIR_CLOG / PAIR_T0, as pair_run does, for pair_judge or a case's own checks.
pair_ready() {
    local name=${1//\//_} slibs=$2 clibs=$3 ready=$4 scmd=$5 ccmd=$6 spid rc
    PAIR_SLOG="$WORK/$name.server.log" PAIR_CLOG="$WORK/$name.client.log" PAIR_T0=$(now) PAIR_WHY=""
    : > "$PAIR_CLOG"
    # shellcheck disable=SC2086
    env $(rpathenv "$slibs") timeout "$T" $scmd > "$PAIR_SLOG" 2>&1 &
    spid=$!
    log_wait "$PAIR_SLOG" "$ready" "$T" "$spid"
    rc=$?
    if (( rc != 0 )); then
        kill "$spid" 2>/dev/null; wait "$spid"
        PAIR_SRC=$? PAIR_CRC=-1
        if (( rc == 2 )); then PAIR_WHY="server exited $PAIR_SRC before it was ready"
        else PAIR_WHY="server not ready after ${T}s"; fi
        return
    fi
    # shellcheck disable=SC2086
    env $(rpathenv "$clibs") timeout "$T" $ccmd > "$PAIR_CLOG" 2>&1
    PAIR_CRC=$?
    (( PAIR_CRC != 0 )) && kill "$spid" 2>/dev/null
    wait "$spid"
    PAIR_SRC=$?
}

# ---- Helpers for the rdma_cm cases (30-cm-debian, 35-cm-c) ------------------------------------------------------------
# They use CASE_LIBS / libs / rpathenv from above. An rdma_cm listener is invisible in /proc/net/tcp and
# `rdma resource show cm_id` costs ~1 s per call under TCG, so clients are retried while they are refused.

# What a client prints when the server is not listening yet (rping/cmatose/cmtime/udaddy events, the synchronous
# API's perror, perftest's "Unexpected CM event ... 8"): retrying is then the right thing to do.
CM_RETRY_RE=${CM_RETRY_RE:-'RDMA_CM_EVENT_(REJECTED|UNREACHABLE)|Connection refused|Unexpected CM event.* 8$'}
CM_RETRY_SECS=${CM_RETRY_SECS:-10}   # how long a refused client is retried while its server runs

# cm_match RE FILE : a line of FILE matches the bash extended regex RE (no process started).
cm_match() {
    local line
    [[ -r $2 ]] || return 1
    while IFS= read -r line || [[ -n $line ]]; do [[ $line =~ $1 ]] && return 0; done < "$2"
    return 1
}

# cm_matches RES FILE : every regex of RES (separated by " ;; ") matches a line of FILE; else prints the first
# regex that does not and returns 1.
cm_matches() {
    local res=$1 re
    while [[ -n $res ]]; do
        re=${res%% ;; *}
        [[ $res == *" ;; "* ]] && res=${res#* ;; } || res=""
        [[ -z $re ]] && continue
        cm_match "$re" "$2" || { echo "$re"; return 1; }
    done
    return 0
}

# cm_wait_listen PORT SECS [PID] : waits until the kernel shows an rdma_cm id listening on PORT (any port space;
# `rdma resource show cm_id`, ~1 s per poll under TCG). 0 when listening, 1 after SECS, 2 as soon as PID has exited.
cm_wait_listen() {
    local port=$1 deadline=$((SECONDS + $2)) pid=${3:-} line
    while :; do
        while IFS= read -r line; do
            [[ "$line " == *" state LISTEN "*" src-addr "*":$port "* ]] && return 0
        done < <(rdma resource show cm_id 2>/dev/null)
        [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && return 2
        (( SECONDS >= deadline )) && return 1
        sleep 0.2
    done
}

# cm_pair NAME SERVER_LIBS CLIENT_LIBS "SERVER CMD" "CLIENT CMD" CLIENT_RES [SERVER_RES] [BAD_RE]
# Starts the server in the background, runs the client (retried after 0.3 s pauses while its output matches
# CM_RETRY_RE and the server still runs, for CM_RETRY_SECS), both under `timeout $T`. PASS when both exit 0, every
# regex of CLIENT_RES / SERVER_RES (" ;; "-separated bash regexes) matches the client's / server's output, and no
# line of either matches BAD_RE. With CM_PERSIST=1 the server is one that never exits by itself (cmtime,
# rdma_xserver waiting for a client that failed): it must still run after the client, and is then stopped. With
# CM_WAIT_PORT=PORT the client starts only once the server listens on PORT (cm_wait_listen), for clients that cannot
# simply be retried (cmtime's 100 connections would be partly refused).
# With CM_REDO_RE=REGEX, a pair that failed while either output matches REGEX runs once more from the start (the
# server too), saying so: for a race of the programs themselves that the fabric cannot absorb (perftest's over iWARP,
# which has no RNR retry: 60-siw); the first run's logs are kept as *.redo1.
# LIBS are ours|stock|preload (use `libs ours` for the switchable side). Sets CM_SLOG / CM_CLOG / CM_CRC / CM_SRC.
cm_pair() {
    local name=$1 t0 redo=0
    t0=$(now)
    while :; do
        cm_pair_run "$@"
        [[ -n $CM_WHY && -n ${CM_REDO_RE:-} ]] && (( redo == 0 )) || break
        cm_match "$CM_REDO_RE" "$CM_CLOG" || cm_match "$CM_REDO_RE" "$CM_SLOG" || break
        redo=1
        echo "# $name: $CM_WHY; its output matches /$CM_REDO_RE/: run once more"
        cp "$CM_SLOG" "$CM_SLOG.redo1"; cp "$CM_CLOG" "$CM_CLOG.redo1"
    done
    if [[ -z $CM_WHY ]]; then
        local again=""
        (( redo )) && again=" (the second run: the first failed matching CM_REDO_RE)"
        pass "$name" "$(dur "$t0" "$(now)"), $CM_PASS$again"
    else
        fail "$name" "$CM_WHY" "$CM_SLOG" "$CM_CLOG"
    fi
}

# cm_pair_run: one run of cm_pair's pair (same arguments); sets CM_WHY (empty when it passed) or CM_PASS (the pass
# detail after the duration).
cm_pair_run() {
    local name=$1 slibs=$2 clibs=$3 scmd=$4 ccmd=$5 cres=${6:-} sres=${7:-} bad=${8:-}
    local spid attempt=0 deadline why="" miss
    CM_SLOG="$WORK/${name//\//_}.server.log" CM_CLOG="$WORK/${name//\//_}.client.log" CM_CRC=1 CM_SRC=1
    # shellcheck disable=SC2046,SC2086
    env $(libenv "$slibs") timeout "$T" $scmd > "$CM_SLOG" 2>&1 &
    spid=$!
    if [[ -n ${CM_WAIT_PORT:-} ]]; then
        cm_wait_listen "$CM_WAIT_PORT" "$T" "$spid"
        case $? in
            1) why+="server not listening on port $CM_WAIT_PORT after ${T}s " CM_CRC=-1 ;;
            2) why+="server exited before listening on port $CM_WAIT_PORT " CM_CRC=-1 ;;
        esac
    fi
    deadline=$((SECONDS + CM_RETRY_SECS))
    while [[ -z $why ]]; do
        attempt=$((attempt + 1))
        sleep 0.3
        # shellcheck disable=SC2046,SC2086
        env $(libenv "$clibs") timeout "$T" $ccmd > "$CM_CLOG" 2>&1
        CM_CRC=$?
        cm_match "$CM_RETRY_RE" "$CM_CLOG" || break
        kill -0 "$spid" 2>/dev/null || break
        (( SECONDS < deadline )) || break
    done
    if [[ -n $why ]]; then
        kill "$spid" 2>/dev/null; wait "$spid"; CM_SRC=$?
    elif [[ ${CM_PERSIST:-0} == 1 ]]; then
        if kill -0 "$spid" 2>/dev/null; then
            kill "$spid" 2>/dev/null; wait "$spid"; CM_SRC=0
        else
            wait "$spid"; CM_SRC=$?; why+="server exited $CM_SRC while it should still run "
        fi
    else
        (( CM_CRC != 0 )) && kill "$spid" 2>/dev/null
        wait "$spid"; CM_SRC=$?
        (( CM_SRC != 0 )) && why+="server exit $CM_SRC "
    fi
    (( CM_CRC > 0 )) && why+="client exit $CM_CRC "
    if [[ -z $why ]]; then
        cm_match "$CM_RETRY_RE" "$CM_CLOG" && why+="client still refused after $attempt attempts "
        miss=$(cm_matches "$cres" "$CM_CLOG") || why+="client output lacks /$miss/ "
        miss=$(cm_matches "$sres" "$CM_SLOG") || why+="server output lacks /$miss/ "
        if [[ -n $bad ]] && { cm_match "$bad" "$CM_CLOG" || cm_match "$bad" "$CM_SLOG"; }; then
            why+="output has /$bad/ "
        fi
    fi
    CM_WHY="" CM_PASS=""
    if [[ -z $why ]]; then
        local first=${cres%% ;; *} line=""
        [[ -n $first ]] && while IFS= read -r line; do [[ $line =~ $first ]] && break; done < "$CM_CLOG"
        line=${line//$'\t'/ }
        CM_PASS="$slibs server, $clibs client, attempt $attempt${line:+: ${line## }}"
    else
        [[ $why == *124* ]] && why+="(124 = killed by timeout ${T}s)"
        CM_WHY="$why($slibs server, $clibs client)"
    fi
}

# MC_SENDER: the prefix mckey's sender (mckey -s) runs under: SCHED_IDLE (`chrt --idle 0`); the manual's mc waits for
# its signaled send's completion and runs without it.
# mckey posts its datagrams unsignaled and at once leaves the group and destroys its AH and QP, without waiting for a
# completion. From 6.12 on, rxe sends a user QP's work requests from a kernel work item (rxe_wq) when the doorbell
# finds the send task busy, and under TCG that work item often ran only after the destroy: "rxe_get_av: Unable to
# find AH matching ah_num" on rxe1, nothing sent, with rdma-core as with ours (measured 2026-12-06 in the 6.12 guest,
# trixie's mckey: 20 of 32 runs lost, 4 to 6 of 8 in each way of libraries). An idle-class sender yields its CPU to
# the work item the moment it is woken: 24 of 24 delivered, both ways, and every run of the 7.2 guest. The program
# is unchanged; only its scheduling class is, and the kernel's handling of the AH is what the run still exercises.
MC_SENDER=(chrt --idle 0)

# cm_wait_igmp NETDEV GROUP SECS [PID] : waits until NETDEV has joined the IPv4 multicast GROUP (/proc/net/igmp;
# an rdma_cm RoCE v2 join does the IGMP join). 0 when joined, 1 after SECS, 2 as soon as PID has exited.
cm_wait_igmp() {
    local dev=$1 hex deadline=$((SECONDS + $3)) pid=${4:-} line cur a b c d
    IFS=. read -r a b c d <<< "$2"
    printf -v hex '%02X%02X%02X%02X' "$d" "$c" "$b" "$a"
    while :; do
        cur=""
        while IFS= read -r line; do
            [[ $line =~ ^[0-9]+[[:space:]]+([^[:space:]]+) ]] && cur=${BASH_REMATCH[1]} && continue
            [[ $cur == "$dev" && $line == *"$hex"* ]] && return 0
        done < /proc/net/igmp
        [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && return 2
        (( SECONDS >= deadline )) && return 1
        sleep 0.1
    done
}

# cm_norm FILE : FILE's lines, sorted and without duplicates (threads of one program may print in either order).
cm_norm() { local line; while IFS= read -r line || [[ -n $line ]]; do echo "$line"; done < "$1" | sort -u; }

# cm_same_failure NAME WANT_RC WANT_RES LIBS "CMD" [RACY_RE]
# An error path must fail as rdma-core 44 does: runs CMD with the system's libraries and with LIBS, both under
# `timeout $T`; PASS when both exit WANT_RC (what rdma-core was measured to return), both outputs match every regex of
# WANT_RES (" ;; "-separated), and every line LIBS printed is one rdma-core printed too (order aside) or matches
# RACY_RE: rping, for one, exit()s from its CM thread while its main thread may or may not print its last lines
# (seen both ways with rdma-core itself).
cm_same_failure() {
    local name=$1 want_rc=$2 res=$3 lib=$4 cmd=$5 racy=${6:-} t0 src orc why="" miss line
    local f=${name//\//_}
    local slog="$WORK/$f.stock.log" olog="$WORK/$f.$lib.log"
    t0=$(now)
    # shellcheck disable=SC2086
    timeout "$T" $cmd > "$slog" 2>&1; src=$?
    # shellcheck disable=SC2046,SC2086
    env $(libenv "$lib") timeout "$T" $cmd > "$olog" 2>&1; orc=$?
    (( src != want_rc )) && why+="rdma-core exited $src, not the $want_rc measured before (environment?) "
    (( orc != want_rc )) && why+="$lib exit $orc, rdma-core $src "
    miss=$(cm_matches "$res" "$slog") || why+="rdma-core output lacks /$miss/ "
    miss=$(cm_matches "$res" "$olog") || why+="$lib output lacks /$miss/ "
    if [[ -z $why ]]; then
        : > "$WORK/$f.extra"
        while IFS= read -r line; do
            [[ -n $racy && $line =~ $racy ]] || echo "$line" >> "$WORK/$f.extra"
        done < <(comm -13 <(cm_norm "$slog") <(cm_norm "$olog"))
        [[ -s $WORK/$f.extra ]] && why+="$lib printed lines rdma-core does not "
    fi
    if [[ -z $why ]]; then
        local first=${res%% ;; *}
        while IFS= read -r line; do [[ $line =~ $first ]] && break; done < "$olog"
        pass "$name" "$(dur "$t0" "$(now)"), $lib and rdma-core both exit $want_rc: $line"
    else
        fail "$name" "$why" "$slog" "$olog" "$WORK/$f.extra"
    fi
}

# libs_check NAME MODE PROGRAM : asks the dynamic linker (LD_TRACE_LOADED_OBJECTS, nothing runs) which
# libibverbs.so.1 PROGRAM gets under MODE; passes when ours/preload give $OURS's and stock gives one outside $OURS.
# Guards the other checks: with a missing build/lib, LD_LIBRARY_PATH would silently fall back to the system's copy.
libs_check() {
    local name=$1 mode=$2 prog=$3 out got
    # shellcheck disable=SC2046
    out=$(env $(libenv "$mode") LD_TRACE_LOADED_OBJECTS=1 "$prog" 2>&1)
    got=$(grep -oE '/[^ ]*/libibverbs\.so\.1' <<< "$out" | sort -u | tr '\n' ' ')
    got=${got% }
    if [[ $mode == stock && -n $got && $got != *"$OURS/"* ]] || [[ $mode != stock && $got == "$OURS/libibverbs.so.1" ]]; then
        pass "$name" "$mode: ${prog##*/} gets $got"
    else
        fail "$name" "$mode: ${prog##*/} gets '${got:-no libibverbs.so.1}'"
    fi
}

# ---- Helpers for the release cases (70-release): a Debian release's own programs, chrooted into its root ----------
# tools/install-deps.sh makes build/roots/<release> (debootstrap --variant=minbase with the release's rdma-core,
# perftest, pyverbs, iproute2) on the host; the guest sees it read-only (9p). rel_mount RELEASE puts a throw-away
# overlay on it (upper layer in the guest's /run, so the host's copy is never written), mounts /proc, /sys, /dev (with
# /dev/pts, /dev/shm; slaves, so that unmounting them never reaches the originals), a tmpfs on /tmp and /run, and our build/lib read-only on $REL_LIBDIR, and writes $REL_EXEC, a
# wrapper that runs one of the release's programs chrooted there:
#   REL_LIBS=ours    $REL_EXEC ibv_devinfo      our libraries (LD_LIBRARY_PATH=$REL_LIBDIR inside the root)
#   REL_LIBS=preload $REL_EXEC ibv_devinfo      our libraries by LD_PRELOAD
#   REL_LIBS=rdmacm  $REL_EXEC prog             our librdmacm alone, over the release's libibverbs (what an
#                                               LD_LIBRARY_PATH holding only our librdmacm gives: $REL_RDMACM)
#   REL_LIBS=stock   $REL_EXEC ibv_devinfo      the release's own rdma-core (also when REL_LIBS is unset)
# Every other variable (RDMAV_PROVIDER, VERBS_LOG_LEVEL, RDMA_TEST_*, ...) passes through; PATH is the root's.
# While REL_EXEC is set, libenv ours|stock|preload answers REL_LIBS=<mode>, so pair2 / cm_pair / cm_same_failure run
# "$REL_EXEC PROG ..." commands unchanged. The process keeps its pid through the wrapper (exec chroot, exec env), so
# /proc/<pid>/maps of a backgrounded "$REL_EXEC PROG" is PROG's. rel_umount undoes it all.
REL_LIBDIR=/opt/rdma-core-rs/lib     # tools/install-deps.sh's ROOT_LIBDIR
REL_RDMACM=/opt/rdma-core-rs/rdmacm  # (in the overlay) a copy of our librdmacm.so.1, alone
REL_ROOTS=${RDMA_ROOTS_DIR:-$REPO/build/roots}

# rel_mount RELEASE : sets REL, REL_ROOT (the chroot), REL_EXEC; on failure REL_ERROR and returns 1.
rel_mount() {
    local src=$REL_ROOTS/$1 base=/run/rdma-release/$1 d
    REL=$1 REL_ROOT=$base/root REL_ERROR="" REL_EXEC=""
    if [[ ! -x $src/usr/bin/ibv_devinfo ]]; then
        REL_ERROR="no $src/usr/bin/ibv_devinfo (tools/install-deps.sh makes the root on the host)"
        return 1
    fi
    if [[ ! -r $OURS/libibverbs.so.1 || ! -r $OURS/librdmacm.so.1 ]]; then
        REL_ERROR="no $OURS/libibverbs.so.1 / librdmacm.so.1 (make on the host)"
        return 1
    fi
    [[ -d $REL_ROOT ]] && rel_umount
    REL_ROOT=$base/root
    mkdir -p "$base/upper" "$base/work" "$REL_ROOT" || { REL_ERROR="cannot create $base"; return 1; }
    if ! mount -t overlay -o "lowerdir=$src,upperdir=$base/upper,workdir=$base/work" "rel-$1" "$REL_ROOT" \
            2> "$WORK/rel-mount.log"; then
        REL_ERROR="overlay on $src: $(cat "$WORK/rel-mount.log")"
        return 1
    fi
    for d in proc sys dev tmp run "${REL_LIBDIR#/}" "${REL_RDMACM#/}"; do mkdir -p "$REL_ROOT/$d"; done
    { mount --bind /proc "$REL_ROOT/proc" && mount --rbind /sys "$REL_ROOT/sys" &&
      mount --rbind /dev "$REL_ROOT/dev" && mount --make-rslave "$REL_ROOT/sys" && mount --make-rslave "$REL_ROOT/dev" &&
      mount -t tmpfs -o mode=1777 tmpfs "$REL_ROOT/tmp" &&
      mount -t tmpfs -o mode=0755 tmpfs "$REL_ROOT/run" &&
      mount --bind "$OURS" "$REL_ROOT$REL_LIBDIR" && mount -o remount,bind,ro "$REL_ROOT$REL_LIBDIR" &&
      cp "$OURS/librdmacm.so.1" "$REL_ROOT$REL_RDMACM/"; } \
        2> "$WORK/rel-mount.log" || { REL_ERROR="mounts in $REL_ROOT: $(cat "$WORK/rel-mount.log")"; rel_umount; return 1; }
    REL_EXEC=$WORK/rel-exec-$1
    cat > "$REL_EXEC" <<EOF
#!/bin/bash
# Runs a program of the $1 root chrooted ($REL_ROOT); REL_LIBS=ours|preload|stock (tests/guest/lib/testlib.sh).
case \${REL_LIBS:-stock} in
    ours) lib=(LD_LIBRARY_PATH=$REL_LIBDIR) ;;
    preload) lib=(LD_PRELOAD=$REL_LIBDIR/libibverbs.so.1:$REL_LIBDIR/librdmacm.so.1) ;;
    rdmacm) lib=(LD_LIBRARY_PATH=$REL_RDMACM) ;;
    stock) lib=() ;;
    *) echo "rel-exec: REL_LIBS=\$REL_LIBS is not ours, preload, rdmacm or stock" >&2; exit 127 ;;
esac
exec chroot $REL_ROOT /usr/bin/env -u LD_LIBRARY_PATH -u LD_PRELOAD -u REL_LIBS \\
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TMPDIR=/tmp "\${lib[@]}" "\$@"
EOF
    chmod +x "$REL_EXEC"
}

# rel_umount : every mount rel_mount made (the overlay last), and its upper layer.
rel_umount() {
    [[ -n ${REL_ROOT:-} && -d $REL_ROOT ]] || return 0
    umount -R "$REL_ROOT" 2>/dev/null || umount -R -l "$REL_ROOT" 2>/dev/null
    rm -rf "${REL_ROOT%/root}"
    REL_EXEC=""
}

# rel_libs_check NAME MODE PROGRAM [LIBS] : the dynamic linker inside the root (LD_TRACE_LOADED_OBJECTS, nothing
# runs) gives PROGRAM our copy of each of LIBS (default libibverbs) under ours/preload, the release's under stock.
rel_libs_check() {
    local name=$1 mode=$2 prog=$3 libs=${4:-libibverbs} out l got all="" why=""
    out=$(REL_LIBS=$mode "$REL_EXEC" env LD_TRACE_LOADED_OBJECTS=1 "$prog" 2>&1)
    for l in $libs; do
        got=$(grep -oE "(/[^ ]*)?/$l\.so\.1|$l\.so\.1 => not found" <<< "$out" | sort -u | tr '\n' ' ')
        got=${got% }
        all+="$l: ${got:-none}; "
        if [[ $mode == stock ]]; then
            [[ -n $got && $got != *"$REL_LIBDIR/"* && $got != *"not found"* ]] || why+="$l is '${got:-none}' "
        else
            [[ $got == "$REL_LIBDIR/$l.so.1" ]] || why+="$l is '${got:-none}', not $REL_LIBDIR's "
        fi
    done
    if [[ -z $why ]]; then pass "$name" "$mode: ${prog##*/} gets ${all%; }"
    else fail "$name" "$mode: $why"; grep -E 'not found|=>' <<< "$out" | sed 's/^/    /' | head -20
    fi
}

# rel_maps PID FILE : PID's /proc maps, read inside the root (paths as the program sees them), into FILE.
rel_maps() { "$REL_EXEC" cat "/proc/$1/maps" > "$2" 2>/dev/null; }

# rel_compare PREFIX REF_LOG REF_RC LOG RC : a run of one of our PASS/FAIL test programs (LOG, its exit status RC)
# judged against the reference run of the same program with the release's own libraries (REF_LOG, REF_RC), check by
# check, each named PREFIX/<check>: it passes when both pass it, or both fail it with the same reason; it fails when
# the two differ, or only one of them reports it. The reference's "# outcome ..." lines (a program's summary of what
# happened) must be the run's too (PREFIX/outcome), and a run that dies (timeout, signal) where the reference's did
# not, or exits non-zero after the reference's 0 without a differing check, fails PREFIX/exit. $REL_REF names the
# reference in the messages (default "the release's rdma-core"). Returns 1 when something failed.
rel_compare() {
    local pfx=$1 ref=$2 ref_rc=$3 log=$4 rc=$5 line check r o nfail=0 who=${REL_REF:-the release\'s rdma-core}
    local -A rres=() ores=()
    while IFS= read -r line; do
        [[ $line =~ ^(PASS|FAIL)\ ([^ :]+)(.*)$ ]] && rres[${BASH_REMATCH[2]}]="${BASH_REMATCH[1]}${BASH_REMATCH[3]}"
    done < "$ref"
    while IFS= read -r line; do
        [[ $line =~ ^(PASS|FAIL)\ ([^ :]+)(.*)$ ]] && ores[${BASH_REMATCH[2]}]="${BASH_REMATCH[1]}${BASH_REMATCH[3]}"
    done < "$log"
    for check in $(printf '%s\n' "${!rres[@]}" | sort); do
        r=${rres[$check]} o=${ores[$check]:-}
        if [[ $r == PASS* && $o == PASS* ]]; then
            pass "$pfx/$check" "passes, as with $who${o#PASS}"
        elif [[ $r == FAIL* && $o == "$r" ]]; then
            pass "$pfx/$check" "fails alike with $who${o#FAIL}"
        elif [[ -z $o ]]; then
            fail "$pfx/$check" "not reported ($who: $r)" "$log"; nfail=1
        else
            fail "$pfx/$check" "ours: $o; with $who: $r" "$log"; nfail=1
        fi
    done
    for check in $(printf '%s\n' "${!ores[@]}" | sort); do
        [[ -n ${rres[$check]:-} ]] || { fail "$pfx/$check" "only ours reports it: ${ores[$check]}"; nfail=1; }
    done
    if grep -q '^# outcome ' "$ref"; then
        if [[ "$(grep '^# outcome ' "$ref")" == "$(grep '^# outcome ' "$log")" ]]; then
            pass "$pfx/outcome" "as $who: $(grep -m1 '^# outcome ' "$log" | cut -c11-200)"
        else
            diff <(grep '^# outcome ' "$ref") <(grep '^# outcome ' "$log") > "$log.outcome.diff"
            fail "$pfx/outcome" "differs (< $who, > ours)" "$log.outcome.diff"; nfail=1
        fi
    fi
    if (( (rc == 124 || rc > 128) && rc != ref_rc )); then
        fail "$pfx/exit" "exit $rc ($who's run: $ref_rc)" "$log"; nfail=1
    elif (( rc != 0 && ref_rc == 0 && nfail == 0 )); then
        fail "$pfx/exit" "exit $rc without a differing check ($who's run: 0)" "$log"; nfail=1
    fi
    (( nfail == 0 ))
}
