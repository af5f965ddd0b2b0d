#!/usr/bin/env bash
# Issue 38: instructions per signature of one build under a short fixed signing load, with
# valgrind's callgrind (for hosts where perf has no hardware counters: `perf stat -e
# instructions true` says <not supported>). Seeds BENCH_USERS users (UUID-shaped, as the C
# server's), serves them under callgrind, warms up 5 s, zeroes the counters, runs the load of
# bench/ceiling.lua for BENCH_CALLGRIND_SECONDS s with BENCH_CONNECTIONS connections (one wrk
# thread), dumps, and prints instructions per signature (every thread of the process, user space).
# usage: bash bench/ceiling-callgrind.sh NAME BINARY   (output in bench/results/tmp-callgrind/NAME)
# BINARY may also be the C reference server's source (a path ending in .c, e.g.
# ../shared/bench/ceiling.c): it is built with gcc -O2 -g and run as bench/ceiling.sh runs it
# (--mode tpc --log group --sign dup --work full --nonce v7) over its own BENCH_USERS users,
# with callgrind's instrumentation off during its history's rebuild and on from the warm-up.
# Read the dump with `callgrind_annotate --inclusive=yes <dump>`; `rep stosb` is counted per byte,
# so libmicrohttpd's pool memset weighs far more in instructions than in time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCH=$PWD/bench
NAME=$1; BIN=$2
USERS=${BENCH_USERS:-20000}; SECS=${BENCH_CALLGRIND_SECONDS:-30}; CONN=${BENCH_CONNECTIONS:-8}
ROOTDIR=$BENCH/results/tmp-callgrind; W=$ROOTDIR/$NAME
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W"
SEED=$ROOTDIR/seed-$USERS.sqlite
if [[ $BIN != *.c ]] && [ ! -f "$SEED" ]; then
    python3 -c "import uuid; [print(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 12345) % (1 << 128), version=4)) for i in range($USERS)]" >"$ROOTDIR/users-$USERS.txt"
    rm -rf "$ROOTDIR/dev"
    "$BIN" dev-setup --dir "$ROOTDIR/dev" --database "$SEED" --listen 127.0.0.1:1 >"$ROOTDIR/setup.txt"
    python3 "$BENCH/seed.py" --database "$SEED" --users "$USERS" --user-ids "$ROOTDIR/users-$USERS.txt" --bundle com.example.app \
        --product com.example.app.pro_monthly --group 21000001 >&2
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$ROOTDIR/root.key" -subj "/CN=bench root" \
        -days 7 -out "$ROOTDIR/root.pem" 2>/dev/null
fi
CLIENT=ceiling-bench-token
if [[ $BIN != *.c ]]; then
    CLIENT=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' "$ROOTDIR/setup.txt" | head -1)
    MARKETING=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' "$ROOTDIR/setup.txt" | head -1)
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
USERS_LIST=$ROOTDIR/users-$USERS.txt
if [[ $BIN == *.c ]]; then
    gcc -O2 -g -Wall -o "$W/ceiling" "$BIN" -lmicrohttpd -lcrypto -lsqlite3 -lpthread
    USERS_LIST=$W/users.txt
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$W/callgrind.out.%p" "$W/ceiling" --mode tpc --log group \
        --sign dup --work full --nonce v7 --port "$PORT" --db "$W/full.sqlite" --pub "$W/pub.pem" --users "$USERS" \
        --users-file "$USERS_LIST" --token "$CLIENT" >"$W/server.log" 2>&1 &
    VPID=$!
    trap 'kill -TERM $VPID 2>/dev/null || true' EXIT
    for _ in $(seq 1 1200); do curl -fs --max-time 2 "$URL/healthz" >/dev/null 2>&1 && break; sleep 0.5; done
    callgrind_control -i on $VPID >/dev/null
else
cp "$SEED" "$W/db.sqlite"
OFFER_SIGNER_KEYS=$ROOTDIR/dev/keys.json OFFER_SIGNER_DATABASE=$W/db.sqlite OFFER_SIGNER_LISTEN=127.0.0.1:$PORT \
OFFER_SIGNER_APPLE_ROOTS=$ROOTDIR/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
    valgrind --tool=callgrind --callgrind-out-file="$W/callgrind.out.%p" "$BIN" serve >"$W/server.log" 2>&1 &
VPID=$!
trap 'kill -TERM $VPID 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do curl -fs --max-time 2 "$URL/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs -o /dev/null -X PUT "$URL/v1/admin/offers/bench_winback" -H "Authorization: Bearer $MARKETING" -H 'Content-Type: application/json' \
    -d '{"offerId":"bench_winback","bundleId":"com.example.app","productIds":["com.example.app.pro_monthly"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}'
fi
export USERS_FILE=$USERS_LIST TOKEN=$CLIENT OFFER=bench_winback PRODUCT=com.example.app.pro_monthly
wrk -t1 -c"$CONN" -d5s --timeout 20s -s "$BENCH/ceiling.lua" "$URL" >"$W/warm.txt" 2>&1
callgrind_control -z $VPID >/dev/null
wrk -t1 -c"$CONN" -d"${SECS}s" --timeout 20s -s "$BENCH/ceiling.lua" "$URL" >"$W/load.txt" 2>&1
callgrind_control -d $VPID >/dev/null
sleep 2
kill -TERM $VPID; wait $VPID || true; trap - EXIT
[ "$(sed -n 's/^non200=//p' "$W/load.txt")" = 0 ] || { echo "some answers were not 200 ($W/load.txt)" >&2; exit 1; }
DUMP=$(ls "$W"/callgrind.out.*.1 | head -1)
N=$(sed -n 's/^requests=//p' "$W/load.txt")
IR=$(sed -n 's/^summary: //p; s/^totals: //p' "$DUMP" | head -1 | awk '{ print $1 }')
echo "$NAME: $N signatures, $IR instructions, $((IR / N)) per signature ($DUMP)"
