#!/usr/bin/env bash
# Issue 37: what one webhook subscribed to offer.signed costs per signature, in instructions under
# valgrind's callgrind (steadier than the rates on a shared host). Seeds BENCH_USERS users and
# serves them under callgrind; signs for BENCH_CALLGRIND_SECONDS s without a webhook (counters
# zeroed before, dumped after: instructions per signature without); then creates one webhook
# subscribed to offer.signed posting to bench/webhook_receiver.c (built with gcc), zeroes, signs
# as long again, waits until every event is delivered, dumps: instructions per signature with it,
# the outbox's write in the batch, the lane's claims and records, the posts and everything they
# wake included. The difference is the webhook's cost per signature (= per delivery).
# usage: bash bench/webhook-callgrind.sh NAME BINARY   (output in bench/results/tmp-callgrind/NAME)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCH=$PWD/bench
NAME=$1; BIN=$2
USERS=${BENCH_USERS:-20000}; SECS=${BENCH_CALLGRIND_SECONDS:-10}; CONN=${BENCH_CONNECTIONS:-8}
ROOTDIR=$BENCH/results/tmp-callgrind; W=$ROOTDIR/$NAME
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W"
SEED=$ROOTDIR/seed-$USERS.sqlite
if [ ! -f "$SEED" ]; then
    python3 -c "import uuid; [print(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 + 12345) % (1 << 128), version=4)) for i in range($USERS)]" >"$ROOTDIR/users-$USERS.txt"
    rm -rf "$ROOTDIR/dev"
    "$BIN" dev-setup --dir "$ROOTDIR/dev" --database "$SEED" --listen 127.0.0.1:1 >"$ROOTDIR/setup.txt"
    python3 "$BENCH/seed.py" --database "$SEED" --users "$USERS" --user-ids "$ROOTDIR/users-$USERS.txt" --bundle com.example.app \
        --product com.example.app.pro_monthly --group 21000001 >&2
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$ROOTDIR/root.key" -subj "/CN=bench root" \
        -days 7 -out "$ROOTDIR/root.pem" 2>/dev/null
fi
CLIENT=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' "$ROOTDIR/setup.txt" | head -1)
MARKETING=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' "$ROOTDIR/setup.txt" | head -1)
ADMIN=$(sed -n 's/^ *admin  *\(dev_admin_[^ ]*\).*$/\1/p' "$ROOTDIR/setup.txt" | head -1)
cp "$SEED" "$W/db.sqlite"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
RPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
gcc -O2 -Wall -o "$W/webhook_receiver" "$BENCH/webhook_receiver.c" -lmicrohttpd
"$W/webhook_receiver" "$RPORT" &
RPID=$!
OFFER_SIGNER_KEYS=$ROOTDIR/dev/keys.json OFFER_SIGNER_DATABASE=$W/db.sqlite OFFER_SIGNER_LISTEN=127.0.0.1:$PORT \
OFFER_SIGNER_APPLE_ROOTS=$ROOTDIR/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE=on \
    valgrind --tool=callgrind --callgrind-out-file="$W/callgrind.out.%p" "$BIN" serve >"$W/server.log" 2>&1 &
VPID=$!
trap 'kill -TERM $VPID $RPID 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do curl -fs --max-time 2 "$URL/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs -o /dev/null -X PUT "$URL/v1/admin/offers/bench_winback" -H "Authorization: Bearer $MARKETING" -H 'Content-Type: application/json' \
    -d '{"offerId":"bench_winback","bundleId":"com.example.app","productIds":["com.example.app.pro_monthly"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}'
export USERS_FILE=$ROOTDIR/users-$USERS.txt TOKEN=$CLIENT OFFER=bench_winback PRODUCT=com.example.app.pro_monthly
pending() {
    python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True, timeout=30)
print(db.execute("SELECT COUNT(*) FROM webhook_outbox WHERE state <> '"'delivered'"'").fetchone()[0])' "$W/db.sqlite"
}
wrk -t1 -c"$CONN" -d5s --timeout 20s -s "$BENCH/ceiling.lua" "$URL" >"$W/warm.txt" 2>&1
callgrind_control -z $VPID >/dev/null
wrk -t1 -c"$CONN" -d"${SECS}s" --timeout 20s -s "$BENCH/ceiling.lua" "$URL" >"$W/load-without.txt" 2>&1
callgrind_control -d $VPID >/dev/null
curl -fs -o /dev/null -X PUT "$URL/v1/admin/webhooks/bench" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    -d '{"url": "http://127.0.0.1:'$RPORT'/hook", "events": ["offer.signed"]}'
R0=$(curl -fs "http://127.0.0.1:$RPORT/count")
callgrind_control -z $VPID >/dev/null
wrk -t1 -c"$CONN" -d"${SECS}s" --timeout 20s -s "$BENCH/ceiling.lua" "$URL" >"$W/load-with.txt" 2>&1
for _ in $(seq 1 1200); do [ "$(pending)" = 0 ] && break; sleep 0.5; done
callgrind_control -d $VPID >/dev/null
R1=$(curl -fs "http://127.0.0.1:$RPORT/count")
sleep 2
kill -TERM $VPID; wait $VPID || true; kill -TERM $RPID; trap - EXIT
for f in load-without load-with; do
    [ "$(sed -n 's/^non200=//p' "$W/$f.txt")" = 0 ] || { echo "some answers were not 200 ($W/$f.txt)" >&2; exit 1; }
done
ir() { sed -n 's/^summary: //p; s/^totals: //p' "$1" | head -1 | awk '{ print $1 }'; }
D1=$(ls "$W"/callgrind.out.*.1 | head -1); D2=$(ls "$W"/callgrind.out.*.2 | head -1)
N1=$(sed -n 's/^requests=//p' "$W/load-without.txt"); N2=$(sed -n 's/^requests=//p' "$W/load-with.txt")
I1=$(ir "$D1"); I2=$(ir "$D2")
echo "$NAME: without a webhook $N1 signatures, $((I1 / N1)) instructions per signature; with one $N2 signatures ($((R1 - R0)) posts received), $((I2 / N2)) per signature; the webhook: $(( I2 / N2 - I1 / N1 )) per signature"
callgrind_annotate --inclusive=yes "$D2" 2>/dev/null | head -80 >"$W/with-inclusive.txt"
callgrind_annotate "$D2" 2>/dev/null | head -50 >"$W/with-self.txt"
callgrind_annotate "$D1" 2>/dev/null | head -50 >"$W/without-self.txt"
