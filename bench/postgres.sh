# The PostgreSQL part of the benchmark (issue 14), sourced by bench/run.sh when
# BENCH_POSTGRESQL=1 (the default), after the SQLite figures: it uses run.sh's variables and
# helpers. A throwaway cluster (initdb into bench/results/tmp/pg, as the `postgres` user when
# run as root, 127.0.0.1 on a free port, fsync and synchronous_commit on as in production)
# receives the SQLite database as the SQLite run left it (`offer-signer db copy`), then:
#   - one instance: the same signing load as the SQLite run (wrk, BENCH_CONNECTIONS connections);
#   - two instances on the same database: two wrk processes at once, each with half the
#     connections and one thread, one per instance (what a round-robin load balancer does).
# The cluster is stopped at the end, also when the run fails.

PG_DIR=$WORK/pg
PG_PID_FILE=$PG_DIR/data/postmaster.pid
PG_BIN=$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/initdb" ] || die "PostgreSQL's server is missing (make bench-deps installs postgresql)"

# as_pg COMMAND...: runs a PostgreSQL tool as an unprivileged user (PostgreSQL refuses root).
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_stop() {
    [ -f "$PG_PID_FILE" ] || return 0
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
}

PG_INSTANCE_PIDS=()
pg_cleanup() {
    local pid
    for pid in "${PG_INSTANCE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PG_INSTANCE_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PG_INSTANCE_PIDS=()
    pg_stop
}
trap 'pg_cleanup; cleanup' EXIT

# pg_serve PORT LOG: starts an instance on the PostgreSQL database and waits for /readyz.
pg_serve() {
    local port=$1 log=$2 pid deadline
    OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$PG_URL OFFER_SIGNER_LISTEN=127.0.0.1:$port \
    OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem OFFER_SIGNER_ENVIRONMENTS=Production,Sandbox OFFER_SIGNER_LOG_LEVEL=error \
    OFFER_SIGNER_RATE_SIGN_PER_KEY=$RATE_SIGN_PER_KEY OFFER_SIGNER_RATE_SIGN_PER_USER=$RATE_SIGN_PER_USER \
    OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=$RATE_NOTIFICATIONS_PER_ADDRESS \
        "$BIN" serve >"$log" 2>&1 &
    pid=$!
    PG_INSTANCE_PIDS+=("$pid")
    deadline=$(( $(date +%s) + STARTUP_LIMIT_S ))
    until curl -fs --max-time 1 "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "the PostgreSQL instance exited during start-up"; }
        [ "$(date +%s)" -lt "$deadline" ] || die "the PostgreSQL instance did not become ready within ${STARTUP_LIMIT_S} s"
        sleep 0.02
    done
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

say "9. PostgreSQL: a throwaway cluster, the SQLite database copied into it"
rm -rf "$PG_DIR"
mkdir -p "$PG_DIR"
[ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
PG_PORT=$(free_port)
as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U bench -A trust -E UTF8 --locale=C >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=100 -c shared_buffers=256MB" start \
    >"$PG_DIR/pg_ctl.log" 2>&1 || { cat "$PG_DIR/pg_ctl.log" "$PG_DIR/server.log" >&2; die "the PostgreSQL server did not start"; }
as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U bench bench || die "createdb failed"
PG_URL=postgresql://bench@127.0.0.1:$PG_PORT/bench
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') on 127.0.0.1:$PG_PORT, fsync on, synchronous_commit on"
t0=$(date +%s%N)
"$BIN" db copy --from "$WORK/db.sqlite" --to "$PG_URL" 2>"$PG_DIR/copy-progress.log" | tee "$PG_DIR/copy.txt" \
    || die "db copy into PostgreSQL failed"
PG_COPY_S=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
PG_COPY_ROWS=$(awk '/rows$/ { s += $2 } END { print s + 0 }' "$PG_DIR/copy.txt")
echo "copied $PG_COPY_ROWS rows in ${PG_COPY_S} s (offer-signer db copy, chain verified)"

say "10. PostgreSQL, one instance: the signing load of step 5"
PG_PORT_A=$(free_port)
pg_serve "$PG_PORT_A" "$WORK/server-pg-a.log"
URL=http://127.0.0.1:$PG_PORT_A
put_offer
check_sign "bench-user-00000001"
sign_load "$BENCH_USERS" "$BENCH_DURATION" "$WORK/wrk-sign-pg1.txt"
PG1_RPS=$(wrk_value "$WORK/wrk-sign-pg1.txt" rps)
PG1_P50=$(wrk_value "$WORK/wrk-sign-pg1.txt" p50_ms)
PG1_P99=$(wrk_value "$WORK/wrk-sign-pg1.txt" p99_ms)
PG1_FAILED=$(( $(wrk_value "$WORK/wrk-sign-pg1.txt" non200) + $(socket_errors "$WORK/wrk-sign-pg1.txt") ))
PG1_RATIO=$(ratio "$PG1_RPS" "$SIGN_RPS")

say "11. PostgreSQL, two instances on the same database: half the connections each"
PG_PORT_B=$(free_port)
pg_serve "$PG_PORT_B" "$WORK/server-pg-b.log"
HALF=$(( BENCH_CONNECTIONS / 2 > 0 ? BENCH_CONNECTIONS / 2 : 1 ))
WARMUPS=()
for port in "$PG_PORT_A" "$PG_PORT_B"; do
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$BENCH_USERS \
        wrk -t1 -c"$HALF" -d"${BENCH_WARMUP}s" --timeout 10s -s "$BENCH/sign.lua" "http://127.0.0.1:$port" >/dev/null 2>&1 &
    WARMUPS+=("$!")
done
echo "warm-up: ${BENCH_WARMUP} s on both"
wait "${WARMUPS[@]}" || die "wrk failed during the warm-up"
echo "measured: ${BENCH_DURATION} s, ${HALF} connections to each instance (two wrk processes, one thread each)"
TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$BENCH_USERS \
    wrk -t1 -c"$HALF" -d"${BENCH_DURATION}s" --timeout 10s -s "$BENCH/sign.lua" "http://127.0.0.1:$PG_PORT_A" >"$WORK/wrk-sign-pg2a.txt" 2>&1 &
WRK_A=$!
TOKEN=$CLIENT_TOKEN OFFER=$OFFER PRODUCT=$PRODUCT USERS=$BENCH_USERS \
    wrk -t1 -c"$HALF" -d"${BENCH_DURATION}s" --timeout 10s -s "$BENCH/sign.lua" "http://127.0.0.1:$PG_PORT_B" >"$WORK/wrk-sign-pg2b.txt" 2>&1 &
WRK_B=$!
wait "$WRK_A" || die "wrk failed (instance A)"
wait "$WRK_B" || die "wrk failed (instance B)"
cat "$WORK/wrk-sign-pg2a.txt" "$WORK/wrk-sign-pg2b.txt"
PG2_RPS=$(awk -v a="$(wrk_value "$WORK/wrk-sign-pg2a.txt" rps)" -v b="$(wrk_value "$WORK/wrk-sign-pg2b.txt" rps)" 'BEGIN { printf "%.1f", a + b }')
PG2_P99=$(awk -v a="$(wrk_value "$WORK/wrk-sign-pg2a.txt" p99_ms)" -v b="$(wrk_value "$WORK/wrk-sign-pg2b.txt" p99_ms)" 'BEGIN { printf "%.3f", (a > b ? a : b) }')
PG2_FAILED=$(( $(wrk_value "$WORK/wrk-sign-pg2a.txt" non200) + $(wrk_value "$WORK/wrk-sign-pg2b.txt" non200) \
    + $(socket_errors "$WORK/wrk-sign-pg2a.txt") + $(socket_errors "$WORK/wrk-sign-pg2b.txt") ))
PG_VERIFY=$(OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem "$BIN" audit verify --database "$PG_URL" 2>&1 | tail -1)
echo "audit verify on PostgreSQL after both runs: $PG_VERIFY"
pg_cleanup
