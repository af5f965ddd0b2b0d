#!/usr/bin/env bash
# Issue 35: instructions per request of POST /v1/offers/placement against POST /v1/offers/sign,
# with valgrind's callgrind (for hosts where perf has no hardware counters), in fixed phases.
# The set-up is bench/experiments.sh's (BENCH_USERS seeded users, the bench offer, its
# placement and the running experiment whose every user is drawn into the offer's arm), made
# once by the first build named; each build then serves its own copy under callgrind and gets,
# after a short warm-up (outside the counts), BENCH_CALLGRIND_REQUESTS requests per phase over
# BENCH_CONNECTIONS keep-alive connections, a different user per request, the counters zeroed
# and dumped between phases with callgrind_control:
#   sign           POST /v1/offers/sign, users 0..N-1
#   placement-new  POST /v1/offers/placement, users 10,000..10,000+N-1 (none assigned yet)
#   placement-assigned  the same users again (assigned and signed)
#   sign-again     users 0..N-1 again (drift check)
# Prints instructions per request (every thread of the process: the request's, the signature
# log's writer, the checkpointer) per phase and build.
# usage: bash bench/experiments-callgrind.sh NAME=BINARY [NAME=BINARY ...]   (name the oldest build first)
# output in bench/results/tmp-experiments-callgrind/NAME: dumps cg.out.1 .. cg.out.4, one per phase.
# Read a dump with `callgrind_annotate --inclusive=yes <dump>` (counts are for the phase's N requests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BENCH=$PWD/bench
USERS=${BENCH_USERS:-100000}; N=${BENCH_CALLGRIND_REQUESTS:-1000}; CONN=${BENCH_CONNECTIONS:-8}
ROOTDIR=$BENCH/results/tmp-experiments-callgrind; SETUP=$ROOTDIR/setup
OFFER=bench_winback; BUNDLE=com.example.app; PRODUCT=com.example.app.pro_monthly; GROUP=21000001
[ $# -ge 1 ] || { echo "usage: $0 NAME=BINARY [NAME=BINARY ...]" >&2; exit 2; }
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 1 1200); do curl -fs --max-time 2 "$1/readyz" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
SERVER_PID=""
trap '[ -z "$SERVER_PID" ] || kill -TERM $SERVER_PID 2>/dev/null || true' EXIT
# serve BINARY DATABASE PORT [valgrind args...]: the service over the set-up's keys and roots.
serve() {
    local bin=$1 db=$2 port=$3; shift 3
    OFFER_SIGNER_KEYS=$SETUP/dev/keys.json OFFER_SIGNER_DATABASE=$db OFFER_SIGNER_LISTEN=127.0.0.1:$port \
    OFFER_SIGNER_APPLE_ROOTS=$SETUP/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
    OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
        "$@" "$bin" serve >>"$(dirname "$db")/server.log" 2>&1 &
    SERVER_PID=$!
}

# The set-up, made by the first build (as bench/experiments.sh makes it).
FIRST=${1#*=}
rm -rf "$ROOTDIR"; mkdir -p "$SETUP"
PORT=$(free_port); URL=http://127.0.0.1:$PORT
SETUP_OUT=$("$FIRST" dev-setup --dir "$SETUP/dev" --database "$SETUP/db.sqlite" --listen "127.0.0.1:$PORT")
CLIENT=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
MARKETING=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
echo "$CLIENT" >"$SETUP/client.token"
python3 "$BENCH/seed.py" --database "$SETUP/db.sqlite" --users "$USERS" --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" >&2
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$SETUP/root.key" -subj "/CN=offer-signer bench root" \
    -days 7 -out "$SETUP/root.pem" 2>/dev/null
serve "$FIRST" "$SETUP/db.sqlite" "$PORT"
wait_ready "$URL" || { echo "the set-up's server did not start" >&2; exit 1; }
api() {
    curl -fs -o /dev/null --max-time 30 -X "$1" "$URL$2" -H "Authorization: Bearer $MARKETING" -H 'Content-Type: application/json' \
        ${3:+-d "$3"} || { echo "$1 $2 failed" >&2; exit 1; }
}
api PUT "/v1/admin/offers/$OFFER" '{"offerId":"'$OFFER'","bundleId":"'$BUNDLE'","productIds":["'$PRODUCT'"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}'
api PUT /v1/admin/placements/bench_placement '{"bundleId":"'$BUNDLE'","offerIds":["'$OFFER'"]}'
api PUT /v1/admin/experiments/bench_experiment '{"bundleId":"'$BUNDLE'","placement":"bench_placement","metric":"retained","horizonDays":30,"arms":[{"armId":"control","offerId":null,"weight":0},{"armId":"treatment","offerId":"'$OFFER'","weight":1}]}'
api POST "/v1/admin/experiments/bench_experiment/start?bundleId=$BUNDLE"
kill -TERM $SERVER_PID; wait $SERVER_PID || true; SERVER_PID=""

# drive KIND FIRST_USER COUNT: COUNT requests over CONN keep-alive connections, users FIRST_USER.. (each once).
drive() {
    python3 - "$URL" "$CLIENT" "$1" "$2" "$3" "$CONN" "$PRODUCT" "$OFFER" <<'EOF'
import http.client, sys, threading
url, token, kind, start, count, conns, product, offer = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8]
host, port = url.split("//")[1].split(":")
lock = threading.Lock(); state = {"next": start, "bad": 0}
def work():
    c = http.client.HTTPConnection(host, int(port), timeout=600)
    while True:
        with lock:
            i = state["next"]
            if i >= start + count: break
            state["next"] += 1
        user = "bench-user-%08d" % i
        if kind == "sign":
            path, body = "/v1/offers/sign", '{"productId":"%s","offerId":"%s","userId":"%s"}' % (product, offer, user)
        else:
            path, body = "/v1/offers/placement", '{"productId":"%s","placement":"bench_placement","userId":"%s"}' % (product, user)
        c.request("POST", path, body, {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        r = c.getresponse(); r.read()
        if r.status != 200:
            with lock: state["bad"] += 1
threads = [threading.Thread(target=work) for _ in range(conns)]
[t.start() for t in threads]; [t.join() for t in threads]
if state["bad"]: sys.exit("%s: %d answers were not 200" % (kind, state["bad"]))
EOF
}

PHASES=(sign placement-new placement-assigned sign-again)
declare -A RESULT=()
NAMES=()
for build in "$@"; do
    NAME=${build%%=*}; BIN=${build#*=}; NAMES+=("$NAME")
    W=$ROOTDIR/$NAME; mkdir -p "$W"
    cp "$SETUP/db.sqlite" "$W/db.sqlite"; [ ! -e "$SETUP/db.sqlite-wal" ] || cp "$SETUP/db.sqlite-wal" "$W/db.sqlite-wal"
    OFFER_SIGNER_DATABASE=$W/db.sqlite "$BIN" db migrate >"$W/migrate.log" 2>&1
    PORT=$(free_port); URL=http://127.0.0.1:$PORT
    serve "$BIN" "$W/db.sqlite" "$PORT" valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" --dump-instr=no
    wait_ready "$URL" || { echo "$NAME: the server did not start under callgrind" >&2; exit 1; }
    # Warm-up outside the counts: users 90,000.. signed, assigned, then asked again.
    drive sign 90000 300; drive placement 90000 300; drive placement 90000 300
    callgrind_control -z $SERVER_PID >/dev/null 2>&1
    drive sign 0 "$N"; callgrind_control -d sign $SERVER_PID >/dev/null 2>&1
    drive placement 10000 "$N"; callgrind_control -d placement-new $SERVER_PID >/dev/null 2>&1
    drive placement 10000 "$N"; callgrind_control -d placement-assigned $SERVER_PID >/dev/null 2>&1
    drive sign 0 "$N"; callgrind_control -d sign-again $SERVER_PID >/dev/null 2>&1
    kill -TERM $SERVER_PID; wait $SERVER_PID || true; SERVER_PID=""
    for i in 1 2 3 4; do
        IR=$(sed -n 's/^summary: //p; s/^totals: //p' "$W/cg.out.$i" | head -1 | awk '{ print $1 }')
        RESULT[$NAME,$i]=$((IR / N))
    done
done
printf '%-12s' build; for p in "${PHASES[@]}"; do printf ' %20s' "$p"; done; printf '   (instructions per request, %d requests a phase)\n' "$N"
for NAME in "${NAMES[@]}"; do
    printf '%-12s' "$NAME"
    for i in 1 2 3 4; do
        v=${RESULT[$NAME,$i]}; s=${RESULT[$NAME,1]}
        if [ "$i" = 2 ] || [ "$i" = 3 ]; then printf ' %11d (%+5.1f %%)' "$v" "$(awk -v a="$v" -v b="$s" 'BEGIN { print (a / b - 1) * 100 }')"
        else printf ' %20d' "$v"; fi
    done
    printf '\n'
done
