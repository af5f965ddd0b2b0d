#!/usr/bin/env bash
# The offer-signer benchmark (issue 5): `make bench` builds release, then runs this.
# Builds nothing itself; uses .build/release/offer-signer. Everything listens on 127.0.0.1.
# See bench/README.md for the knobs and what each figure means.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BIN=${BENCH_BIN:-$ROOT/.build/release/offer-signer}   # BENCH_BIN: another build of the service, for A/B runs
BENCH=$ROOT/bench

BENCH_USERS=${BENCH_USERS:-100000}
BENCH_DURATION=${BENCH_DURATION:-15}          # seconds of measured signing load
BENCH_WARMUP=${BENCH_WARMUP:-3}               # seconds of warm-up before it
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-32}
BENCH_THREADS=${BENCH_THREADS:-2}             # wrk threads
BENCH_NOTIFICATIONS=${BENCH_NOTIFICATIONS:-20000}
BENCH_NOTIFY_TIMEOUT=${BENCH_NOTIFY_TIMEOUT:-120}   # seconds: upper bound of the ingestion run
BENCH_RETENTION_REQUESTS=${BENCH_RETENTION_REQUESTS:-10000}   # signed Retention Messaging requests, each posted once
BENCH_REDEMPTIONS=${BENCH_REDEMPTIONS:-10000} # notifications carrying a signed user's redemption of the bench offer (issue 22)
BENCH_OPENSSL_SECONDS=${BENCH_OPENSSL_SECONDS:-3}
BENCH_COMPARE=${BENCH_COMPARE:-0}
BENCH_USERS_SMALL=${BENCH_USERS_SMALL:-1000}
BENCH_PORT=${BENCH_PORT:-}
BENCH_POSTGRESQL=${BENCH_POSTGRESQL:-1}       # 0 skips the PostgreSQL runs (bench/postgres.sh)
BENCH_SIGN_ONLY=${BENCH_SIGN_ONLY:-0}         # 1: the signing load only (no ingestion, no retention, no PostgreSQL run)
if [ "$BENCH_SIGN_ONLY" = 1 ]; then BENCH_POSTGRESQL=0; fi
BENCH_STAGE_SECONDS=${BENCH_STAGE_SECONDS:-5} # each stage of the ladder before the signing load; 0 skips it
BENCH_INTRO_SECONDS=${BENCH_INTRO_SECONDS:-5} # each introductory-eligibility run (10 single requests vs pages of 10, issue 24); 0 skips it
BENCH_PKCS11=${BENCH_PKCS11:-1}               # 0 skips the signing load with the key in a SoftHSM2 token (issue 27)
BENCH_PKCS11_DURATION=${BENCH_PKCS11_DURATION:-5}   # seconds of that load, measured after the warm-up
BENCH_PKCS11_MODULE=${BENCH_PKCS11_MODULE:-/usr/lib/softhsm/libsofthsm2.so}
BENCH_WEBHOOK=${BENCH_WEBHOOK:-1}             # 0 skips signing with and without a webhook subscribed to offer.signed (issue 37)
BENCH_WEBHOOK_ROUNDS=${BENCH_WEBHOOK_ROUNDS:-3}  # pairs of runs (without, with), alternated
BENCH_WEBHOOK_RECEIVER=${BENCH_WEBHOOK_RECEIVER:-c}  # c: bench/webhook_receiver.c (libmicrohttpd, built with gcc); python: http.server

# The service's rate limits (per API key, per user, per client address) would turn most of
# wrk's requests into 429s: the benchmark measures capacity, so they are off unless the
# OFFER_SIGNER_RATE_* variables are set.
RATE_SIGN_PER_KEY=${OFFER_SIGNER_RATE_SIGN_PER_KEY:-off}
RATE_SIGN_PER_USER=${OFFER_SIGNER_RATE_SIGN_PER_USER:-off}
RATE_NOTIFICATIONS_PER_ADDRESS=${OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS:-off}

WORK=$BENCH/results/tmp
RESULTS=$BENCH/results/latest.md
OFFER=bench_winback
BUNDLE=com.example.app
PRODUCT=com.example.app.pro_monthly
GROUP=21000001
STARTUP_LIMIT_S=30   # give up on a server that does not answer /healthz by then

say() { printf '\n== %s\n' "$*"; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

for tool in wrk openssl python3 curl; do
    command -v "$tool" >/dev/null || die "$tool is missing (make bench-deps installs wrk and openssl)"
done
[ -x "$BIN" ] || die "$BIN is missing: run 'make bench' (or 'swift build -c release') first"
for n in BENCH_USERS BENCH_DURATION BENCH_WARMUP BENCH_CONNECTIONS BENCH_THREADS BENCH_NOTIFICATIONS \
         BENCH_NOTIFY_TIMEOUT BENCH_OPENSSL_SECONDS BENCH_USERS_SMALL BENCH_RETENTION_REQUESTS BENCH_REDEMPTIONS BENCH_PKCS11_DURATION \
         BENCH_WEBHOOK_ROUNDS; do
    [[ ${!n} =~ ^[0-9]+$ ]] && [ "${!n}" -gt 0 ] || die "$n must be a positive whole number (got '${!n}')"
done
[[ $BENCH_STAGE_SECONDS =~ ^[0-9]+$ ]] || die "BENCH_STAGE_SECONDS must be a whole number (got '$BENCH_STAGE_SECONDS')"
[[ $BENCH_INTRO_SECONDS =~ ^[0-9]+$ ]] || die "BENCH_INTRO_SECONDS must be a whole number (got '$BENCH_INTRO_SECONDS')"
[ "$BENCH_CONNECTIONS" -ge "$BENCH_THREADS" ] || die "BENCH_CONNECTIONS must be >= BENCH_THREADS"
[ "$BENCH_NOTIFICATIONS" -ge "$BENCH_CONNECTIONS" ] || die "BENCH_NOTIFICATIONS must be >= BENCH_CONNECTIONS"
[ "$BENCH_RETENTION_REQUESTS" -ge "$BENCH_CONNECTIONS" ] || die "BENCH_RETENTION_REQUESTS must be >= BENCH_CONNECTIONS"
[ "$BENCH_REDEMPTIONS" -ge "$BENCH_CONNECTIONS" ] || die "BENCH_REDEMPTIONS must be >= BENCH_CONNECTIONS"
[ "$BENCH_REDEMPTIONS" -le "$BENCH_USERS" ] || die "BENCH_REDEMPTIONS must be <= BENCH_USERS (each is a seeded user's)"
if ! python3 -c 'import cryptography' 2>/dev/null; then
    echo "bench: the Python 'cryptography' package is missing; trying pip install --user cryptography"
    python3 -m pip install --quiet --user cryptography \
        || die "install the Python 'cryptography' package (pip install cryptography, or apt-get install python3-cryptography)"
fi

if [ -z "$BENCH_PORT" ]; then
    BENCH_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
fi
URL=http://127.0.0.1:$BENCH_PORT

# ---------------------------------------------------------------- the server
SERVER_PID=""
SERVER_NOTE=""

# start_server DATABASE LOGFILE: starts `serve`, sets SERVER_PID and STARTUP_S (seconds until
# /healthz answers) and READY_S (until /readyz answers 200).
start_server() {
    local database=$1 log=$2 t0 t1 deadline
    t0=$(date +%s%N)
    OFFER_SIGNER_KEYS=${SERVER_KEYS:-$WORK/dev/keys.json} OFFER_SIGNER_DATABASE=$database OFFER_SIGNER_LISTEN=127.0.0.1:$BENCH_PORT \
    OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem OFFER_SIGNER_ENVIRONMENTS=Production,Sandbox \
    OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE=on \
    OFFER_SIGNER_RATE_SIGN_PER_KEY=$RATE_SIGN_PER_KEY OFFER_SIGNER_RATE_SIGN_PER_USER=$RATE_SIGN_PER_USER \
    OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=$RATE_NOTIFICATIONS_PER_ADDRESS \
        "$BIN" serve >"$log" 2>&1 &
    SERVER_PID=$!
    deadline=$(( t0 + STARTUP_LIMIT_S * 1000000000 ))
    until curl -fs --max-time 1 "$URL/healthz" >/dev/null 2>&1; do
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; die "the server exited during start-up"; }
        [ "$(date +%s%N)" -lt "$deadline" ] || die "the server did not answer /healthz within ${STARTUP_LIMIT_S} s"
        sleep 0.005
    done
    t1=$(date +%s%N)
    sleep 0.05
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; die "the server exited: is port $BENCH_PORT taken by another process?"; }
    STARTUP_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    until curl -fs --max-time 1 "$URL/readyz" >/dev/null 2>&1; do
        [ "$(date +%s%N)" -lt "$deadline" ] || die "the server did not answer /readyz with 200 within ${STARTUP_LIMIT_S} s"
        sleep 0.005
    done
    READY_S=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
}

peak_rss_mb() {
    awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$SERVER_PID/status" 2>/dev/null || echo "?"
}

# stop_server: SIGTERM, then SIGKILL if it has not exited within 5 s (bounded either way).
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    local pid=$SERVER_PID i
    SERVER_PID=""
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
        sleep 0.1
    done
    SERVER_NOTE="the server did not exit within 5 s of SIGTERM and was killed with SIGKILL"
    echo "bench: warning: $SERVER_NOTE" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# run_wrk OUTFILE ARGS...: wrk in the background, so that a signal to this script is
# handled at once (the EXIT trap then stops wrk and the server).
WRK_PID=""
run_wrk() {
    local out=$1 rc=0
    shift
    wrk "$@" >"$out" 2>&1 &
    WRK_PID=$!
    wait "$WRK_PID" || rc=$?
    WRK_PID=""
    return "$rc"
}

cleanup() {
    if [ -n "$WRK_PID" ]; then kill -TERM "$WRK_PID" 2>/dev/null || true; fi
    stop_server
    rm -f "$WORK/notifications.ndjson" "$WORK/realtime.ndjson" "$WORK/realtime-all.ndjson"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- helpers
put_offer() {
    local status
    status=$(curl -s -o "$WORK/offer.json" -w '%{http_code}' --max-time 10 -X PUT "$URL/v1/admin/offers/$OFFER" \
        -H "Authorization: Bearer $MARKETING_TOKEN" -H 'Content-Type: application/json' \
        -d '{"offerId":"'$OFFER'","bundleId":"'$BUNDLE'","productIds":["'$PRODUCT'"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}')
    case $status in
        200|201) ;;
        *) cat "$WORK/offer.json" >&2; echo >&2; die "PUT /v1/admin/offers/$OFFER answered $status" ;;
    esac
}

# check_sign USER: one signature on the eligible path must answer 200.
check_sign() {
    local status
    status=$(curl -s -o "$WORK/sign-check.json" -w '%{http_code}' --max-time 30 "$URL/v1/offers/sign" \
        -H "Authorization: Bearer $CLIENT_TOKEN" -H 'Content-Type: application/json' \
        -d '{"productId":"'$PRODUCT'","offerId":"'$OFFER'","userId":"'"$1"'"}')
    if [ "$status" != 200 ]; then
        cat "$WORK/sign-check.json" >&2; echo >&2
        die "POST /v1/offers/sign for $1 answered $status, not 200: the eligible path is broken, no load run"
    fi
    echo "eligible path checked: $1 -> 200"
}

# put_retention_rule: the retention rule of the retention run, offering the bench offer.
put_retention_rule() {
    local status
    status=$(curl -s -o "$WORK/retention-rule.json" -w '%{http_code}' --max-time 10 -X PUT "$URL/v1/admin/retention-rules/bench_save" \
        -H "Authorization: Bearer $MARKETING_TOKEN" -H 'Content-Type: application/json' \
        -d '{"ruleId":"bench_save","bundleId":"'$BUNDLE'","productIds":["'$PRODUCT'"],"locales":["en"],"offerId":"'$OFFER'","messageIdentifier":"11111111-1111-4111-8111-111111111111","fallbackMessageIdentifier":"22222222-2222-4222-8222-222222222222"}')
    case $status in
        200|201) ;;
        *) cat "$WORK/retention-rule.json" >&2; echo >&2; die "PUT /v1/admin/retention-rules/bench_save answered $status" ;;
    esac
}

# check_retention BODYFILE: one retention request must be answered with a promotional offer.
check_retention() {
    local status
    status=$(curl -s -o "$WORK/retention-check.json" -w '%{http_code}' --max-time 30 "$URL/v1/retention/appstore" \
        -H 'Content-Type: application/json' --data-binary @"$1")
    if [ "$status" != 200 ] || ! grep -q '"promotionalOffer"' "$WORK/retention-check.json"; then
        cat "$WORK/retention-check.json" >&2; echo >&2
        die "POST /v1/retention/appstore answered $status without a promotional offer: the offer path is broken, no load run"
    fi
    echo "retention offer path checked: 200 with a promotionalOffer"
}

# wrk_value FILE KEY: a key=value line of a wrk script's summary.
wrk_value() { sed -n "s/^$2=//p" "$1" | tail -1; }
# socket_errors FILE: the sum of wrk's socket errors (connect, read, write, timeout).
socket_errors() { awk '/Socket errors:/ { gsub(/,/, ""); s += $4 + $6 + $8 + $10 } END { print s + 0 }' "$1"; }

# cpu_ticks: the service's user + system CPU time so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
# thread_ticks NAME: the CPU ticks of the service's threads called NAME (as /proc shows it:
# the first 15 bytes of the name the service gives them).
thread_ticks() {
    local task total=0
    for task in /proc/"$SERVER_PID"/task/*; do
        [ "$(cat "$task/comm" 2>/dev/null)" = "$1" ] || continue
        total=$(( total + $(awk '{ print $14 + $15 }' "$task/stat" 2>/dev/null || echo 0) ))
    done
    echo "$total"
}
# threads_ticks: "NAME TICKS" for each thread name of the service (ticks summed over its threads).
threads_ticks() {
    local task
    for task in /proc/"$SERVER_PID"/task/*; do
        echo "$(cat "$task/comm" 2>/dev/null | tr ' ' '_') $(awk '{ print $14 + $15 }' "$task/stat" 2>/dev/null || echo 0)"
    done | awk '{ t[$1] += $2 } END { for (n in t) print n, t[n] }' | sort
}
# cpu_per_request TICKS_BEFORE TICKS_AFTER WRK_OUTFILE: the service's CPU microseconds per request of that run.
# cpu_per_stored TICKS_BEFORE TICKS_AFTER WRK_OUTFILE: the service's CPU microseconds per stored item of a notify.lua run.
cpu_per_stored() {
    awk -v a="$1" -v b="$2" -v n="$(wrk_value "$3" stored)" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }'
}
cpu_per_request() {
    awk -v a="$1" -v b="$2" -v n="$(wrk_value "$3" requests)" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }'
}

# stage_load NAME PATH TOKEN: GET PATH ("%s": a seeded user) for BENCH_STAGE_SECONDS, same
# connections and threads as the signing load; sets STAGE_RPS and STAGE_CPU_US.
stage_load() {
    local name=$1 path=$2 token=$3 out="$WORK/wrk-stage-$1.txt" before after
    local probe=${path//%s/bench-user-00000000}
    local status
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$URL$probe")
    [ "$status" = 200 ] || die "stage $name: GET $probe answered $status, not 200"
    before=$(cpu_ticks)
    STAGE_PATH=$path TOKEN=$token USERS=$BENCH_USERS \
        run_wrk "$out" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_STAGE_SECONDS}s" --timeout 10s -s "$BENCH/get.lua" "$URL" \
        || { cat "$out" >&2; die "wrk failed during stage $name"; }
    after=$(cpu_ticks)
    [ "$(wrk_value "$out" non200)" = 0 ] || die "stage $name: some answers were not 200 ($out)"
    STAGE_RPS=$(wrk_value "$out" rps)
    STAGE_CPU_US=$(cpu_per_request "$before" "$after" "$out")
    echo "stage $name: GET $path: $STAGE_RPS requests/s, $STAGE_CPU_US µs of service CPU per request"
}

# writer_counts: the signature log's batches, records and WAL frames so far (from /metrics).
writer_counts() {
    curl -s --max-time 5 "$URL/metrics" | awk '
        $1 == "offer_signer_signature_log_batches_total" { b = $2 }
        $1 == "offer_signer_signature_log_records_total" { r = $2 }
        $1 == "offer_signer_database_wal_frames_total" { f = $2 }
        END { print b + 0, r + 0, f + 0 }'
}

# sign_load USERS SECONDS OUTFILE: warm-up, then the measured run of bench/sign.lua (its
# service CPU per request in SIGN_CPU_US).
sign_load() {
    local users=$1 seconds=$2 out=$3
    echo "warm-up: ${BENCH_WARMUP} s"
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$users \
        run_wrk "$out.warmup" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_WARMUP}s" --timeout 10s -s "$BENCH/sign.lua" "$URL" \
        || { cat "$out.warmup" >&2; die "wrk failed during warm-up"; }
    echo "measured: ${seconds} s, ${BENCH_CONNECTIONS} connections, ${BENCH_THREADS} threads, keep-alive, ${users} distinct users"
    local before writer_before b0 r0 f0 b1 r1 f1
    before=$(cpu_ticks)
    writer_before=$(thread_ticks signature-log-w)
    read -r b0 r0 f0 < <(writer_counts)
    threads_ticks >"$out.threads-before"
    local other_before=0
    [ -z "${SIGN_OTHER_PID:-}" ] || other_before=$(awk '{ print $14 + $15 }' "/proc/$SIGN_OTHER_PID/stat" 2>/dev/null || echo 0)
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$users \
        run_wrk "$out" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${seconds}s" --timeout 10s -s "$BENCH/sign.lua" "$URL" \
        || { cat "$out" >&2; die "wrk failed"; }
    SIGN_CPU_US=$(cpu_per_request "$before" "$(cpu_ticks)" "$out")
    SIGN_WRITER_US=$(cpu_per_request "$writer_before" "$(thread_ticks signature-log-w)" "$out")
    read -r b1 r1 f1 < <(writer_counts)
    threads_ticks >"$out.threads-after"
    # The service's CPU µs per signature by thread name (threads that ended during the run are not counted).
    SIGN_THREADS=$(join -a2 "$out.threads-before" "$out.threads-after" | awk -v n="$(wrk_value "$out" requests)" -v hz="$(getconf CLK_TCK)" \
        'NF == 2 { $3 = $2; $2 = 0 } { us = ($3 - $2) * 1e6 / hz / n; if (us >= 1) { printf "%s%s %.0f", sep, $1, us; sep = ", " } }')
    # What no living thread accounts for: threads that ended, the connections' (MHD-connection, ending with wrk's
    # connections) and a webhook lane's posting threads (webhook-post, one per claim).
    SIGN_THREADS="$SIGN_THREADS, ended threads (connections', posting) $(join -a2 "$out.threads-before" "$out.threads-after" | awk -v n="$(wrk_value "$out" requests)" \
        -v hz="$(getconf CLK_TCK)" -v total="$SIGN_CPU_US" 'NF == 2 { $3 = $2; $2 = 0 } { named += ($3 - $2) * 1e6 / hz / n } END { printf "%.0f", total - named }')"
    SIGN_OTHER_US=""
    [ -z "${SIGN_OTHER_PID:-}" ] || SIGN_OTHER_US=$(cpu_per_request "$other_before" "$(awk '{ print $14 + $15 }' "/proc/$SIGN_OTHER_PID/stat" 2>/dev/null || echo 0)" "$out")
    # Records and WAL frames per batch of the signature log's writer over the measured run (SQLite).
    read -r SIGN_RPB SIGN_FPB < <(awk -v b0="$b0" -v b1="$b1" -v r0="$r0" -v r1="$r1" -v f0="$f0" -v f1="$f1" \
        'BEGIN { b = b1 - b0; if (b > 0) printf "%.1f %.1f\n", (r1 - r0) / b, (f1 - f0) / b; else print "? ?" }')
    cat "$out"
    echo "service CPU per signature: $SIGN_CPU_US µs, of which the signature log's group-commit writer: $SIGN_WRITER_US µs;" \
        "$SIGN_RPB records and $SIGN_FPB WAL frames per batch; by thread (µs per signature): $SIGN_THREADS${SIGN_OTHER_US:+; the receiver (another process): $SIGN_OTHER_US µs}"
}

# intro_load MODE OUTFILE: BENCH_INTRO_SECONDS of bench/intro.lua over the ten bench products
# (MODE single: one product per request; page: all ten per request); sets INTRO_RPS,
# INTRO_PRODUCTS_PER_S (requests/s x products per request), INTRO_P99 and INTRO_CPU_US (the
# service's CPU per product).
intro_load() {
    local mode=$1 out=$2 before per=1
    [ "$mode" = page ] && per=10
    before=$(cpu_ticks)
    TOKEN=$CLIENT_TOKEN MODE=$mode PRODUCTS=$INTRO_PRODUCTS USERS=$BENCH_USERS \
        run_wrk "$out" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_INTRO_SECONDS}s" --timeout 10s -s "$BENCH/intro.lua" "$URL" \
        || { cat "$out" >&2; die "wrk failed during the introductory-eligibility run ($mode)"; }
    [ "$(wrk_value "$out" non200)" = 0 ] || die "introductory eligibility ($mode): some answers were not 200 ($out)"
    INTRO_RPS=$(wrk_value "$out" rps)
    INTRO_PRODUCTS_PER_S=$(awk -v r="$INTRO_RPS" -v n="$per" 'BEGIN { printf "%.1f", r * n }')
    INTRO_P99=$(wrk_value "$out" p99_ms)
    INTRO_CPU_US=$(awk -v a="$before" -v b="$(cpu_ticks)" -v n="$(wrk_value "$out" requests)" -v per="$per" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / (n * per); else print "?" }')
    echo "introductory eligibility, $mode: $INTRO_RPS requests/s = $INTRO_PRODUCTS_PER_S products/s, p99 $INTRO_P99 ms, $INTRO_CPU_US µs of service CPU per product"
}

# ratio A B [FORMAT]: A / B.
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (b + 0 > 0) printf f, a / b; else print "?" }'; }
# meets A OP B: "yes" when the figure A compares to B as OP says (>=, <=, <, ==), else "**no**".
meets() {
    awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN {
        if (a !~ /^[0-9.]+$/) { print "?"; exit }
        a += 0; b += 0
        ok = (op == ">=") ? a >= b : (op == "<=") ? a <= b : (op == "<") ? a < b : (op == "==") ? a == b : 0
        print (ok ? "yes" : "**no**") }'
}

rm -rf "$WORK"
mkdir -p "$WORK"

# ---------------------------------------------------------------- 1. the ECDSA ceiling
say "1. openssl speed ecdsap256, one core, ${BENCH_OPENSSL_SECONDS} s each"
openssl speed -seconds "$BENCH_OPENSSL_SECONDS" -elapsed ecdsap256 >"$WORK/openssl-speed.txt" 2>/dev/null \
    || die "openssl speed failed"
read -r OPENSSL_SIGN OPENSSL_VERIFY < <(awk '/nistp256\)/ { print $(NF-1), $NF }' "$WORK/openssl-speed.txt")
[ -n "${OPENSSL_SIGN:-}" ] || die "could not read openssl speed's output"
echo "ECDSA P-256: sign ${OPENSSL_SIGN}/s, verify ${OPENSSL_VERIFY}/s"

# ---------------------------------------------------------------- 2. a fresh set-up
say "2. development set-up in ${WORK#$ROOT/}"
SETUP_OUT=$("$BIN" dev-setup --dir "$WORK/dev" --database "$WORK/db.sqlite" --listen "127.0.0.1:$BENCH_PORT")
CLIENT_TOKEN=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
MARKETING_TOKEN=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
ADMIN_TOKEN=$(sed -n 's/^ *admin  *\(dev_admin_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
[ -n "$CLIENT_TOKEN" ] && [ -n "$MARKETING_TOKEN" ] || { echo "$SETUP_OUT" >&2; die "no client or marketing token in dev-setup's output"; }
echo "keys file $WORK/dev/keys.json, client and marketing tokens captured"

# ---------------------------------------------------------------- 3. seeding
say "3. seeding $BENCH_USERS users (seeded directly, not through the verifier)"
SEED_OUT=$(python3 "$BENCH/seed.py" --database "$WORK/db.sqlite" --users "$BENCH_USERS" \
    --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP") || die "seeding failed"
echo "$SEED_OUT" | grep -v '^seed_seconds='
SEED_S=$(sed -n 's/^seed_seconds=//p' <<<"$SEED_OUT")

# ---------------------------------------------------------------- test chain, notifications
if [ "$BENCH_SIGN_ONLY" != 1 ]; then
say "test App Store chain and $BENCH_NOTIFICATIONS signed notifications (prepared now, not timed)"
CHAIN=$WORK/chain
mkdir -p "$CHAIN"
cat >"$CHAIN/ext.cnf" <<'EOF'
[root]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
1.2.840.113635.100.6.2.1 = DER:05:00
[leaf]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
1.2.840.113635.100.6.11.1 = DER:05:00
EOF
(
    cd "$CHAIN"
    for n in root intermediate leaf; do
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$n.key" 2>/dev/null
        openssl req -new -key "$n.key" -subj "/CN=offer-signer bench $n/O=offer-signer benchmark (test only)" -out "$n.csr"
    done
    openssl x509 -req -in root.csr -signkey root.key -sha256 -days 7 -set_serial 1 \
        -extfile ext.cnf -extensions root -out root.pem 2>/dev/null
    openssl x509 -req -in intermediate.csr -CA root.pem -CAkey root.key -sha256 -days 7 -set_serial 2 \
        -extfile ext.cnf -extensions intermediate -out intermediate.pem 2>/dev/null
    openssl x509 -req -in leaf.csr -CA intermediate.pem -CAkey intermediate.key -sha256 -days 7 -set_serial 3 \
        -extfile ext.cnf -extensions leaf -out leaf.pem 2>/dev/null
    openssl verify -x509_strict -CAfile root.pem -untrusted intermediate.pem leaf.pem >/dev/null
) || die "could not make the test certificate chain"
echo "chain: root -> intermediate (1.2.840.113635.100.6.2.1) -> leaf (1.2.840.113635.100.6.11.1), P-256, x509_strict OK"
python3 "$BENCH/make_notifications.py" --chain "$CHAIN" --count "$BENCH_NOTIFICATIONS" --out "$WORK/notifications.ndjson" \
    --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" || die "could not generate the notifications"
# Redemptions of the bench offer by the first seeded users, dated 30 minutes from now: after the
# signing load's signature for each of them, within its 24 hours.
python3 "$BENCH/make_notifications.py" --chain "$CHAIN" --count "$BENCH_REDEMPTIONS" --out "$WORK/redemptions.ndjson" \
    --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" --redeem-offer "$OFFER" --redeem-after-minutes 30 \
    || die "could not generate the redemption notifications"
python3 "$BENCH/make_realtime.py" --chain "$CHAIN" --count $((BENCH_RETENTION_REQUESTS + 1)) --users "$BENCH_USERS" \
    --out "$WORK/realtime-all.ndjson" --product "$PRODUCT" || die "could not generate the retention requests"
head -n "$BENCH_RETENTION_REQUESTS" "$WORK/realtime-all.ndjson" >"$WORK/realtime.ndjson"
tail -n 1 "$WORK/realtime-all.ndjson" >"$WORK/realtime-check.json"
else
    mkdir -p "$WORK/chain"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/chain/root.key" -subj "/CN=offer-signer bench root" \
        -days 7 -out "$WORK/chain/root.pem" 2>/dev/null || die "could not make a root certificate"
    echo "BENCH_SIGN_ONLY=1: no notifications or retention requests prepared"
fi

# The seeded database and the prepared files (~300 MB of notifications and retention requests) are
# still being written back to disk: let that finish now, or it competes with the timed
# signing load's fdatasync calls (p99 8-10 ms instead of 6 in full runs before this sync).
sync

# ---------------------------------------------------------------- 4. start-up
say "4. start-up with $BENCH_USERS users stored"
start_server "$WORK/db.sqlite" "$WORK/server.log"
MAIN_STARTUP_S=$STARTUP_S MAIN_READY_S=$READY_S
echo "pid $SERVER_PID on $URL: /healthz answered after ${STARTUP_S} s, /readyz 200 after ${READY_S} s"
echo "rate limits: sign per API key $RATE_SIGN_PER_KEY, per user $RATE_SIGN_PER_USER, notifications per address $RATE_NOTIFICATIONS_PER_ADDRESS"
put_offer
echo "offer rule '$OFFER' stored through PUT /v1/admin/offers/$OFFER"

# ---------------------------------------------------------------- 5. signing load
say "5. signing load: POST /v1/offers/sign on the eligible path"
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
echo "load average (1 min) before the load: $LOAD_BEFORE (other work on this machine skews every figure)"
check_sign "bench-user-00000000"
check_sign "$(printf 'bench-user-%08d' $((BENCH_USERS - 1)))"
STAGES=()
if [ "$BENCH_STAGE_SECONDS" -gt 0 ]; then
    # The stage ladder: what each layer of the signing path costs, on the same server, each
    # stage adding work to the one before (the signing load below is the last stage).
    say "5a. stage ladder: ${BENCH_STAGE_SECONDS} s each"
    stage_load http /healthz ""
    STAGES+=("| stage 1, HTTP alone (\`GET /healthz\`): requests/s; service CPU µs per request | $STAGE_RPS; $STAGE_CPU_US | | |")
    stage_load auth /v1/me "$CLIENT_TOKEN"
    STAGES+=("| stage 2, + API token and a JSON answer (\`GET /v1/me\`) | $STAGE_RPS; $STAGE_CPU_US | | |")
    stage_load eligibility "/v1/users/%s/offers" "$CLIENT_TOKEN"
    STAGES+=("| stage 3, + the user's history and the eligibility of every offer (\`GET /v1/users/{id}/offers\`: the bench offer and the demo offer) | $STAGE_RPS; $STAGE_CPU_US | | |")
fi
sign_load "$BENCH_USERS" "$BENCH_DURATION" "$WORK/wrk-sign.txt"
SIGN_CPU_MAIN=$SIGN_CPU_US
SIGN_WRITER_MAIN=$SIGN_WRITER_US
SIGN_RPS=$(wrk_value "$WORK/wrk-sign.txt" rps)
SIGN_P50=$(wrk_value "$WORK/wrk-sign.txt" p50_ms)
SIGN_P99=$(wrk_value "$WORK/wrk-sign.txt" p99_ms)
SIGN_NON2XX=$(wrk_value "$WORK/wrk-sign.txt" non200)
SIGN_SOCKET_ERRORS=$(socket_errors "$WORK/wrk-sign.txt")
[ -n "$SIGN_RPS" ] || die "no figures in wrk's output"
RSS_AFTER_SIGN=$(peak_rss_mb)

# ---------------------------------------------------------------- 5b. a store page of introductory eligibility (issue 24)
INTRO_ROWS=()
if [ "$BENCH_INTRO_SECONDS" -gt 0 ]; then
    say "5b. introductory eligibility: 10 products as 10 single requests, then as pages of 10 (productIds), ${BENCH_INTRO_SECONDS} s each"
    INTRO_PRODUCTS=$(printf "$BUNDLE.tier_%02d," 1 2 3 4 5 6 7 8 9 10); INTRO_PRODUCTS=${INTRO_PRODUCTS%,}
    status=$(curl -s -o "$WORK/intro-rule.json" -w '%{http_code}' --max-time 10 -X PUT "$URL/v1/admin/introductory-offer-rules/bench_tiers" \
        -H "Authorization: Bearer $MARKETING_TOKEN" -H 'Content-Type: application/json' \
        -d '{"ruleId":"bench_tiers","bundleId":"'$BUNDLE'","productIds":["'"${INTRO_PRODUCTS//,/\",\"}"'"]}')
    case $status in 200|201) ;; *) cat "$WORK/intro-rule.json" >&2; die "PUT /v1/admin/introductory-offer-rules/bench_tiers answered $status" ;; esac
    echo "introductory-offer rule 'bench_tiers' names the ten products ($INTRO_PRODUCTS)"
    intro_load single "$WORK/wrk-intro-single.txt"
    INTRO_SINGLE_PPS=$INTRO_PRODUCTS_PER_S
    INTRO_ROWS+=("| introductory eligibility (issue 24), one product per request: requests/s = products/s; p99 (ms); service CPU µs per product | $INTRO_RPS; $INTRO_P99; $INTRO_CPU_US | | |")
    intro_load page "$WORK/wrk-intro-page.txt"
    INTRO_ROWS+=("| introductory eligibility, pages of 10 (\`productIds\`): requests/s; products/s; p99 (ms); service CPU µs per product | $INTRO_RPS; $INTRO_PRODUCTS_PER_S; $INTRO_P99; $INTRO_CPU_US | | |")
    INTRO_RATIO=$(ratio "$INTRO_PRODUCTS_PER_S" "$INTRO_SINGLE_PPS")
    INTRO_ROWS+=("| introductory eligibility: products/s in pages of 10 ÷ products/s one per request | $INTRO_RATIO | > 1 | $(meets "$INTRO_RATIO" ">=" 1) |")
    echo "products per second, pages of 10 / single requests: $INTRO_RATIO"
fi

# ---------------------------------------------------------------- 5c. one webhook subscribed to offer.signed (issue 37)
# Alternated: BENCH_WEBHOOK_ROUNDS pairs of (without, with), the webhook created before each
# "with" run and deleted (its deliveries with it) after, so drift on a shared machine falls on both.
WEBHOOK_ROWS=()
if [ "$BENCH_WEBHOOK" = 1 ]; then
    [ -n "$ADMIN_TOKEN" ] || die "no admin token in dev-setup's output"
    say "5c. signing without a webhook, then with one subscribed to offer.signed: ${BENCH_DURATION} s each, ${BENCH_WEBHOOK_ROUNDS} rounds alternated"
    RECEIVER_PORT=$((BENCH_PORT + 1))
    # The receiver stands for the customer's backend, on another machine in production; here it
    # shares the two cores the service signs on, so by default it is the cheapest HTTP/1.1 server
    # at hand (C over libmicrohttpd, one thread, keep-alive, 204, counting the POSTs: GET /count).
    case $BENCH_WEBHOOK_RECEIVER in
    c)
    command -v gcc >/dev/null || die "gcc is missing (BENCH_WEBHOOK_RECEIVER=python uses Python's http.server instead)"
    gcc -O2 -Wall -o "$WORK/webhook_receiver" "$BENCH/webhook_receiver.c" -lmicrohttpd \
        || die "could not build bench/webhook_receiver.c (needs gcc and libmicrohttpd-dev)"
    "$WORK/webhook_receiver" "$RECEIVER_PORT" &
    RECEIVER_PID=$!
    receiver_count() { curl -fs --max-time 10 "http://127.0.0.1:$RECEIVER_PORT/count" || echo "?"; }
    ;;
    python)
    rm -f "$WORK/received.txt"
    python3 -c '
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[2], "a") as f: f.write("1\n")
        self.send_response(204); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()' "$RECEIVER_PORT" "$WORK/received.txt" &
    RECEIVER_PID=$!
    receiver_count() { cat "$WORK/received.txt" 2>/dev/null | wc -l; }
    ;;
    *) die "BENCH_WEBHOOK_RECEIVER must be c or python (got '$BENCH_WEBHOOK_RECEIVER')" ;;
    esac
    for _ in $(seq 1 100); do curl -s -o /dev/null --max-time 1 -X POST "http://127.0.0.1:$RECEIVER_PORT/ready" && break; sleep 0.05; done
    echo "webhook receiver: $BENCH_WEBHOOK_RECEIVER (pid $RECEIVER_PID, port $RECEIVER_PORT)"
    SIGN_OTHER_PID=$RECEIVER_PID  # its CPU is counted in each signing run's figures
    # outbox_count SQL: one number read from the bench database (read-only, beside the running service).
    outbox_count() {
        python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, timeout=30)
print(db.execute(sys.argv[2]).fetchone()[0])' "$WORK/db.sqlite" "$1"
    }
    WEBHOOK_PAIRS=()
    WEBHOOK_SIGNED_TOTAL=0
    WEBHOOK_DELIVERED_TOTAL=0
    for round in $(seq 1 "$BENCH_WEBHOOK_ROUNDS"); do
        sign_load "$BENCH_USERS" "$BENCH_DURATION" "$WORK/wrk-sign-nowebhook-$round.txt"
        NOWEBHOOK_RPS=$(wrk_value "$WORK/wrk-sign-nowebhook-$round.txt" rps)
        NOWEBHOOK_CPU_US=$SIGN_CPU_US
        NOWEBHOOK_WRITER="$SIGN_WRITER_US µs, $SIGN_RPB records, $SIGN_FPB frames"
        status=$(curl -s -o "$WORK/webhook.json" -w '%{http_code}' --max-time 10 -X PUT "$URL/v1/admin/webhooks/bench" \
            -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
            -d '{"url": "http://127.0.0.1:'$RECEIVER_PORT'/hook", "events": ["offer.signed"]}')
        case $status in 201) ;; *) cat "$WORK/webhook.json" >&2; kill "$RECEIVER_PID"; die "PUT /v1/admin/webhooks/bench answered $status" ;; esac
        SIGNED_BEFORE=$(outbox_count "SELECT COUNT(*) FROM signatures")
        RECEIVED_BEFORE=$(receiver_count)
        sign_load "$BENCH_USERS" "$BENCH_DURATION" "$WORK/wrk-sign-webhook-$round.txt"
        SIGNED_WITH=$(( $(outbox_count "SELECT COUNT(*) FROM signatures") - SIGNED_BEFORE ))
        WEBHOOK_RPS=$(wrk_value "$WORK/wrk-sign-webhook-$round.txt" rps)
        WEBHOOK_P99=$(wrk_value "$WORK/wrk-sign-webhook-$round.txt" p99_ms)
        WEBHOOK_CPU_US=$SIGN_CPU_US
        WEBHOOK_WRITER="$SIGN_WRITER_US µs, $SIGN_RPB records, $SIGN_FPB frames"
        # Every signature made while the webhook existed must reach the receiver: wait (up to
        # 300 s) for the webhook's outbox to hold nothing undelivered, then count what was delivered.
        PENDING_AFTER_LOAD=$(outbox_count "SELECT COUNT(*) FROM webhook_outbox WHERE webhook_id = 'bench' AND state <> 'delivered'")
        # The delivery lag when the load ended: the age of the oldest undelivered event (what
        # offer_signer_webhook_oldest_undelivered_seconds shows), in seconds.
        OLDEST_AFTER_LOAD=$(outbox_count "SELECT COALESCE(ROUND(($(date +%s%3N) - MIN(queued_at_ms)) / 1000.0, 1), 0) FROM webhook_outbox WHERE webhook_id = 'bench' AND state = 'pending'")
        DRAIN_LANE0=$(thread_ticks webhook-lane)
        DRAIN_SERVICE0=$(cpu_ticks)
        DRAIN_RECEIVER0=$(awk '{ print $14 + $15 }' "/proc/$RECEIVER_PID/stat")
        DRAIN_T0=$(date +%s%N)
        until [ "$(outbox_count "SELECT COUNT(*) FROM webhook_outbox WHERE webhook_id = 'bench' AND state <> 'delivered'")" = 0 ]; do
            [ $(( ($(date +%s%N) - DRAIN_T0) / 1000000000 )) -lt 300 ] || break
            sleep 0.2
        done
        DRAIN_S=$(awk -v a="$DRAIN_T0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
        # CPU µs per delivery while draining the backlog (no signing load): the whole service, the lane's
        # thread (its claims and records; the posts are on posting threads), the receiver.
        DRAIN_SERVICE_US=$(awk -v a="$DRAIN_SERVICE0" -v b="$(cpu_ticks)" -v n="$PENDING_AFTER_LOAD" -v hz="$(getconf CLK_TCK)" \
            'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }')
        DRAIN_LANE_US=$(awk -v a="$DRAIN_LANE0" -v b="$(thread_ticks webhook-lane)" -v n="$PENDING_AFTER_LOAD" -v hz="$(getconf CLK_TCK)" \
            'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }')
        DRAIN_RECEIVER_US=$(awk -v a="$DRAIN_RECEIVER0" -v b="$(awk '{ print $14 + $15 }' "/proc/$RECEIVER_PID/stat")" -v n="$PENDING_AFTER_LOAD" -v hz="$(getconf CLK_TCK)" \
            'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }')
        DELIVERED=$(outbox_count "SELECT COUNT(*) FROM webhook_outbox WHERE webhook_id = 'bench' AND state = 'delivered'")
        UNDELIVERED=$(outbox_count "SELECT COUNT(*) FROM webhook_outbox WHERE webhook_id = 'bench' AND state <> 'delivered'")
        RECEIVED=$(( $(receiver_count) - RECEIVED_BEFORE ))
        curl -s -o /dev/null --max-time 60 -X DELETE "$URL/v1/admin/webhooks/bench" -H "Authorization: Bearer $ADMIN_TOKEN"
        [ "$DELIVERED" = "$SIGNED_WITH" ] && [ "$UNDELIVERED" = 0 ] \
            || die "round $round: $SIGNED_WITH signatures were made with the webhook subscribed, $DELIVERED delivered, $UNDELIVERED not (after ${DRAIN_S} s)"
        # The receiver must have answered each delivery (more only if one was sent again: at least once).
        [ "$RECEIVED" -ge "$DELIVERED" ] \
            || die "round $round: $DELIVERED deliveries recorded as delivered, but the receiver answered only $RECEIVED posts"
        [ "$RECEIVED" = "$DELIVERED" ] || echo "round $round: the receiver answered $RECEIVED posts for $DELIVERED deliveries (sent again: $((RECEIVED - DELIVERED)))"
        WEBHOOK_SIGNED_TOTAL=$(( WEBHOOK_SIGNED_TOTAL + SIGNED_WITH ))
        WEBHOOK_DELIVERED_TOTAL=$(( WEBHOOK_DELIVERED_TOTAL + DELIVERED ))
        WEBHOOK_RATIO=$(ratio "$WEBHOOK_RPS" "$NOWEBHOOK_RPS")
        WEBHOOK_PAIRS+=("$WEBHOOK_RATIO")
        echo "round $round: with a webhook / without: $WEBHOOK_RATIO ($WEBHOOK_RPS / $NOWEBHOOK_RPS requests/s; CPU µs per signature $WEBHOOK_CPU_US / $NOWEBHOOK_CPU_US); signed with the webhook: $SIGNED_WITH, delivered: $DELIVERED (undelivered when the load ended: $PENDING_AFTER_LOAD, the oldest of them ${OLDEST_AFTER_LOAD} s old, all delivered ${DRAIN_S} s later, CPU µs per delivery meanwhile: service $DRAIN_SERVICE_US, of which the lane's thread $DRAIN_LANE_US; receiver $DRAIN_RECEIVER_US); posts the receiver answered: $RECEIVED; writer per signature, records and WAL frames per batch: $WEBHOOK_WRITER / $NOWEBHOOK_WRITER"
        WEBHOOK_ROWS+=("| round $round, signing without a webhook: requests/s; service CPU µs per signature | $NOWEBHOOK_RPS; $NOWEBHOOK_CPU_US | | |")
        WEBHOOK_ROWS+=("| round $round, with one webhook subscribed to offer.signed: requests/s; p99 (ms); service CPU µs per signature (delivery included); signed = delivered (undelivered when the load ended, drained in s) | $WEBHOOK_RPS; $WEBHOOK_P99; $WEBHOOK_CPU_US; $SIGNED_WITH = $DELIVERED ($PENDING_AFTER_LOAD, $DRAIN_S) | | |")
    done
    kill "$RECEIVER_PID" 2>/dev/null || true
    SIGN_OTHER_PID=""
    WEBHOOK_MEDIAN=$(printf '%s\n' "${WEBHOOK_PAIRS[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    echo "signing with a webhook / without, per round: ${WEBHOOK_PAIRS[*]}; median $WEBHOOK_MEDIAN"
    WEBHOOK_ROWS+=("| signing with the webhook ÷ without, median of the rounds (${WEBHOOK_PAIRS[*]}) | $WEBHOOK_MEDIAN | >= 0.9 (issue 37) | $(meets "$WEBHOOK_MEDIAN" ">=" 0.9) |")
fi

NOTIFY_RATE=skipped NOTIFY_STORED=skipped NOTIFY_FAILED=- NOTIFY_SOCKET_ERRORS=- NOTIFY_P99=skipped NOTIFY_CPU_US=skipped
REDEEM_RATE=skipped REDEEM_STORED=skipped REDEEM_FAILED=- REDEEM_P99=skipped REDEEM_CPU_US=skipped MATCH_CPU_US=skipped
OUTCOMES_S=skipped OUTCOMES_REDEMPTIONS=- OUTCOMES_MATCHED=- OUTCOMES_TREATED=- REBUILD_S=skipped
RETENTION_RATE=skipped RETENTION_OFFERS=skipped RETENTION_OTHER=- RETENTION_FAILED=- RETENTION_P50=skipped RETENTION_P99=skipped
if [ "$BENCH_SIGN_ONLY" != 1 ]; then
# ---------------------------------------------------------------- 6. notification ingestion
say "6. notification ingestion: POST /v1/notifications/appstore, $BENCH_NOTIFICATIONS notifications, each once"
NOTIFY_TICKS_BEFORE=$(cpu_ticks)
THREADS=$BENCH_THREADS BODIES=$WORK/notifications.ndjson \
    run_wrk "$WORK/wrk-notify.txt" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_NOTIFY_TIMEOUT}s" --timeout 10s \
    -s "$BENCH/notify.lua" "$URL" || { cat "$WORK/wrk-notify.txt" >&2; die "wrk failed during ingestion"; }
cat "$WORK/wrk-notify.txt"
NOTIFY_RATE=$(wrk_value "$WORK/wrk-notify.txt" stored_per_s)
NOTIFY_STORED=$(wrk_value "$WORK/wrk-notify.txt" stored)
NOTIFY_FAILED=$(wrk_value "$WORK/wrk-notify.txt" failed)
NOTIFY_COMPLETE=$(wrk_value "$WORK/wrk-notify.txt" complete)
NOTIFY_P99=$(wrk_value "$WORK/wrk-notify.txt" p99_ms)
NOTIFY_SOCKET_ERRORS=$(socket_errors "$WORK/wrk-notify.txt")
NOTIFY_CPU_US=$(cpu_per_stored "$NOTIFY_TICKS_BEFORE" "$(cpu_ticks)" "$WORK/wrk-notify.txt")
echo "service CPU per stored notification: $NOTIFY_CPU_US µs"
[ "$NOTIFY_COMPLETE" = true ] || echo "bench: warning: not every notification was answered within ${BENCH_NOTIFY_TIMEOUT} s" >&2

# ---------------------------------------------------------------- 6b. Retention Messaging
say "6b. Retention Messaging: POST /v1/retention/appstore, $BENCH_RETENTION_REQUESTS signed requests, each once, users eligible for the offer"
put_retention_rule
check_retention "$WORK/realtime-check.json"
THREADS=$BENCH_THREADS BODIES=$WORK/realtime.ndjson ENDPOINT=/v1/retention/appstore STORED='"promotionalOffer"' \
    run_wrk "$WORK/wrk-retention.txt" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_NOTIFY_TIMEOUT}s" --timeout 10s \
    -s "$BENCH/notify.lua" "$URL" || { cat "$WORK/wrk-retention.txt" >&2; die "wrk failed during the retention run"; }
cat "$WORK/wrk-retention.txt"
RETENTION_RATE=$(awk -v n="$(wrk_value "$WORK/wrk-retention.txt" answered)" -v t="$(wrk_value "$WORK/wrk-retention.txt" elapsed_s)" \
    'BEGIN { if (t + 0 > 0) printf "%.1f", n / t; else print "?" }')
RETENTION_OFFERS=$(wrk_value "$WORK/wrk-retention.txt" stored)
RETENTION_OTHER=$(wrk_value "$WORK/wrk-retention.txt" duplicate)
RETENTION_FAILED=$(( $(wrk_value "$WORK/wrk-retention.txt" failed) + $(socket_errors "$WORK/wrk-retention.txt") ))
RETENTION_P50=$(wrk_value "$WORK/wrk-retention.txt" p50_ms)
RETENTION_P99=$(wrk_value "$WORK/wrk-retention.txt" p99_ms)
[ "$(wrk_value "$WORK/wrk-retention.txt" complete)" = true ] \
    || echo "bench: warning: not every retention request was answered within ${BENCH_NOTIFY_TIMEOUT} s" >&2

# ---------------------------------------------------------------- 6c. outcomes (issue 22)
say "6c. outcomes: $BENCH_REDEMPTIONS notifications carrying signed users' redemptions, then the outcomes query"
REDEEM_TICKS_BEFORE=$(cpu_ticks)
THREADS=$BENCH_THREADS BODIES=$WORK/redemptions.ndjson \
    run_wrk "$WORK/wrk-redeem.txt" -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_NOTIFY_TIMEOUT}s" --timeout 10s \
    -s "$BENCH/notify.lua" "$URL" || { cat "$WORK/wrk-redeem.txt" >&2; die "wrk failed during the redemption run"; }
cat "$WORK/wrk-redeem.txt"
REDEEM_RATE=$(wrk_value "$WORK/wrk-redeem.txt" stored_per_s)
REDEEM_STORED=$(wrk_value "$WORK/wrk-redeem.txt" stored)
REDEEM_FAILED=$(( $(wrk_value "$WORK/wrk-redeem.txt" failed) + $(socket_errors "$WORK/wrk-redeem.txt") ))
REDEEM_P99=$(wrk_value "$WORK/wrk-redeem.txt" p99_ms)
REDEEM_CPU_US=$(cpu_per_stored "$REDEEM_TICKS_BEFORE" "$(cpu_ticks)" "$WORK/wrk-redeem.txt")
MATCH_CPU_US=$(awk -v a="$REDEEM_CPU_US" -v b="$NOTIFY_CPU_US" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.0f", a - b; else print "?" }')
echo "service CPU per redemption notification: $REDEEM_CPU_US µs ($MATCH_CPU_US µs more than a notification without an offer)"
OUTCOMES_TIMES=()
# The redemptions are dated 30 minutes ahead: the period ends a day from now and starts 90 days before that.
OUTCOMES_TO=$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)
for i in 1 2 3 4 5; do
    OUTCOMES_TIMES+=("$(curl -s -o "$WORK/outcomes.json" -w '%{time_total}' --max-time 120 \
        -H "Authorization: Bearer $MARKETING_TOKEN" "$URL/v1/stats/offers/$OFFER/outcomes?to=$OUTCOMES_TO")")
done
OUTCOMES_S=$(printf '%s\n' "${OUTCOMES_TIMES[@]}" | sort -n | sed -n 3p)
cat "$WORK/outcomes.json"; echo
OUTCOMES_REDEMPTIONS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["redemptions"])' "$WORK/outcomes.json" 2>/dev/null || echo "?")
OUTCOMES_MATCHED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["matched"])' "$WORK/outcomes.json" 2>/dev/null || echo "?")
OUTCOMES_TREATED=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["treated"]["users"])' "$WORK/outcomes.json" 2>/dev/null || echo "?")
echo "GET /v1/stats/offers/$OFFER/outcomes: median of 5 ${OUTCOMES_S} s (${OUTCOMES_TIMES[*]}); $OUTCOMES_REDEMPTIONS redemptions, $OUTCOMES_MATCHED matched, $OUTCOMES_TREATED treated users"
fi

# ---------------------------------------------------------------- 7. peak RSS
say "7. peak RSS"
RSS_END=$(peak_rss_mb)
echo "VmHWM: ${RSS_AFTER_SIGN} MB after the signing load, ${RSS_END} MB after ingestion and the retention run"
stop_server
if [ "$BENCH_SIGN_ONLY" != 1 ]; then
    say "7b. offer-signer outcomes rebuild on the database the runs left"
    REBUILD_T0=$(date +%s%N)
    "$BIN" outcomes rebuild --database "$WORK/db.sqlite" 2>/dev/null || die "outcomes rebuild failed"
    REBUILD_S=$(awk -v a="$REBUILD_T0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    echo "rebuilt in $REBUILD_S s"
fi

# ---------------------------------------------------------------- 7c. the key in a hardware module (issue 27)
HSM_RPS=skipped HSM_RATIO=- HSM_P50=- HSM_P99=- HSM_FAILED=- HSM_CPU_US=-
if [ "$BENCH_PKCS11" = 1 ] && [ -e "$BENCH_PKCS11_MODULE" ]; then
    say "7c. the signing load again, the app's key in a SoftHSM2 token (PKCS#11): ${BENCH_PKCS11_DURATION} s"
    HSM_OUT=$("$BIN" dev-setup --pkcs11 --dir "$WORK/dev-hsm" --database "$WORK/db.sqlite" --listen "127.0.0.1:$BENCH_PORT") \
        || die "dev-setup --pkcs11 failed"
    SOFTHSM2_CONF=$(sed -n 's/^ *export SOFTHSM2_CONF=//p' <<<"$HSM_OUT")
    OFFER_SIGNER_DEV_PIN=$(sed -n "s/^ *export OFFER_SIGNER_DEV_PIN='\(.*\)'\$/\1/p" <<<"$HSM_OUT")
    [ -n "$SOFTHSM2_CONF" ] && [ -n "$OFFER_SIGNER_DEV_PIN" ] || die "no SOFTHSM2_CONF or PIN in dev-setup --pkcs11's output"
    export SOFTHSM2_CONF OFFER_SIGNER_DEV_PIN
    # The same keys file as before (its API tokens), with the app's signing key and the audit key in the token.
    python3 - "$WORK/dev/keys.json" "$WORK/dev-hsm/keys.json" <<'PY' || die "could not write the PKCS#11 keys file"
import json, sys
main, hsm = (json.load(open(path)) for path in sys.argv[1:3])
main["apps"][0]["signingKeys"] = hsm["apps"][0]["signingKeys"]
main["auditKey"] = hsm["auditKey"]
json.dump(main, open(sys.argv[2], "w"), indent=2)
PY
    SERVER_KEYS=$WORK/dev-hsm/keys.json start_server "$WORK/db.sqlite" "$WORK/server-hsm.log"
    echo "pid $SERVER_PID: key $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apps"][0]["signingKeys"][0]["pkcs11"])' "$WORK/dev-hsm/keys.json")"
    check_sign "bench-user-00000001"
    sign_load "$BENCH_USERS" "$BENCH_PKCS11_DURATION" "$WORK/wrk-sign-hsm.txt"
    HSM_RPS=$(wrk_value "$WORK/wrk-sign-hsm.txt" rps)
    HSM_RATIO=$(ratio "$HSM_RPS" "$SIGN_RPS")
    HSM_P50=$(wrk_value "$WORK/wrk-sign-hsm.txt" p50_ms)
    HSM_P99=$(wrk_value "$WORK/wrk-sign-hsm.txt" p99_ms)
    HSM_FAILED=$(( $(wrk_value "$WORK/wrk-sign-hsm.txt" non200) + $(socket_errors "$WORK/wrk-sign-hsm.txt") ))
    HSM_CPU_US=$SIGN_CPU_US
    stop_server
    unset SOFTHSM2_CONF OFFER_SIGNER_DEV_PIN
fi

# ---------------------------------------------------------------- optional: history size
SMALL_P99="" SMALL_RPS="" SMALL_NON2XX="" P99_RATIO=""
if [ "$BENCH_COMPARE" = 1 ]; then
    say "compare: the same signing load with $BENCH_USERS_SMALL users stored"
    "$BIN" dev-setup --dir "$WORK/dev" --database "$WORK/db-small.sqlite" --listen "127.0.0.1:$BENCH_PORT" >/dev/null
    python3 "$BENCH/seed.py" --database "$WORK/db-small.sqlite" --users "$BENCH_USERS_SMALL" \
        --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" | grep -v '^seed_seconds=' || die "seeding failed"
    start_server "$WORK/db-small.sqlite" "$WORK/server-small.log"
    echo "pid $SERVER_PID: /healthz answered after ${STARTUP_S} s"
    put_offer
    check_sign "bench-user-00000000"
    sign_load "$BENCH_USERS_SMALL" "$BENCH_DURATION" "$WORK/wrk-sign-small.txt"
    SMALL_RPS=$(wrk_value "$WORK/wrk-sign-small.txt" rps)
    SMALL_P99=$(wrk_value "$WORK/wrk-sign-small.txt" p99_ms)
    SMALL_NON2XX=$(( $(wrk_value "$WORK/wrk-sign-small.txt" non200) + $(socket_errors "$WORK/wrk-sign-small.txt") ))
    P99_RATIO=$(ratio "$SIGN_P99" "$SMALL_P99")
    stop_server
fi

# ---------------------------------------------------------------- 9-11. PostgreSQL
if [ "$BENCH_POSTGRESQL" = 1 ]; then
    # shellcheck source=bench/postgres.sh
    source "$BENCH/postgres.sh"
fi

# ---------------------------------------------------------------- 8. the table
say "8. results"
SIGN_RATIO=$(ratio "$SIGN_RPS" "$OPENSSL_SIGN" %.3f)
SIGN_FAILED=$(( SIGN_NON2XX + SIGN_SOCKET_ERRORS ))
MODEL=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no -- Sources Package.swift 2>/dev/null)" ]; then
    COMMIT="$COMMIT + local changes"
fi
fmt_users() { printf "%'d" "$1" 2>/dev/null || echo "$1"; }
N_FMT=$(fmt_users "$BENCH_USERS")

{
    echo "# offer-signer benchmark"
    echo
    echo "- machine: $(nproc) cores, ${MODEL:-unknown CPU}, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)"
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $COMMIT, $(openssl version | cut -d' ' -f1-2), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
    echo "- 1-minute load average before the signing load: $LOAD_BEFORE (anything else running on the machine lowers the figures)"
    echo "- load: wrk on the same machine, ${BENCH_CONNECTIONS} connections, ${BENCH_THREADS} threads, keep-alive;" \
         "signing ${BENCH_DURATION} s after ${BENCH_WARMUP} s of warm-up, ${N_FMT} distinct users"
    echo "- service rate limits: sign per API key $RATE_SIGN_PER_KEY, per user $RATE_SIGN_PER_USER, notifications per address $RATE_NOTIFICATIONS_PER_ADDRESS"
    echo "- history: ${N_FMT} users, 3-4 monthly renewals each, all eligible," \
         "seeded directly into SQLite in ${SEED_S} s (not through the verifier)"
    echo
    echo "| figure | value | target (issues 5, 15, 16) | met |"
    echo "| --- | ---: | --- | --- |"
    echo "| openssl speed ecdsap256, one core: sign/s | $OPENSSL_SIGN | the ceiling | |"
    echo "| openssl speed ecdsap256, one core: verify/s | $OPENSSL_VERIFY | | |"
    echo "| signing: requests/s | $SIGN_RPS | >= 15500 (issue 16) | $(meets "$SIGN_RPS" ">=" 15500) |"
    echo "| signing: ratio to the one-core openssl sign rate | $SIGN_RATIO | >= 0.3 (issue 16), 0.5 (issue 5) | $(meets "$SIGN_RATIO" ">=" 0.3) |"
    echo "| signing: p50 latency (ms) | $SIGN_P50 | | |"
    echo "| signing: p99 latency (ms) | $SIGN_P99 | <= 5 (issue 16), 10 (issue 5) | $(meets "$SIGN_P99" "<=" 5) |"
    echo "| signing: non-2xx answers | $SIGN_NON2XX | 0 | $(meets "$SIGN_NON2XX" "==" 0) |"
    echo "| signing: socket errors and timeouts | $SIGN_SOCKET_ERRORS | 0 | $(meets "$SIGN_SOCKET_ERRORS" "==" 0) |"
    echo "| signing: service CPU µs per signature | $SIGN_CPU_MAIN | | |"
    echo "| signing: of which the signature log's group-commit writer thread (inserts, hash chain, fdatasync, waking the requests) | $SIGN_WRITER_MAIN | | |"
    for row in "${STAGES[@]}"; do echo "$row"; done
    for row in "${WEBHOOK_ROWS[@]}"; do echo "$row"; done
    if [ "${#STAGES[@]}" -gt 0 ]; then
        echo "| stage 4, + the signature and its durable, hash-chained log record (the signing load): requests/s; service CPU µs per request | $SIGN_RPS; $SIGN_CPU_MAIN | | |"
    fi
    for row in "${INTRO_ROWS[@]}"; do echo "$row"; done
    if [ "$BENCH_COMPARE" = 1 ]; then
        echo "| signing with $(fmt_users "$BENCH_USERS_SMALL") users: requests/s | $SMALL_RPS | | |"
        echo "| signing with $(fmt_users "$BENCH_USERS_SMALL") users: p99 (ms) | $SMALL_P99 | | |"
        echo "| signing with $(fmt_users "$BENCH_USERS_SMALL") users: failed requests | $SMALL_NON2XX | 0 | $(meets "$SMALL_NON2XX" "==" 0) |"
        echo "| p99 ratio, ${N_FMT} users / $(fmt_users "$BENCH_USERS_SMALL") users | $P99_RATIO | <= 1.5 (1,000,000 vs 1,000) | $(meets "$P99_RATIO" "<=" 1.5) |"
    fi
    echo "| notification ingestion: verified notifications stored/s | $NOTIFY_RATE | >= 2000 | $(meets "$NOTIFY_RATE" ">=" 2000) |"
    echo "| notification ingestion: stored / failed / socket errors | $NOTIFY_STORED / $NOTIFY_FAILED / $NOTIFY_SOCKET_ERRORS | all stored | $(meets "$NOTIFY_STORED" "==" "$BENCH_NOTIFICATIONS") |"
    echo "| notification ingestion: p99 latency (ms) | $NOTIFY_P99 | | |"
    echo "| notification ingestion: service CPU µs per notification | $NOTIFY_CPU_US | | |"
    echo "| outcomes (issue 22): redemption notifications stored/s, each matched to its signature | $REDEEM_RATE | | |"
    echo "| outcomes: redemption notifications stored / failed; p99 latency (ms) | $REDEEM_STORED / $REDEEM_FAILED; $REDEEM_P99 | all stored | $(meets "$REDEEM_STORED" "==" "$BENCH_REDEMPTIONS") |"
    echo "| outcomes: service CPU µs per redemption notification; more than without an offer (the matching) | $REDEEM_CPU_US; $MATCH_CPU_US | | |"
    echo "| outcomes: \`GET /v1/stats/offers/{offerId}/outcomes\` over 90 days, median of 5 (s) | $OUTCOMES_S | | |"
    echo "| outcomes: its redemptions / matched / treated users | $OUTCOMES_REDEMPTIONS / $OUTCOMES_MATCHED / $OUTCOMES_TREATED | all matched | $(meets "$OUTCOMES_MATCHED" "==" "$BENCH_REDEMPTIONS") |"
    echo "| outcomes: \`offer-signer outcomes rebuild\` of the whole database (s) | $REBUILD_S | | |"
    echo "| retention (issue 15): requests answered/s | $RETENTION_RATE | | |"
    echo "| retention: promotional offers / other answers / failed | $RETENTION_OFFERS / $RETENTION_OTHER / $RETENTION_FAILED | all offers | $(meets "$RETENTION_OFFERS" "==" "$BENCH_RETENTION_REQUESTS") |"
    echo "| retention: p50 latency (ms) | $RETENTION_P50 | | |"
    echo "| retention: p99 latency (ms) | $RETENTION_P99 | <= 50 | $(meets "$RETENTION_P99" "<=" 50) |"
    echo "| key in a SoftHSM2 token (PKCS#11, issue 27): signing requests/s; ratio to the .p8 key's | $HSM_RPS; $HSM_RATIO | | |"
    echo "| key in a SoftHSM2 token: p50 / p99 latency (ms); service CPU µs per signature | $HSM_P50 / $HSM_P99; $HSM_CPU_US | | |"
    echo "| key in a SoftHSM2 token: failed requests | $HSM_FAILED | 0 | $(meets "$HSM_FAILED" "==" 0) |"
    echo "| peak RSS after the signing load (MB) | $RSS_AFTER_SIGN | <= 64 | $(meets "$RSS_AFTER_SIGN" "<=" 64) |"
    echo "| peak RSS at the end, after ingestion and retention (MB) | $RSS_END | <= 64 | $(meets "$RSS_END" "<=" 64) |"
    echo "| start-up until /healthz answers, ${N_FMT} users stored (s) | $MAIN_STARTUP_S | < 0.5 (1,000,000 users) | $(meets "$MAIN_STARTUP_S" "<" 0.5) |"
    echo "| start-up until /readyz answers 200 (s) | $MAIN_READY_S | | |"
    if [ "$BENCH_POSTGRESQL" = 1 ]; then
        echo "| PostgreSQL: db copy of the SQLite database ($PG_COPY_ROWS rows), seconds | $PG_COPY_S | | |"
        echo "| PostgreSQL, one instance: signing requests/s | $PG1_RPS | | |"
        echo "| PostgreSQL, one instance: ratio to SQLite's requests/s | $PG1_RATIO | >= 0.7 (issue 14) | $(meets "$PG1_RATIO" ">=" 0.7) |"
        echo "| PostgreSQL, one instance: p50 / p99 latency (ms) | $PG1_P50 / $PG1_P99 | | |"
        echo "| PostgreSQL, one instance: failed requests | $PG1_FAILED | 0 | $(meets "$PG1_FAILED" "==" 0) |"
        echo "| PostgreSQL, two instances (half the connections each): signing requests/s, both | $PG2_RPS | | |"
        echo "| PostgreSQL, two instances: p99 latency (ms), the worse instance | $PG2_P99 | | |"
        echo "| PostgreSQL, two instances: failed requests | $PG2_FAILED | 0 | $(meets "$PG2_FAILED" "==" 0) |"
        echo "| PostgreSQL: audit verify after both runs | $PG_VERIFY | OK | |"
    fi
    if [ -n "$SERVER_NOTE" ]; then
        echo
        echo "Note: $SERVER_NOTE."
    fi
} >"$RESULTS"
echo
cat "$RESULTS"
echo
echo "written to ${RESULTS#$ROOT/}"

# ---------------------------------------------------------------- experiments (issue 35)
if [ "${BENCH_EXPERIMENTS:-1}" = 1 ]; then
    say "experiments: placement inside an experiment against sign; the report over ${BENCH_ASSIGNED:-1000000} assigned users"
    BENCH_BIN=$BIN bash "$BENCH/experiments.sh" | tee -a "$RESULTS"
fi
