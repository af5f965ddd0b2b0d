#!/usr/bin/env bash
# Issue 38 on PostgreSQL: the signing load of bench/ceiling.sh against builds of the service on
# PostgreSQL, alternated round after round (no C server: it has no PostgreSQL mode; the figure
# is each build against the first, BENCH_CEILING_BINS="A=… B=…" as in ceiling.sh). A throwaway
# cluster as bench/postgres.sh makes it (initdb as the `postgres` user when run as root, fsync
# and synchronous_commit on), one database per build filled by `offer-signer db copy` from one
# seeded SQLite database (BENCH_USERS users, UUID-shaped like the C server's), one instance per
# build; BENCH_WARMUP s + BENCH_CEILING_DURATION s per load, BENCH_CONNECTIONS connections.
# Writes bench/results/ceiling-postgres.md.
# BENCH_CEILING_WEBHOOK=1 (issue 37): each build's load runs twice a round, without a webhook and
# then with one subscribed to offer.signed posting to bench/webhook_receiver.c (built with gcc; the
# webhook is deleted once its outbox is drained); the ratio is then each build's with ÷ without.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BENCH=$ROOT/bench
BINS=${BENCH_CEILING_BINS:-service=${BENCH_BIN:-$ROOT/.build/release/offer-signer}}
USERS=${BENCH_USERS:-100000}
ROUNDS=${BENCH_CEILING_ROUNDS:-3}
DURATION=${BENCH_CEILING_DURATION:-10}
WARMUP=${BENCH_WARMUP:-3}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-2}
WEBHOOK=${BENCH_CEILING_WEBHOOK:-0}
WORK=$BENCH/results/tmp-ceiling-pg
OUT=$BENCH/results/ceiling-postgres.md
OFFER=bench_winback
BUNDLE=com.example.app
PRODUCT=com.example.app.pro_monthly
GROUP=21000001

die() { printf 'bench/ceiling-postgres: %s\n' "$*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }
for tool in wrk python3 curl; do command -v "$tool" >/dev/null || die "$tool is missing (make bench-deps installs it)"; done
PG_BIN=$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/initdb" ] || die "PostgreSQL's server is missing (make bench-deps installs postgresql)"
NAMES=()
declare -A BIN_OF PID_OF URL_OF DB_OF
for pair in $BINS; do
    name=${pair%%=*}; path=${pair#*=}
    [ -x "$path" ] || die "$path ($name) is missing"
    NAMES+=("$name"); BIN_OF[$name]=$path
done

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
value() { sed -n "s/^$2=//p" "$1" | tail -1; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
PG_DIR=$WORK/pg
cleanup() {
    local name
    for name in "${!PID_OF[@]}"; do kill -TERM "${PID_OF[$name]}" 2>/dev/null || true; done
    for name in "${!PID_OF[@]}"; do wait "${PID_OF[$name]}" 2>/dev/null || true; done
    [ -n "${RECEIVER_PID:-}" ] && kill -TERM "$RECEIVER_PID" 2>/dev/null || true
    [ -f "$PG_DIR/data/postmaster.pid" ] && as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$WORK"
mkdir -p "$WORK" "$PG_DIR"
[ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
FIRST=${NAMES[0]}
SETUP_OUT=$("${BIN_OF[$FIRST]}" dev-setup --dir "$WORK/dev" --database "$WORK/seed.sqlite" --listen "127.0.0.1:1")
CLIENT_TOKEN=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
MARKETING_TOKEN=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
ADMIN_TOKEN=$(sed -n 's/^ *admin  *\(dev_admin_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
[ -n "$CLIENT_TOKEN" ] && [ -n "$MARKETING_TOKEN" ] || die "no client or marketing token in dev-setup's output"
if [ "$WEBHOOK" = 1 ]; then
    [ -n "$ADMIN_TOKEN" ] || die "no admin token in dev-setup's output"
    gcc -O2 -Wall -o "$WORK/webhook_receiver" "$BENCH/webhook_receiver.c" -lmicrohttpd || die "could not build the webhook receiver"
    RECEIVER_PORT=$(free_port)
    "$WORK/webhook_receiver" "$RECEIVER_PORT" &
    RECEIVER_PID=$!
fi
python3 -c "import uuid; [print(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 12345) % (1 << 128), version=4)) for i in range($USERS)]" >"$WORK/users.txt"
python3 "$BENCH/seed.py" --database "$WORK/seed.sqlite" --users "$USERS" --user-ids "$WORK/users.txt" --bundle "$BUNDLE" \
    --product "$PRODUCT" --group "$GROUP" >&2 || die "seeding failed"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/root.key" -subj "/CN=offer-signer bench root" \
    -days 7 -out "$WORK/root.pem" 2>/dev/null || die "could not make a root certificate"

PG_PORT=$(free_port)
as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U bench -A trust -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB" start \
    >"$PG_DIR/pg_ctl.log" 2>&1 || { cat "$PG_DIR/pg_ctl.log" "$PG_DIR/server.log" >&2; die "the PostgreSQL server did not start"; }
PG_VERSION=$("$PG_BIN/postgres" --version | awk '{ print $3 }')
for name in "${NAMES[@]}"; do
    db=bench_$(tr -c 'a-zA-Z0-9\n' _ <<<"$name" | tr 'A-Z' 'a-z')
    as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U bench "$db" || die "createdb failed"
    url=postgresql://bench@127.0.0.1:$PG_PORT/$db
    "${BIN_OF[$name]}" db copy --from "$WORK/seed.sqlite" --to "$url" >"$WORK/copy-$name.txt" 2>&1 || { cat "$WORK/copy-$name.txt" >&2; die "db copy failed"; }
    # The copy's rows vacuumed, analysed and checkpointed now, not by autovacuum and the
    # checkpointer during a load (the first run's rates moved 773–3,753/s without this).
    as_pg "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U bench -d "$db" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null \
        || die "VACUUM ANALYZE failed"
    port=$(free_port)
    URL_OF[$name]=http://127.0.0.1:$port
    DB_OF[$name]=$db
    OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$url OFFER_SIGNER_LISTEN=127.0.0.1:$port \
    OFFER_SIGNER_APPLE_ROOTS=$WORK/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
    OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
    OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE=$([ "$WEBHOOK" = 1 ] && echo on || echo off) \
        "${BIN_OF[$name]}" serve >"$WORK/server-$name.log" 2>&1 &
    PID_OF[$name]=$!
    for _ in $(seq 1 600); do curl -fs --max-time 1 "${URL_OF[$name]}/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
    curl -fs --max-time 1 "${URL_OF[$name]}/readyz" >/dev/null || { cat "$WORK/server-$name.log" >&2; die "$name did not become ready"; }
    status=$(curl -s -o "$WORK/offer-$name.json" -w '%{http_code}' --max-time 10 -X PUT "${URL_OF[$name]}/v1/admin/offers/$OFFER" \
        -H "Authorization: Bearer $MARKETING_TOKEN" -H 'Content-Type: application/json' \
        -d '{"offerId":"'$OFFER'","bundleId":"'$BUNDLE'","productIds":["'$PRODUCT'"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}')
    case $status in 200|201) ;; *) cat "$WORK/offer-$name.json" >&2; die "$name: PUT offer answered $status" ;; esac
done

sync
ROWS=()
declare -A SUM_RPS SUM_RATIO P99S CPUS
log "PostgreSQL $PG_VERSION; rounds: $ROUNDS; each: ${NAMES[*]}; ${WARMUP} s warm-up + ${DURATION} s, $CONNECTIONS connections, $USERS users"
# The outbox rows of build $1 not delivered yet.
undelivered() {
    as_pg "$PG_BIN/psql" -qtA -h 127.0.0.1 -p "$PG_PORT" -U bench -d "${DB_OF[$1]}" -c "SELECT count(*) FROM webhook_outbox WHERE state <> 'delivered'"
}
MODES=(without); [ "$WEBHOOK" = 1 ] && MODES+=(with)
for ROUND in $(seq 1 "$ROUNDS"); do
    for name in "${NAMES[@]}"; do
      for mode in "${MODES[@]}"; do
        label=$name; [ "$mode" = with ] && label=$name+webhook
        url=${URL_OF[$name]} pid=${PID_OF[$name]} out=$WORK/$label.round$ROUND
        if [ "$mode" = with ]; then
            status=$(curl -s -o "$out.put" -w '%{http_code}' --max-time 10 -X PUT "$url/v1/admin/webhooks/bench" \
                -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
                -d '{"url": "http://127.0.0.1:'"$RECEIVER_PORT"'/hook", "events": ["offer.signed"]}')
            case $status in 200|201) ;; *) cat "$out.put" >&2; die "$name: PUT webhook answered $status" ;; esac
        fi
        export USERS_FILE=$WORK/users.txt TOKEN=$CLIENT_TOKEN OFFER PRODUCT USERS
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" --timeout 10s -s "$BENCH/ceiling.lua" "$url" >"$out.warmup" 2>&1 || die "wrk failed ($label warm-up)"
        before=$(ticks "$pid")
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s "$BENCH/ceiling.lua" "$url" >"$out" 2>&1 || die "wrk failed ($label)"
        cpu=$(awk -v a="$before" -v b="$(ticks "$pid")" -v n="$(value "$out" requests)" -v hz="$(getconf CLK_TCK)" \
            'BEGIN { if (n + 0 > 0) printf "%.0f", (b - a) * 1e6 / hz / n; else print "?" }')
        [ "$(value "$out" non200)" = 0 ] || die "$label: some answers were not 200 ($out)"
        rps=$(value "$out" rps) p50=$(value "$out" p50_ms) p99=$(value "$out" p99_ms)
        if [ "$mode" = with ]; then
            # Drained before the webhook goes (its rows would go with it), and before the next load.
            started=$(date +%s)
            for _ in $(seq 1 600); do [ "$(undelivered "$name")" = 0 ] && break; sleep 0.5; done
            [ "$(undelivered "$name")" = 0 ] || die "$label: the outbox did not drain"
            drained=$(( $(date +%s) - started ))
            curl -fs -o /dev/null --max-time 10 -X DELETE "$url/v1/admin/webhooks/bench" -H "Authorization: Bearer $ADMIN_TOKEN" \
                || die "$name: DELETE webhook failed"
            ratio=$(awk -v a="$rps" -v b="$WITHOUT_RPS" 'BEGIN { printf "%.2f", a / b }')
            log "round $ROUND: $label drained in $drained s after the load"
        else
            [ "$name" = "$FIRST" ] && FIRST_RPS=$rps
            WITHOUT_RPS=$rps
            ratio=$(awk -v a="$rps" -v b="$FIRST_RPS" 'BEGIN { printf "%.2f", a / b }')
        fi
        ROWS+=("| $ROUND | $label | $rps | $p50 | $p99 | $cpu | $ratio |")
        SUM_RPS[$label]=$(awk -v a="${SUM_RPS[$label]:-0}" -v b="$rps" 'BEGIN { print a + b }')
        SUM_RATIO[$label]=$(awk -v a="${SUM_RATIO[$label]:-0}" -v b="$ratio" 'BEGIN { print a + b }')
        P99S[$label]="${P99S[$label]:-}${P99S[$label]:+, }$p99"; CPUS[$label]="${CPUS[$label]:-}${CPUS[$label]:+, }$cpu"
        log "round $ROUND: $label $rps/s (${ratio}x $([ "$mode" = with ] && echo "$name without" || echo "$FIRST")), p99 $p99 ms, $cpu µs CPU per signature (the service alone; PostgreSQL's own processes not counted)"
      done
    done
done
{
    echo
    echo "## The service on PostgreSQL, builds alternated (issue 38)"
    echo
    echo "\`bash bench/ceiling-postgres.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)), PostgreSQL $PG_VERSION"
    echo "on the same host (fsync and synchronous_commit on): $ROUNDS rounds of ${WARMUP} s warm-up + ${DURATION} s measured each, $CONNECTIONS"
    echo "connections, $THREADS wrk threads, $USERS users; CPU is the service's process alone."
    [ "$WEBHOOK" = 1 ] && echo "NAME+webhook: the same instance with one webhook subscribed to offer.signed (C receiver); its ratio is to NAME's run just before."
    echo
    echo "| round | build | signatures/s | p50 ms | p99 ms | service CPU µs per signature | ratio to $FIRST |"
    echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "| build | mean signatures/s | mean ratio to $FIRST | p99s ms | CPU µs per signature | peak RSS MB |"
    echo "| --- | ---: | ---: | --- | --- | ---: |"
    LABELS=(); for name in "${NAMES[@]}"; do LABELS+=("$name"); [ "$WEBHOOK" = 1 ] && LABELS+=("$name+webhook"); done
    for label in "${LABELS[@]}"; do
        name=${label%+webhook}
        rss=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/${PID_OF[$name]}/status" 2>/dev/null || echo "?")
        echo "| $label | $(awk -v s="${SUM_RPS[$label]}" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }') | $(awk -v s="${SUM_RATIO[$label]}" -v n="$ROUNDS" 'BEGIN { printf "%.2f", s / n }') | ${P99S[$label]} | ${CPUS[$label]} | $rss |"
    done
} | tee "$OUT"
