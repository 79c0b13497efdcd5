#!/bin/bash
# In-guest half of `make bench` (bench/run.sh boots the guest once and runs this). Every measurement runs with
# rdma-core's libraries (column "stock") and with ours (column "ours": LD_LIBRARY_PATH=build/lib), interleaved.
#
#   bash bench/guest.sh OUTDIR
#
# Writes OUTDIR/samples.tsv (one line per sample: metric, column, rep, value or FAIL, note), OUTDIR/meta.tsv and
# OUTDIR/logs/ (the output of every failed run, and of each column's first run). Progress goes to stdout.
#
# Knobs (environment):
#   BENCH_REPS=N     repetitions of the timed perftest/cmtime rounds (default 10; 3 with BENCH_QUICK=1)
#   BENCH_QUICK=1    fewer repetitions and iterations everywhere (a smoke run of the instrument, ~5 min)
#   BENCH_OURS=stock the "ours" column uses rdma-core too: stock against stock, to see the noise
#   BENCH_BUDGET=S   no new round unless it fits in S seconds of this script (default 1260; 420 quick)
#   BENCH_TIMEOUT=S  timeout for each program (default 45)
#   BENCH_ONLY=LIST  only these parts (comma-separated: cpu,mem,start,lat,bw,cm,rs,plugin,scale,siw,cmsiw), for
#                    experiments (cmsiw: only the siw part's cmtime rounds)
#   BENCH_SIW_REPS=N timed perftest rounds over Soft-iWARP (default 5; 2 with BENCH_QUICK=1)
#   BENCH_SCALE_REPS=N interleaved rounds of the scale part (default 3)
#   BENCH_BIN=DIR    where datapath, memory and objects were built (default build/bench)
#
# Each server/client pair runs under `timeout`; a failure is recorded as a FAIL sample, never aborts the run. A
# (test, column) that fails in its first round is not retried in later rounds (so a missing feature of ours costs
# one timeout, not one per round).
set -u
cd "$(dirname "$0")/.." || exit 1
export REPO=$PWD
OUT=${1:?usage: bench/guest.sh OUTDIR}
mkdir -p "$OUT/logs" || exit 1
WORK=$(mktemp -d /tmp/bench.XXXXXX) || exit 1
source tests/guest/lib/testlib.sh    # DEV0/1 IP0/1 GID0/1 OURS now dur wait_tcp_listen
source tests/guest/setup-siw.sh      # siw_setup / siw_teardown (the Soft-iWARP part, last)

QUICK=${BENCH_QUICK:-0}
REPS=${BENCH_REPS:-$([[ $QUICK == 1 ]] && echo 3 || echo 10)}
BUDGET=${BENCH_BUDGET:-$([[ $QUICK == 1 ]] && echo 420 || echo 1260)}
T=${BENCH_TIMEOUT:-45}
ONLY=${BENCH_ONLY:-cpu,mem,start,lat,bw,cm,rs,plugin,scale,siw}
SIW_REPS=${BENCH_SIW_REPS:-$([[ $QUICK == 1 ]] && echo 2 || echo 5)}
SCALE_REPS=${BENCH_SCALE_REPS:-3}
BIN=${BENCH_BIN:-build/bench}
OURS_MODE=${BENCH_OURS:-ours}
START=$SECONDS

# Library environment per column (as `env` arguments).
declare -A LIBENV
LIBENV[stock]="RDMA_CORE_RS_STOCK=1"
if [[ $OURS_MODE == stock ]]; then LIBENV[ours]="RDMA_CORE_RS_STOCK=1"; else LIBENV[ours]="LD_LIBRARY_PATH=$OURS"; fi

SAMPLES=$OUT/samples.tsv
: > "$SAMPLES"
{
    printf 'date\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf 'kernel\t%s\n' "${RDMA_TEST_KERNEL:-$(uname -r)}"
    printf 'ours_mode\t%s\n' "$OURS_MODE"
    printf 'ours_libdir\t%s\n' "$OURS"
    printf 'reps\t%s\n' "$REPS"
    printf 'quick\t%s\n' "$QUICK"
    printf 'perftest\t%s\n' "$(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
    printf 'rdma_core\t%s\n' "$(dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null)"
    printf 'valgrind\t%s\n' "$(valgrind --version 2>/dev/null)"
    printf 'cpus\t%s\n' "$(nproc)"
} > "$OUT/meta.tsv"

has() { [[ ",$ONLY," == *",$1,"* ]]; }
log() { echo "bench: [$(( SECONDS - START ))s] $*"; }
# sample METRIC COLUMN REP VALUE [NOTE]
sample() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >> "$SAMPLES"; }

declare -A DEAD     # "test|column" -> reason: not run again (see record_fail)
declare -A NFAIL    # "test|column" -> consecutive failures
declare -A T0RUN    # "test|column" -> start of the current run (EPOCHREALTIME, µs)
declare -A FIRSTLOG # "test|column" -> 1 once its first log was kept

# keep_log NAME COL FAILED FILES... : copies logs of failures, and of the first run of each (test, column).
keep_log() {
    local name=$1 col=$2 failed=$3 f; shift 3
    if (( failed )) || [[ -z ${FIRSTLOG[$name|$col]:-} ]]; then
        FIRSTLOG[$name|$col]=1
        for f in "$@"; do [[ -e $f ]] && cp "$f" "$OUT/logs/${name}.${col}.${f##*/}"; done
    fi
}

# begin_run TESTNAME COL : returns 1 if this (test, column) is not run any more; else notes the start time.
begin_run() {
    [[ -n ${DEAD[$1|$2]:-} ]] && return 1
    T0RUN[$1|$2]=${EPOCHREALTIME/./}
    return 0
}
# ok_run TESTNAME COL : the run succeeded (resets the consecutive-failure count).
ok_run() { NFAIL[$1|$2]=0; }
# record_fail METRICS COL REP TESTNAME REASON : one FAIL sample per metric. The (test, column) is not run again
# after a failure that came fast (under 10 s: a missing feature, an error answer) or after 2 failures in a row (a
# hang costs the timeout, so at most twice); a slow one-off failure (a lost packet, a stall) is retried next round.
record_fail() {
    local metrics=$1 col=$2 rep=$3 name=$4 reason=$5 m took
    for m in $metrics; do sample "$m" "$col" "$rep" FAIL "$reason"; done
    took=$(( (${EPOCHREALTIME/./} - ${T0RUN[$name|$col]:-${EPOCHREALTIME/./}}) / 1000000 ))
    NFAIL[$name|$col]=$(( ${NFAIL[$name|$col]:-0} + 1 ))
    if (( took < 10 || NFAIL[$name|$col] >= 2 )); then
        DEAD[$name|$col]=$reason
        log "FAIL $name $col rep $rep after ${took}s: $reason (not run again)"
    else
        log "FAIL $name $col rep $rep after ${took}s: $reason (retried next round)"
    fi
}

# Waits until a TCP listener on port $1 shows in /proc/net/tcp, while process $2 lives; at most $3 s.
wait_listen_tcp() {
    local hex line deadline=$((SECONDS + $3))
    printf -v hex ':%04X ' "$1"
    while (( SECONDS < deadline )); do
        while read -r line; do [[ $line == *"$hex"*" 0A "* ]] && return 0; done < /proc/net/tcp
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Waits until an rdma_cm listener on port $1 shows in `rdma resource show cm_id`, while process $2 lives.
wait_listen_cm() {
    local deadline=$((SECONDS + $3)) line
    while (( SECONDS < deadline )); do
        while IFS= read -r line; do
            [[ $line == *LISTEN* && "$line " == *":$1 "* ]] && return 0
        done < <(rdma resource show cm_id 2>/dev/null)
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.2
    done
    return 1
}

# stop PID : ends a background server that should have finished (SIGTERM, then SIGKILL), reaps it.
stop() {
    kill "$1" 2>/dev/null
    local _
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

PORT=20000
next_port() { PORT=$(( PORT >= 29000 ? 20000 : PORT + 1 )); }

# ---- perftest ------------------------------------------------------------------------------------------------------
# perftest COL REP KIND TOOL SIZE CM ITERS M1 M2 [TAG]   (TAG prefixes the test's name, e.g. "siw-")
#   KIND lat: M1 = the t_typical [usec] metric, M2 = the t_min [usec] metric. KIND bw: M1 = the BW average
#   [MB/sec] metric, M2 = the MsgRate [Mpps] metric (either may be -). CM = R for -R (rdma_cm), empty otherwise.
perftest() {
    local col=$1 rep=$2 kind=$3 tool=$4 size=$5 cm=$6 iters=$7 m1=$8 m2=$9 tag=${10:-}
    local name="$tag$tool-$size${cm:+-R}" metrics=""
    [[ $m1 != - ]] && metrics+="$m1 "
    [[ $m2 != - ]] && metrics+="$m2"
    begin_run "$name" "$col" || return
    next_port
    local port=$PORT slog="$WORK/server.log" clog="$WORK/client.log"
    local sargs=(-d "$DEV0" -x "$GID0" -s "$size" -n "$iters" -F -p "$port")
    local cargs=(-d "$DEV1" -x "$GID1" -s "$size" -n "$iters" -F -p "$port")
    [[ -n $cm ]] && { sargs+=(-R); cargs+=(-R --source_ip "$IP1"); }
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} timeout "$T" "$tool" "${sargs[@]}" > "$slog" 2>&1 &
    local spid=$! crc=1 src _ ready
    if [[ -n $cm ]]; then wait_listen_cm "$port" "$spid" "$T"; else wait_listen_tcp "$port" "$spid" "$T"; fi
    ready=$?
    if (( ready != 0 )); then
        stop "$spid"; src=$?
        keep_log "$name" "$col" 1 "$slog"
        record_fail "$metrics" "$col" "$rep" "$name" "server did not listen (exit $src): $(tail -n1 "$slog" | tr -d '\t' | cut -c1-80)"
        return
    fi
    for _ in 1 2 3; do
        # shellcheck disable=SC2086
        env ${LIBENV[$col]} timeout "$T" "$tool" "${cargs[@]}" "$IP0" > "$clog" 2>&1
        crc=$?
        (( crc == 0 )) && break
        log "note: $name $col rep $rep: client attempt exited $crc: $(grep -v '^ *$' "$clog" | tail -n1 | tr -d '\t' | cut -c1-80)"
        kill -0 "$spid" 2>/dev/null || break   # the server gave up too: no point retrying
        sleep 0.3
    done
    if (( crc != 0 )); then stop "$spid"; src=$?; else
        # the server normally exits right after the client; bounded by its own timeout anyway
        wait "$spid"; src=$?
    fi
    local v1="" v2="" line f
    while read -r -a f; do
        [[ ${f[0]:-} == "$size" && ${#f[@]} -ge 5 ]] || continue
        if [[ $kind == lat ]]; then v1=${f[4]}; v2=${f[2]}; else v1=${f[3]}; v2=${f[4]}; fi
    done < "$clog"
    if (( crc != 0 )) || [[ -z $v1 ]]; then
        keep_log "$name" "$col" 1 "$slog" "$clog"
        local why="client exit $crc"
        (( crc == 124 )) && why+=" (timeout ${T}s)"
        [[ $crc == 0 ]] && why="no result line"
        why+=": $(grep -v '^ *$' "$clog" | tail -n1 | tr -d '\t' | cut -c1-80)"
        record_fail "$metrics" "$col" "$rep" "$name" "$why"
        return
    fi
    keep_log "$name" "$col" 0 "$slog" "$clog"
    ok_run "$name" "$col"
    [[ $m1 != - ]] && sample "$m1" "$col" "$rep" "$v1"
    [[ $m2 != - && -n $v2 ]] && sample "$m2" "$col" "$rep" "$v2"
    (( src != 0 )) && log "note: $name $col rep $rep: server exit $src (client fine)"
    return 0
}

# ---- cmtime --------------------------------------------------------------------------------------------------------
CM_STEPS=("create id" "bind addr" "resolve addr" "resolve route" "create qp" "connect" "disconnect" "destroy")
# cm_metric STEP [FABRIC]: cm.<step> (rxe) or cm.siw.<step>
cm_metric() { local s=${1// /_}; echo "cm.${2:+$2.}$s"; }
CM_METRICS="" CM_METRICS_SIW=""
for s in "${CM_STEPS[@]}"; do CM_METRICS+="$(cm_metric "$s") "; CM_METRICS_SIW+="$(cm_metric "$s" siw) "; done

# cmtime_run COL REP CONNS [siw]: one cmtime run, both ends on column COL's librdmacm (rxe0 <-> rxe1, or, with siw,
# the same addresses on siw0 <-> siw1 after siw_setup); metrics cm.* or cm.siw.*
cmtime_run() {
    local col=$1 rep=$2 conns=$3 fabric=${4:-} name=cmtime
    local CM_METRICS=$CM_METRICS
    [[ $fabric == siw ]] && { name=cmtime-siw; CM_METRICS=$CM_METRICS_SIW; }
    begin_run "$name" "$col" || return
    next_port
    local port=$PORT slog="$WORK/cm-server.log" clog="$WORK/cm-client.log"
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} timeout "$T" cmtime -b "$IP0" -p "$port" -c "$conns" > "$slog" 2>&1 &
    local spid=$! crc=1 _
    if ! wait_listen_cm "$port" "$spid" "$T"; then
        stop "$spid"
        keep_log "$name" "$col" 1 "$slog"
        record_fail "$CM_METRICS" "$col" "$rep" "$name" "server did not listen: $(tail -n1 "$slog" | cut -c1-80)"
        return
    fi
    for _ in 1 2 3; do
        # shellcheck disable=SC2086
        env ${LIBENV[$col]} timeout "$T" cmtime -s "$IP0" -b "$IP1" -p "$port" -c "$conns" > "$clog" 2>&1
        crc=$?
        # cmtime exits 0 even when connections were rejected: look for its error lines too
        (( crc == 0 )) && ! grep -qE '^(event:|RDMA_CM_EVENT|failure)' "$clog" && break
        (( crc == 0 )) && crc=1
        kill -0 "$spid" 2>/dev/null || break
        sleep 0.3
    done
    stop "$spid"    # the cmtime server never exits by itself
    declare -A got=()
    local line step rest f
    while IFS= read -r line; do
        [[ $line == *:* ]] || continue
        step=${line%%:*}; step=${step%"${step##*[! ]}"}
        rest=${line#*:}
        read -r -a f <<< "$rest"
        [[ ${#f[@]} -eq 4 ]] && got[$step]=${f[3]}
    done < "$clog"
    if (( crc != 0 )) || [[ -z ${got[connect]:-} ]]; then
        keep_log "$name" "$col" 1 "$slog" "$clog"
        local why="client exit $crc"
        (( crc == 124 )) && why+=" (timeout ${T}s)"
        why+=": $(grep -v '^ *$' "$clog" | tail -n1 | cut -c1-80)"
        record_fail "$CM_METRICS" "$col" "$rep" "$name" "$why"
        return
    fi
    keep_log "$name" "$col" 0 "$slog" "$clog"
    ok_run "$name" "$col"
    for s in "${CM_STEPS[@]}"; do
        [[ -n ${got[$s]:-} ]] && sample "$(cm_metric "$s" "$fabric")" "$col" "$rep" "${got[$s]}"
    done
}

# ---- rsockets: rstream ---------------------------------------------------------------------------------------------
# rstream_run COL REP SIZE COUNT METRIC KIND : Debian's rstream (rsockets over RC, both sides with COL's libraries)
# moving COUNT transfers of SIZE bytes, server on IP0, client from IP1; from its result line
#   custom    64k     200     1       25m         0.45s      0.93     563.57
#   (name bytes xfers iters total time Gb/sec usec/xfer) the sample is usec/xfer (KIND lat) or SIZE / usec/xfer in
#   MB/s (KIND bw: its Gb/sec column has two decimals, too coarse at Soft-RoCE's speeds).
rstream_run() {
    local col=$1 rep=$2 size=$3 count=$4 metric=$5 kind=$6 name="rstream-$3"
    begin_run "$name" "$col" || return
    next_port
    local port=$PORT slog="$WORK/rs-server.log" clog="$WORK/rs-client.log" crc=1 src _
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} timeout "$T" rstream -S "$size" -C "$count" -b "$IP0" -p "$port" > "$slog" 2>&1 &
    local spid=$!
    if ! wait_listen_cm "$port" "$spid" "$T"; then
        stop "$spid"
        keep_log "$name" "$col" 1 "$slog"
        record_fail "$metric" "$col" "$rep" "$name" "server did not listen: $(tail -n1 "$slog" | cut -c1-80)"
        return
    fi
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} timeout "$T" rstream -S "$size" -C "$count" -s "$IP0" -b "$IP1" -p "$port" > "$clog" 2>&1
    crc=$?
    if (( crc != 0 )); then stop "$spid"; else wait "$spid"; fi
    src=$?
    local v="" f
    while read -r -a f; do
        [[ ${f[0]:-} == custom && ${#f[@]} -ge 8 ]] && v=${f[7]}
    done < "$clog"
    [[ $kind == bw && -n $v ]] && v=$(awk -v s="$size" -v u="$v" 'BEGIN { if (u > 0) printf "%.3f", s / u }')
    if (( crc != 0 )) || [[ -z $v ]]; then
        keep_log "$name" "$col" 1 "$slog" "$clog"
        record_fail "$metric" "$col" "$rep" "$name" "client exit $crc: $(grep -v '^ *$' "$clog" | tail -n1 | cut -c1-80)"
        return
    fi
    keep_log "$name" "$col" 0 "$slog" "$clog"
    ok_run "$name" "$col"
    sample "$metric" "$col" "$rep" "$v"
    (( src != 0 )) && log "note: $name $col rep $rep: server exit $src (client fine)"
    return 0
}

# ---- library CPU cost: callgrind -----------------------------------------------------------------------------------
CPU_METRICS="cpu.post1 cpu.postlist cpu.poll16 cpu.poll1 cpu.pollempty cpu.open cpu.devlist"
CPU_EXT_METRICS="cpu.postrecv cpu.postud cpu.wrapi cpu.pollex"
# callgrind_run COL BATCHES FABRIC : FABRIC rxe (the RC pair connected by hand, plus the extended rows: -x) or siw
# (connected through librdmacm: -c; metrics cpu.siw.*; no device-list/open rows: librdmacm opens the devices).
callgrind_run() {
    local col=$1 batches=$2 fabric=${3:-rxe}
    local out="$OUT/logs/callgrind.$fabric.$col.out" log="$WORK/datapath.$fabric.$col.log" pre=cpu. metrics args
    local penv=()
    if [[ $fabric == siw ]]; then
        pre=cpu.siw.
        args=(-c "$IP0,$IP1")
        metrics="cpu.siw.post1 cpu.siw.postlist cpu.siw.poll16 cpu.siw.poll1 cpu.siw.pollempty"
    elif [[ $fabric == plugin ]]; then
        # Debian's C rxe plug-in in both columns (RDMAV_PROVIDER=plugin: our core serves rxe through it; rdma-core
        # ignores the variable); the main rows only
        pre=cpu.plugin.
        penv=(RDMAV_PROVIDER=plugin)
        args=(-d "$DEV0" -D "$DEV1" -g "$GID0" -G "$GID1")
        metrics="cpu.plugin.post1 cpu.plugin.postlist cpu.plugin.poll16 cpu.plugin.poll1 cpu.plugin.pollempty"
    else
        args=(-d "$DEV0" -D "$DEV1" -g "$GID0" -G "$GID1" -x)
        metrics="$CPU_METRICS $CPU_EXT_METRICS"
    fi
    rm -f "$out"
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} "${penv[@]}" timeout $((T * 8)) valgrind --tool=callgrind --callgrind-out-file="$out" \
        --collect-atstart=no --toggle-collect='bench_*' \
        "$BIN/datapath" "${args[@]}" -n "$batches" > "$log" 2>&1
    local rc=$?
    T0RUN[datapath-$fabric|$col]=${EPOCHREALTIME/./}   # a failure here is never retried anyway
    if (( rc != 0 )) || ! grep -q '^datapath: ok' "$log"; then
        cp "$log" "$OUT/logs/datapath.$fabric.$col.log"
        local why
        why="exit $rc: $(grep -E '^datapath: FAILED' "$log" | head -n1 | cut -c11-90)"
        record_fail "$metrics" "$col" 1 "datapath-$fabric" "$why"
        return
    fi
    cp "$log" "$OUT/logs/datapath.$fabric.$col.log"
    # counts from the program
    local counts
    counts=$(grep '^datapath: post1' "$log")
    local -A n=()
    local part key
    for part in ${counts//|/ }; do
        [[ $part == *=* ]] || { key=$part; continue; }
        n[$key.${part%%=*}]=${part#*=}
    done
    # inclusive instruction counts per wrapper (bench/callgrind_sum.py reads the callgrind file)
    local -A ir=()
    local fn num
    while read -r fn num; do ir[${fn#bench_}]=$num; done < <(/usr/bin/python3 bench/callgrind_sum.py "$out" bench_)
    cpu_sample() {   # metric divisor function...
        local m=$1 div=$2 f sum=0 have=1 note=""; shift 2
        for f in "$@"; do
            [[ -n ${ir[$f]:-} ]] || { have=0; break; }
            sum=$(( sum + ir[$f] )); note+="${note:+ + }${ir[$f]}"
        done
        if (( have )) && [[ ${div:-0} -gt 0 ]]; then
            sample "$m" "$col" 1 "$(( (sum * 10 / div + 5) / 10 ))" "$note Ir / $div"
        else
            sample "$m" "$col" 1 FAIL "no callgrind count for bench_$*"
        fi
    }
    cpu_sample ${pre}post1 "${n[post1.wrs]:-0}" post_send
    cpu_sample ${pre}postlist "${n[postlist.wrs]:-0}" post_list
    cpu_sample ${pre}poll16 "${n[poll16.cqes]:-0}" poll16
    cpu_sample ${pre}poll1 "${n[poll1.cqes]:-0}" poll1
    cpu_sample ${pre}pollempty "${n[pollempty.calls]:-0}" poll_empty
    if [[ $fabric == rxe ]]; then
        cpu_sample cpu.open 1 open_device
        cpu_sample cpu.devlist 1 get_device_list
        cpu_sample cpu.postrecv "${n[postrecv.wrs]:-0}" post_recv
        cpu_sample cpu.postud "${n[postud.wrs]:-0}" post_send_ud
        cpu_sample cpu.wrapi "${n[wrapi.wrs]:-0}" wr_start wr_rdma_write wr_set_sge wr_complete
        cpu_sample cpu.pollex "${n[pollex.cqes]:-0}" start_poll next_poll end_poll
    fi
    local extra=$(( ${n[poll16.empty]:-0} + ${n[poll1.empty]:-0} + ${n[pollex.empty]:-0} ))
    (( extra )) && log "note: $fabric $col: $extra measured polls found the CQ empty (counted in the per-CQE figures)"
}

# ---- memory --------------------------------------------------------------------------------------------------------
MEM_METRICS="mem.startup.rss mem.startup.heap mem.context.rss mem.context.heap mem.pd.rss mem.pd.heap mem.cq.rss mem.cq.heap mem.qp.rss mem.qp.heap mem.mr.rss mem.mr.heap mem.srq.rss mem.srq.heap mem.ah.rss mem.ah.heap"
MEM_PLUGIN_METRICS="mem.plugin.startup.heap mem.plugin.context.heap mem.plugin.pd.heap mem.plugin.cq.heap mem.plugin.qp.heap mem.plugin.mr.heap mem.plugin.srq.heap mem.plugin.ah.heap"
# memory_run COL REP [plugin|trixie] : with "plugin", Debian's C rxe plug-in in both columns (RDMAV_PROVIDER=plugin),
# heap only (metrics mem.plugin.*.heap); with "trixie" the same inside the trixie root (rel_mount: rdma-core 56.1 and
# its plug-in against ours with that plug-in; metrics mem.trixie.*.heap; the program is copied into the root's /tmp).
memory_run() {
    local col=$1 rep=$2 mode=${3:-}
    local log="$WORK/memory.$col.log" name=memory pre=mem. metrics=$MEM_METRICS penv=() cmd=("$BIN/memory")
    [[ $mode == plugin ]] && { name=memory-plugin pre=mem.plugin. metrics=$MEM_PLUGIN_METRICS penv=(RDMAV_PROVIDER=plugin); }
    if [[ $mode == trixie ]]; then
        name=memory-trixie pre=mem.trixie. metrics=${MEM_PLUGIN_METRICS//.plugin./.trixie.}
        penv=(RDMAV_PROVIDER=plugin REL_LIBS=$col) cmd=("$REL_EXEC" /tmp/memory)
        [[ $col == stock ]] && penv=(REL_LIBS=stock)
    fi
    begin_run "$name" "$col" || return
    # shellcheck disable=SC2086
    if [[ $mode == trixie ]]; then
        env "${penv[@]}" timeout "$T" "${cmd[@]}" -d "$DEV0" -g "$GID0" -n 32 > "$log" 2>&1
    else
        env ${LIBENV[$col]} "${penv[@]}" timeout "$T" "${cmd[@]}" -d "$DEV0" -g "$GID0" -n 32 > "$log" 2>&1
    fi
    local rc=$?
    if (( rc != 0 )) || ! grep -q '^memory: ok' "$log"; then
        keep_log "$name" "$col" 1 "$log"
        record_fail "$metrics" "$col" "$rep" "$name" "exit $rc: $(grep -E '^memory: FAILED' "$log" | head -n1 | cut -c9-90)"
        return
    fi
    keep_log "$name" "$col" 0 "$log"
    ok_run "$name" "$col"
    local line step count rss heap
    while read -r line; do
        [[ $line == "memory: step="* ]] || continue
        set -- $line
        step=${2#step=}; count=${3#count=}; rss=${4#rss_bytes=}; heap=${5#heap_bytes=}
        [[ -z $mode ]] && sample "${pre}$step.rss" "$col" "$rep" "$(( rss / count ))"
        sample "${pre}$step.heap" "$col" "$rep" "$(( heap / count ))"
    done < "$log"
}

# ---- control-path instructions per object (bench/objects.c under callgrind) ------------------------------------
OBJ_ROWS="open_device create_cq create_qp reg_mr modify_rts dereg_mr destroy_qp destroy_cq"
# objects_callgrind_run COL MODE : MODE plugin (Debian's C rxe plug-in in both columns: metrics cpu.plugin.<row>).
objects_callgrind_run() {
    local col=$1 mode=$2 pre=cpu.$2. penv=() r
    local out="$OUT/logs/callgrind.objects-$mode.$col.out" log="$WORK/objects.$mode.$col.log" metrics=""
    for r in $OBJ_ROWS; do metrics+="$pre$r "; done
    [[ $mode == plugin ]] && penv=(RDMAV_PROVIDER=plugin)
    rm -f "$out"
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} "${penv[@]}" timeout $((T * 8)) valgrind --tool=callgrind --callgrind-out-file="$out" \
        --collect-atstart=no --toggle-collect='bench_*' \
        "$BIN/objects" -d "$DEV0" -g "$GID0" -n "$([[ $QUICK == 1 ]] && echo 8 || echo 16)" > "$log" 2>&1
    local rc=$?
    T0RUN[objects-$mode|$col]=${EPOCHREALTIME/./}
    cp "$log" "$OUT/logs/objects-$mode.$col.log"
    if (( rc != 0 )) || ! grep -q '^objects: ok' "$log"; then
        record_fail "$metrics" "$col" 1 "objects-$mode" "exit $rc: $(grep -E '^objects: FAILED' "$log" | head -n1 | cut -c10-90)"
        return
    fi
    local -A n=() ir=()
    local part fn num
    for part in $(grep '^objects: open_device=' "$log"); do [[ $part == *=* ]] && n[${part%%=*}]=${part#*=}; done
    while read -r fn num; do ir[${fn#bench_}]=$num; done < <(/usr/bin/python3 bench/callgrind_sum.py "$out" bench_)
    for r in $OBJ_ROWS; do
        if [[ -n ${ir[$r]:-} && ${n[$r]:-0} -gt 0 ]]; then
            sample "$pre$r" "$col" 1 "$(( (ir[$r] * 10 / n[$r] + 5) / 10 ))" "${ir[$r]} Ir / ${n[$r]}"
        else
            sample "$pre$r" "$col" 1 FAIL "no callgrind count for bench_$r"
        fi
    done
}

# ---- scale: many objects (bench/objects.c -s) ---------------------------------------------------------------------
# scale_run COL REP KIND N : KIND qp (N RC QPs with their CQs: create, RESET->RTS, destroy) or cm (N rdma_cm ids:
# create, destroy). Samples scale.KIND.N.<phase> (µs per object), scale.KIND.N.rss and .heap (resident and malloc
# bytes per object over the create phase).
scale_run() {
    local col=$1 rep=$2 kind=$3 num=$4 name="scale-$3-$4" pre="scale.$3.$4." metrics="" p
    local log="$WORK/scale.$col.log" phases="create destroy"
    [[ $kind == qp ]] && phases="create rts destroy"
    for p in $phases rss heap; do metrics+="$pre$p "; done
    begin_run "$name" "$col" || return
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} timeout $((T * 4)) "$BIN/objects" -d "$DEV0" -g "$GID0" -s "$kind" -n "$num" > "$log" 2>&1
    local rc=$?
    if (( rc != 0 )) || ! grep -q '^objects: ok' "$log"; then
        keep_log "$name" "$col" 1 "$log"
        record_fail "$metrics" "$col" "$rep" "$name" "exit $rc: $(grep -E '^objects: (FAILED|at)' "$log" | tr '\n' ' ' | cut -c1-90)"
        return
    fi
    keep_log "$name" "$col" 0 "$log"
    ok_run "$name" "$col"
    local line ph count us rss heap
    while read -r line; do
        [[ $line == "objects: scale="* ]] || continue
        set -- $line
        ph=${3#phase=}; count=${4#count=}; us=${5#usec=}; rss=${6#rss_bytes=}; heap=${7#heap_bytes=}
        sample "$pre$ph" "$col" "$rep" "$(awk -v u="$us" -v c="$count" 'BEGIN { printf "%.3f", u / c }')"
        if [[ $ph == create ]]; then
            sample "${pre}rss" "$col" "$rep" "$(( rss / count ))"
            sample "${pre}heap" "$col" "$rep" "$(( heap / count ))"
        fi
    done < "$log"
}

# ---- start-up wall time --------------------------------------------------------------------------------------------
startup_run() {   # col rep prog
    local col=$1 rep=$2 prog=$3 t0 t1 rc
    begin_run "$prog" "$col" || return
    t0=${EPOCHREALTIME/./}
    # shellcheck disable=SC2086
    env ${LIBENV[$col]} timeout "$T" "$prog" > "$WORK/start.log" 2>&1
    rc=$?
    t1=${EPOCHREALTIME/./}
    if (( rc != 0 )) || ! grep -q "$DEV0" "$WORK/start.log"; then
        keep_log "$prog" "$col" 1 "$WORK/start.log"
        record_fail "start.$prog" "$col" "$rep" "$prog" "exit $rc: $(tail -n1 "$WORK/start.log" | cut -c1-80)"
        return
    fi
    keep_log "$prog" "$col" 0 "$WORK/start.log"
    ok_run "$prog" "$col"
    sample "start.$prog" "$col" "$rep" "$(( (t1 - t0 + 500) / 1000 ))"
}

# Column order for round r: stock first in odd rounds, ours first in even rounds (ABBA), so a steady drift in the
# machine's speed favours neither.
order() { if (( $1 % 2 )); then echo "stock ours"; else echo "ours stock"; fi; }
ROUND_TIMES=()   # seconds per finished round; a new round starts only if one of the median length still fits
round_median() {
    local sorted
    (( ${#ROUND_TIMES[@]} )) || { echo 0; return; }
    mapfile -t sorted < <(printf '%s\n' "${ROUND_TIMES[@]}" | sort -n)
    echo "${sorted[$(( ${#sorted[@]} / 2 ))]}"
}
over_budget() { (( SECONDS - START + $(round_median) > BUDGET )); }

log "start: reps $REPS, quick $QUICK, ours column = $OURS_MODE (${LIBENV[ours]}), timeout ${T}s, budget ${BUDGET}s"

# 1. deterministic figures first (instruction counts), then memory and start-up, then the timed rounds.
if has cpu; then
    for col in stock ours; do
        log "callgrind datapath ($col)"
        callgrind_run "$col" "$([[ $QUICK == 1 ]] && echo 8 || echo 32)" rxe
    done
fi
if has mem; then
    for rep in 1 2 3; do for col in $(order $rep); do memory_run "$col" "$rep"; done; done
    log "memory done"
fi
if has start; then
    NSTART=$([[ $QUICK == 1 ]] && echo 6 || echo 20)
    for ((rep = 1; rep <= NSTART; rep++)); do
        for col in $(order $rep); do startup_run "$col" "$rep" ibv_devices; startup_run "$col" "$rep" ibv_devinfo; done
    done
    log "start-up done ($NSTART runs each)"
fi

LAT_ITERS=$([[ $QUICK == 1 ]] && echo 200 || echo 500)
BW_ITERS_SMALL=$([[ $QUICK == 1 ]] && echo 1000 || echo 2000)
BW_ITERS_BIG=$([[ $QUICK == 1 ]] && echo 100 || echo 300)
for ((rep = 1; rep <= REPS; rep++)); do
    if over_budget; then
        log "budget: another round (~$(round_median)s) would end past ${BUDGET}s: stopping after $((rep - 1)) rounds"
        break
    fi
    log "round $rep/$REPS"
    round_t0=$SECONDS
    for col in $(order $rep); do
        if has lat; then
            for tool in ib_write_lat ib_send_lat ib_read_lat; do
                op=${tool#ib_}; op=${op%_lat}
                for cm in "" R; do
                    for size in 2 64; do
                        perftest "$col" "$rep" lat "$tool" "$size" "$cm" "$LAT_ITERS" "lat.$op.$size${cm:+.R}" \
                            "latmin.$op.$size${cm:+.R}"
                    done
                done
            done
        fi
        if has bw; then
            for tool in ib_write_bw ib_send_bw; do
                op=${tool#ib_}; op=${op%_bw}
                perftest "$col" "$rep" bw "$tool" 64 "" "$BW_ITERS_SMALL" - "msgrate.$op.64"
                perftest "$col" "$rep" bw "$tool" 65536 "" "$BW_ITERS_BIG" "bw.$op.65536" -
            done
        fi
        if has cm; then cmtime_run "$col" "$rep" 100; fi
        if has rs; then
            rstream_run "$col" "$rep" 65536 "$([[ $QUICK == 1 ]] && echo 100 || echo 400)" rs.bw.65536 bw
            rstream_run "$col" "$rep" 64 "$([[ $QUICK == 1 ]] && echo 500 || echo 2000)" rs.lat.64 lat
        fi
    done
    printf 'reps_done\t%s\n' "$rep" >> "$OUT/meta.tsv"
    ROUND_TIMES+=($(( SECONDS - round_t0 )))
done
# 4b. the plug-in and scale parts, after the timed rounds (so they take nothing from the rounds' budget)
if has plugin; then
    for col in stock ours; do
        log "callgrind objects and datapath through Debian's rxe plug-in ($col)"
        objects_callgrind_run "$col" plugin
        callgrind_run "$col" "$([[ $QUICK == 1 ]] && echo 8 || echo 16)" plugin
    done
    for rep in 1 2 3; do for col in $(order $rep); do memory_run "$col" "$rep" plugin; done; done
    # trixie's rdma-core 56.1 and its rxe plug-in (glibc 2.38+: chrooted into the trixie root), heap only: the root
    # has no valgrind for instruction counts
    if rel_mount trixie && cp "$BIN/memory" "$REL_ROOT/tmp/memory"; then
        printf 'trixie_rdma_core\t%s\n' "$("$REL_EXEC" dpkg-query -W -f='${Version}' libibverbs1 2>/dev/null)" >> "$OUT/meta.tsv"
        for rep in 1 2 3; do for col in $(order $rep); do memory_run "$col" "$rep" trixie; done; done
        rel_umount
    else
        log "trixie: not measured: ${REL_ERROR:-cannot copy memory into the root}"
        rel_umount
        for col in stock ours; do
            for m in ${MEM_PLUGIN_METRICS//.plugin./.trixie.}; do sample "$m" "$col" 1 FAIL "trixie root: ${REL_ERROR:-copy failed}"; done
        done
    fi
    log "plugin done"
fi
if has scale; then
    # rxe's limits and the guest's memory, for the log (docs/bench.md: what bounds the scale rows)
    log "scale: $(ibv_devinfo -v -d "$DEV0" 2>/dev/null | grep -E '^\s*max_(qp|cq|mr|pd):' | tr -s ' \t' ' ' | tr '\n' ';')" \
        "MemTotal $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB, max_map_count $(cat /proc/sys/vm/max_map_count)"
    for ((rep = 1; rep <= SCALE_REPS; rep++)); do
        for col in $(order $rep); do
            for num in 1000 10000; do scale_run "$col" "$rep" qp "$num"; scale_run "$col" "$rep" cm "$num"; done
        done
    done
    log "scale done ($SCALE_REPS rounds)"
fi
# 5. Soft-iWARP, last (siw_setup removes the rxe links): the same instruction counts over siw0/siw1 (rdma-core's
# libsiw plug-in against our native siw provider) and perftest -R (iWARP connects only through the CM), latency
# and bandwidth, in their own ABBA rounds.
# Part cmsiw (also run by siw): cmtime -c 50 over siw in each round, interleaved like the rxe rounds (cm.siw.*).
if has siw || has cmsiw; then
    if ! siw_setup; then
        log "siw: not measured: $SIW_SETUP_ERROR"
        for col in stock ours; do
            for m in cpu.siw.post1 cpu.siw.postlist cpu.siw.poll16 cpu.siw.poll1 cpu.siw.pollempty $CM_METRICS_SIW; do
                sample "$m" "$col" 1 FAIL "siw setup: $SIW_SETUP_ERROR"
            done
        done
    else
        printf 'siw\t%s\n' "$(modinfo -F vermagic "$REPO/build/siw/$(uname -r)/siw.ko" 2>/dev/null | cut -d' ' -f1)" >> "$OUT/meta.tsv"
        for col in stock ours; do
            has siw || break
            log "callgrind datapath over siw ($col)"
            callgrind_run "$col" "$([[ $QUICK == 1 ]] && echo 8 || echo 32)" siw
        done
        for ((rep = 1; rep <= SIW_REPS; rep++)); do
            log "siw round $rep/$SIW_REPS"
            for col in $(order $rep); do
                # 50 connections: siw on 6.1 answers ENOMEM to some of the 200 QPs (client and server) of -c 100,
                # with either library (measured 2026-11-28: -c 64 fits)
                cmtime_run "$col" "$rep" 50 siw
                has siw || continue
                for tool in ib_write_lat ib_send_lat ib_read_lat; do
                    op=${tool#ib_}; op=${op%_lat}
                    perftest "$col" "$rep" lat "$tool" 64 R "$LAT_ITERS" "lat.siw.$op.64.R" "latmin.siw.$op.64.R" siw-
                done
                for tool in ib_write_bw ib_send_bw; do
                    op=${tool#ib_}; op=${op%_bw}
                    perftest "$col" "$rep" bw "$tool" 64 R "$BW_ITERS_SMALL" - "msgrate.siw.$op.64.R" siw-
                    perftest "$col" "$rep" bw "$tool" 65536 R "$BW_ITERS_BIG" "bw.siw.$op.65536.R" - siw-
                done
            done
            printf 'siw_reps_done\t%s\n' "$rep" >> "$OUT/meta.tsv"
        done
        siw_teardown
    fi
fi
printf 'elapsed_s\t%s\n' "$(( SECONDS - START ))" >> "$OUT/meta.tsv"
log "done: $(wc -l < "$SAMPLES") samples, $(grep -c $'\tFAIL\t' "$SAMPLES") failed"
rm -rf "$WORK"
exit 0
