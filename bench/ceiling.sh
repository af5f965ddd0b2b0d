#!/usr/bin/env bash
# Issue 38: the service's durable signing against the same work in C, side by side.
#
# Builds the C reference server (../shared/bench/ceiling.c, beside the repository: it is not
# copied in, it carries no licence) with gcc, then alternates, round after round, a signing
# load against it and against each build of the service named in BENCH_CEILING_BINS, on the
# same machine in the same minutes: the ratio is the figure (machines here differ by ±20 %
# from day to day). Both sides: the same number of users, the same offer and product, the same
# bearer token, BENCH_CONNECTIONS connections, BENCH_WARMUP s of warm-up then
# BENCH_CEILING_DURATION s measured. `make bench` runs it after bench/run.sh; alone:
# `bash bench/ceiling.sh` after `swift build -c release`. Writes bench/results/ceiling.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=$ROOT/bench
CEILING_SRC=${BENCH_CEILING_SRC:-$ROOT/../shared/bench/ceiling.c}
# NAME=PATH pairs, space-separated: the service builds to measure (each against the C server).
BINS=${BENCH_CEILING_BINS:-service=${BENCH_BIN:-$ROOT/.build/release/offer-signer}}
USERS=${BENCH_USERS:-100000}
ROUNDS=${BENCH_CEILING_ROUNDS:-3}
DURATION=${BENCH_CEILING_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
# The C server's connection model and log: its README's reference is one thread per connection
# with the group-commit writer; "--mode epoll --daemons 2 --log suspend" measures its epoll
# daemons with connections suspended while their record commits.
C_MODE=${BENCH_CEILING_C_MODE:---mode tpc --log group}
WORK=$BENCH/results/tmp-ceiling
OUT=$BENCH/results/ceiling.md
OFFER=bench_winback
BUNDLE=com.example.app
PRODUCT=com.example.app.pro_monthly
GROUP=21000001

die() { printf 'bench/ceiling: %s\n' "$*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }

if [ ! -f "$CEILING_SRC" ]; then
    log "bench/ceiling: the C reference server's source is missing: $CEILING_SRC"
    log "  (it lives beside the repository, in ../shared/bench/ceiling.c; set BENCH_CEILING_SRC to its path). Skipped."
    exit 0
fi
for tool in wrk python3 curl gcc; do command -v "$tool" >/dev/null || die "$tool is missing (make bench-deps installs it)"; done
for n in USERS ROUNDS DURATION WARMUP CONNECTIONS THREADS; do
    [[ ${!n} =~ ^[0-9]+$ ]] && [ "${!n}" -gt 0 ] || die "$n must be a positive whole number (got '${!n}')"
done
NAMES=()
declare -A BIN_OF
for pair in $BINS; do
    name=${pair%%=*}; path=${pair#*=}
    [ -x "$path" ] || die "$path ($name) is missing: run 'swift build -c release' first"
    NAMES+=("$name"); BIN_OF[$name]=$path
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
value() { sed -n "s/^$2=//p" "$1" | tail -1; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
metric() { curl -s --max-time 5 "$2/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

declare -A PID_OF URL_OF
C_PID=""
stop_pid() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    [ -z "$C_PID" ] || stop_pid "$C_PID"
    for name in "${!PID_OF[@]}"; do stop_pid "${PID_OF[$name]}"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$WORK"
mkdir -p "$WORK/c"
log "building the C reference server from $CEILING_SRC"
gcc -O2 -Wall -o "$WORK/ceiling" "$CEILING_SRC" -lmicrohttpd -lcrypto -lsqlite3 -lpthread \
    || die "could not build $CEILING_SRC (needs gcc, libmicrohttpd-dev, libssl-dev, libsqlite3-dev)"

# The service: one set-up and one seeded database, copied for each build.
FIRST=${NAMES[0]}
SETUP_OUT=$("${BIN_OF[$FIRST]}" dev-setup --dir "$WORK/dev" --database "$WORK/seed.sqlite" --listen "127.0.0.1:1")
CLIENT_TOKEN=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
MARKETING_TOKEN=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
[ -n "$CLIENT_TOKEN" ] && [ -n "$MARKETING_TOKEN" ] || die "no client or marketing token in dev-setup's output"
# run_load NAME URL SCRIPT: warm-up, then the measured run; sets RPS P50 P99 CPU_US (per signature).
run_load() {
    local name=$1 url=$2 script=$3 pid=$4 out=$WORK/$1.round$ROUND before
    USERS_FILE=$WORK/c/users.txt TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$USERS \
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" --timeout 10s -s "$BENCH/$script" "$url" >"$out.warmup" 2>&1 \
        || die "wrk failed ($name warm-up)"
    before=$(ticks "$pid")
    USERS_FILE=$WORK/c/users.txt TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$USERS \
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s "$BENCH/$script" "$url" >"$out" 2>&1 \
        || die "wrk failed ($name)"
    CPU_US=$(awk -v a="$before" -v b="$(ticks "$pid")" -v n="$(value "$out" requests)" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }')
    [ "$(value "$out" non200)" = 0 ] || die "$name: some answers were not 200 ($out)"
    RPS=$(value "$out" rps); P50=$(value "$out" p50_ms); P99=$(value "$out" p99_ms)
}

# start_c LOG: starts the C server (it rebuilds its users' history first, ~20 s for 100,000 users).
start_c() {
    cport=$(free_port)
    # shellcheck disable=SC2086 # the connection model's words, split on purpose
    "$WORK/ceiling" $C_MODE --sign dup --work full --nonce v7 --port "$cport" --db "$WORK/c/full.sqlite" \
        --pub "$WORK/c/pub.pem" --users "$USERS" --users-file "$WORK/c/users.txt" --token "$CLIENT_TOKEN" >"$1" 2>&1 &
    C_PID=$!
    for _ in $(seq 1 2400); do curl -fs --max-time 1 "http://127.0.0.1:$cport/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
    curl -fs --max-time 1 "http://127.0.0.1:$cport/healthz" >/dev/null || { cat "$1" >&2; die "the C server did not start"; }
    # Its history's rebuild wrote ~0.5 GB (100,000 users) to ~5 GB (1,000,000): written back
    # now, not while a load's group commits call fdatasync (the C server's own and the service's).
    sync
}
# c_frames LOG: the WAL frames the C server's hook counted in all (its frames per commit x commits), and its commits.
c_frames() {
    awk '/ commits=/ { for (i = 1; i <= NF; i++) if ($i ~ /^commits=/) { split($i, a, "="); c = a[2] } }
         / WAL frames per commit/ { for (i = 1; i <= NF; i++) if ($i == "WAL") f = $(i - 1) }
         END { printf "%.0f %d\n", f * c, c }' "$1"
}
# The C server's WAL hook also counts the frames of its history's rebuild at start-up (one
# transaction of ~130,000 frames for 100,000 users): one start with a single signature
# measures them, and they are taken off each round's count.
log "the C server: measuring the WAL frames of its start-up"
start_c "$WORK/c/calibration.log"
curl -s -o /dev/null -X POST "http://127.0.0.1:$cport/v1/offers/sign" -H "Authorization: Bearer $CLIENT_TOKEN" \
    -H 'Content-Type: application/json' -d '{"productId":"'$PRODUCT'","offerId":"'$OFFER'","userId":"'"$(head -1 "$WORK/c/users.txt")"'"}'
stop_pid "$C_PID"; C_PID=""
read -r C_START_FRAMES _ < <(c_frames "$WORK/c/calibration.log")
log "start-up: $C_START_FRAMES WAL frames"

# The service: its history seeded for the C server's users (its users file), in the same order.
python3 "$BENCH/seed.py" --database "$WORK/seed.sqlite" --users "$USERS" --user-ids "$WORK/c/users.txt" --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" >&2 \
    || die "seeding failed"
mkdir -p "$WORK/chain"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/chain/root.key" -subj "/CN=offer-signer bench root" \
    -days 7 -out "$WORK/chain/root.pem" 2>/dev/null || die "could not make a root certificate"

for name in "${NAMES[@]}"; do
    mkdir -p "$WORK/$name"
    cp "$WORK/seed.sqlite" "$WORK/$name/db.sqlite"
    port=$(free_port)
    URL_OF[$name]=http://127.0.0.1:$port
    OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$WORK/$name/db.sqlite OFFER_SIGNER_LISTEN=127.0.0.1:$port \
    OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
    OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
        "${BIN_OF[$name]}" serve >"$WORK/$name/server.log" 2>&1 &
    PID_OF[$name]=$!
    for _ in $(seq 1 600); do curl -fs --max-time 1 "${URL_OF[$name]}/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
    curl -fs --max-time 1 "${URL_OF[$name]}/readyz" >/dev/null || { cat "$WORK/$name/server.log" >&2; die "$name did not become ready"; }
    status=$(curl -s -o "$WORK/$name/offer.json" -w '%{http_code}' --max-time 10 -X PUT "${URL_OF[$name]}/v1/admin/offers/$OFFER" \
        -H "Authorization: Bearer $MARKETING_TOKEN" -H 'Content-Type: application/json' \
        -d '{"offerId":"'$OFFER'","bundleId":"'$BUNDLE'","productIds":["'$PRODUCT'"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}')
    case $status in 200|201) ;; *) cat "$WORK/$name/offer.json" >&2; die "$name: PUT offer answered $status" ;; esac
done
sync


ROWS=()
declare -A SUM_RPS SUM_RATIO P99S
log "rounds: $ROUNDS; each: the C server, then ${NAMES[*]}; ${WARMUP} s warm-up + ${DURATION} s, $CONNECTIONS connections, $THREADS wrk threads, $USERS users"
for ROUND in $(seq 1 "$ROUNDS"); do
    # The C server, started afresh each round (it reports its writer's figures at SIGTERM; they
    # cover the warm-up and the measured run). Its history is rebuilt at start, its log kept.
    start_c "$WORK/c/round$ROUND.log"
    run_load c "http://127.0.0.1:$cport" ceiling.lua "$C_PID"
    stop_pid "$C_PID"; C_PID=""
    sync  # the C server's last checkpoint, before the service's loads
    c_log=$WORK/c/round$ROUND.log
    C_RPB=$(sed -n 's/.*rows\/commit=\([0-9.]*\).*/\1/p' "$c_log" | tail -1)
    read -r c_total c_commits < <(c_frames "$c_log")
    C_FPB=$(awk -v t="$c_total" -v s="$C_START_FRAMES" -v c="$c_commits" 'BEGIN { if (c > 0) printf "%.1f", (t - s) / c; else print "?" }')
    C_RPS=$RPS
    ROWS+=("| $ROUND | C (ceiling.c) | $RPS | $P50 | $P99 | $CPU_US | $C_RPB | $C_FPB | $(awk -v f="$C_FPB" -v r="$C_RPB" 'BEGIN { if (r > 0) printf "%.2f", f / r; else print "?" }') | 1.00 |")
    SUM_RPS[c]=$(awk -v a="${SUM_RPS[c]:-0}" -v b="$RPS" 'BEGIN { print a + b }'); P99S[c]="${P99S[c]:-}${P99S[c]:+, }$P99"
    for name in "${NAMES[@]}"; do
        url=${URL_OF[$name]}
        b0=$(metric offer_signer_signature_log_batches_total "$url"); r0=$(metric offer_signer_signature_log_records_total "$url")
        f0=$(metric offer_signer_database_wal_frames_total "$url")
        run_load "$name" "$url" ceiling.lua "${PID_OF[$name]}"
        b1=$(metric offer_signer_signature_log_batches_total "$url"); r1=$(metric offer_signer_signature_log_records_total "$url")
        f1=$(metric offer_signer_database_wal_frames_total "$url")
        read -r RPB FPB FPR < <(awk -v b0="${b0:-0}" -v b1="${b1:-0}" -v r0="${r0:-0}" -v r1="${r1:-0}" -v f0="${f0:-0}" -v f1="${f1:-0}" \
            'BEGIN { b = b1 - b0; r = r1 - r0; f = f1 - f0
                     if (b > 0 && r > 0) printf "%.2f %.1f %.2f\n", r / b, f / b, f / r; else print "? ? ?" }')
        ratio=$(awk -v a="$RPS" -v b="$C_RPS" 'BEGIN { printf "%.2f", a / b }')
        ROWS+=("| $ROUND | $name | $RPS | $P50 | $P99 | $CPU_US | $RPB | $FPB | $FPR | $ratio |")
        SUM_RPS[$name]=$(awk -v a="${SUM_RPS[$name]:-0}" -v b="$RPS" 'BEGIN { print a + b }')
        SUM_RATIO[$name]=$(awk -v a="${SUM_RATIO[$name]:-0}" -v b="$ratio" 'BEGIN { print a + b }')
        P99S[$name]="${P99S[$name]:-}${P99S[$name]:+, }$P99"
        log "round $ROUND: C $C_RPS/s; $name $RPS/s (${ratio}x), p99 $P99 ms, $CPU_US µs CPU, $RPB records and $FPB WAL frames per batch"
    done
done
# BENCH_CEILING_PROFILE=NAME: one more signing load against that build with `perf record -g`
# on it (BENCH_CEILING_DURATION s, after a warm-up); the summary goes to $WORK/profile-NAME.txt.
PROFILE=${BENCH_CEILING_PROFILE:-}
if [ -n "$PROFILE" ] && [ -n "${PID_OF[$PROFILE]:-}" ]; then
    command -v perf >/dev/null || die "perf is missing (linux-perf) for BENCH_CEILING_PROFILE"
    ROUND=profile
    perf record -F 999 -g -o "$WORK/perf-$PROFILE.data" -p "${PID_OF[$PROFILE]}" -- sleep $((WARMUP + DURATION)) >/dev/null 2>&1 &
    perf_pid=$!
    run_load "$PROFILE" "${URL_OF[$PROFILE]}" ceiling.lua "${PID_OF[$PROFILE]}"
    wait "$perf_pid" || true
    {
        echo "# by thread"; perf report -i "$WORK/perf-$PROFILE.data" --no-children --sort comm --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15 || true
        echo "# by library"; perf report -i "$WORK/perf-$PROFILE.data" --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -15 || true
        echo "# by symbol"; perf report -i "$WORK/perf-$PROFILE.data" --no-children --sort dso,symbol --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -60 || true
        echo "# the writer thread by symbol"; perf report -i "$WORK/perf-$PROFILE.data" --no-children --comm signature-log-w --sort dso,symbol --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -30 || true
    } >"$WORK/profile-$PROFILE.txt"
    log "profile of $PROFILE under load ($RPS/s): $WORK/profile-$PROFILE.txt"
fi
# BENCH_CEILING_SCHED=1: one more load against the C server and each build with the
# scheduler's and fdatasync's tracepoints recorded system-wide (`perf record -a`, the measured
# BENCH_CEILING_DURATION s only): where the latency's tail comes from (bench/sched_latency.py:
# fdatasync and commit-to-commit times, run-queue delays of the connection threads, the writer
# and wrk). Summaries in $WORK/sched-NAME.txt. The recording costs some CPU itself.
sched_load() {
    local name=$1 url=$2 pid=$3 out=$WORK/$1.sched perf_pid
    USERS_FILE=$WORK/c/users.txt TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$USERS \
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" --timeout 10s -s "$BENCH/ceiling.lua" "$url" >"$out.warmup" 2>&1 \
        || die "wrk failed ($name warm-up)"
    perf record -a -e sched:sched_switch -e sched:sched_wakeup -e syscalls:sys_enter_fdatasync -e syscalls:sys_exit_fdatasync \
        -o "$WORK/sched-$name.data" -- sleep "$DURATION" >/dev/null 2>&1 &
    perf_pid=$!
    USERS_FILE=$WORK/c/users.txt TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$USERS \
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s "$BENCH/ceiling.lua" "$url" >"$out" 2>&1 \
        || die "wrk failed ($name)"
    wait "$perf_pid" || true
    {
        echo "$name: $(value "$out" rps)/s, p50 $(value "$out" p50_ms) ms, p99 $(value "$out" p99_ms) ms (under perf record)"
        perf script -i "$WORK/sched-$name.data" -F comm,tid,cpu,time,event,trace 2>/dev/null | python3 "$BENCH/sched_latency.py"
    } >"$WORK/sched-$name.txt"
    rm -f "$WORK/sched-$name.data"
    cat "$WORK/sched-$name.txt" >&2
}
if [ -n "${BENCH_CEILING_SCHED:-}" ]; then
    command -v perf >/dev/null || die "perf is missing (linux-perf) for BENCH_CEILING_SCHED"
    ROUND=sched
    start_c "$WORK/c/sched.log"
    sched_load c "http://127.0.0.1:$cport" "$C_PID"
    stop_pid "$C_PID"; C_PID=""
    sync
    for name in "${NAMES[@]}"; do sched_load "$name" "${URL_OF[$name]}" "${PID_OF[$name]}"; done
fi

{
    echo
    echo "## The service against the C reference server (issue 38)"
    echo
    echo "\`bash bench/ceiling.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)): $ROUNDS rounds of"
    echo "${WARMUP} s warm-up + ${DURATION} s measured each, $CONNECTIONS connections, $THREADS wrk threads, $USERS users; the C"
    echo "server's writer figures cover its warm-up and measured run, the service's too (from \`/metrics\`)."
    echo
    echo "| round | server | signatures/s | p50 ms | p99 ms | CPU µs per signature | records per batch | WAL frames per batch | WAL frames per record | ratio to C |"
    echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "| server | mean signatures/s | mean ratio to C (round by round) | p99s ms | peak RSS MB | RSS at the end: anonymous + file-backed MB |"
    echo "| --- | ---: | ---: | --- | ---: | ---: |"
    echo "| C | $(awk -v s="${SUM_RPS[c]}" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }') | 1.00 | ${P99S[c]} | | |"
    for name in "${NAMES[@]}"; do
        rss=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/${PID_OF[$name]}/status" 2>/dev/null || echo "?")
        # File-backed pages (the binary, libraries, and any database pages SQLite maps) apart
        # from the process's own memory.
        split=$(awk '/^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } END { printf "%.1f + %.1f", a / 1024, f / 1024 }' "/proc/${PID_OF[$name]}/status" 2>/dev/null || echo "?")
        echo "| $name | $(awk -v s="${SUM_RPS[$name]}" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }') | $(awk -v s="${SUM_RATIO[$name]}" -v n="$ROUNDS" 'BEGIN { printf "%.2f", s / n }') | ${P99S[$name]} | $rss | $split |"
    done
} | tee "$OUT"
