#!/usr/bin/env bash
# The experiments' benchmark (issue 35): POST /v1/offers/placement inside a running experiment
# against POST /v1/offers/sign (target >= 0.9x its rate), and the experiment report over
# BENCH_ASSIGNED (1,000,000) assigned users (target < 2 s). `make bench` runs it after the
# main benchmark; alone: `bash bench/experiments.sh` after `swift build -c release`.
# Prints a Markdown section on standard output.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BIN=${BENCH_BIN:-$ROOT/.build/release/offer-signer}
BENCH=$ROOT/bench
BENCH_USERS=${BENCH_USERS:-100000}
BENCH_DURATION=${BENCH_EXPERIMENT_DURATION:-10}   # seconds of each measured load
BENCH_WARMUP=${BENCH_WARMUP:-3}
BENCH_CONNECTIONS=${BENCH_CONNECTIONS:-32}
BENCH_THREADS=${BENCH_THREADS:-2}
BENCH_ASSIGNED=${BENCH_ASSIGNED:-1000000}
WORK=$BENCH/results/tmp-experiments
OFFER=bench_winback
BUNDLE=com.example.app
PRODUCT=com.example.app.pro_monthly
GROUP=21000001

die() { printf 'bench/experiments: %s\n' "$*" >&2; exit 1; }
log() { printf '%s\n' "$*" >&2; }
for tool in wrk python3 curl; do command -v "$tool" >/dev/null || die "$tool is missing"; done
[ -x "$BIN" ] || die "$BIN is missing: run 'swift build -c release' first"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT

SERVER_PID=""
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
trap stop_server EXIT

rm -rf "$WORK"
mkdir -p "$WORK"
SETUP_OUT=$("$BIN" dev-setup --dir "$WORK/dev" --database "$WORK/db.sqlite" --listen "127.0.0.1:$PORT")
CLIENT_TOKEN=$(sed -n 's/^ *client  *\(dev_client_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
MARKETING_TOKEN=$(sed -n 's/^ *marketing  *\(dev_marketing_[^ ]*\).*$/\1/p' <<<"$SETUP_OUT" | head -1)
[ -n "$CLIENT_TOKEN" ] && [ -n "$MARKETING_TOKEN" ] || die "no client or marketing token in dev-setup's output"
python3 "$BENCH/seed.py" --database "$WORK/db.sqlite" --users "$BENCH_USERS" --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" >&2 \
    || die "seeding failed"
mkdir -p "$WORK/chain"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/chain/root.key" -subj "/CN=offer-signer bench root" \
    -days 7 -out "$WORK/chain/root.pem" 2>/dev/null || die "could not make a root certificate"
sync

OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$WORK/db.sqlite OFFER_SIGNER_LISTEN=127.0.0.1:$PORT \
OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
    "$BIN" serve >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 600); do curl -fs --max-time 1 "$URL/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
curl -fs --max-time 1 "$URL/readyz" >/dev/null || die "the server did not become ready"

# api METHOD PATH BODY: a marketing call that must answer 200 or 201.
api() {
    local status
    status=$(curl -s -o "$WORK/api.json" -w '%{http_code}' --max-time 30 -X "$1" "$URL$2" \
        -H "Authorization: Bearer $MARKETING_TOKEN" -H 'Content-Type: application/json' ${3:+-d "$3"})
    case $status in 200|201) ;; *) cat "$WORK/api.json" >&2; die "$1 $2 answered $status" ;; esac
}
api PUT "/v1/admin/offers/$OFFER" '{"offerId":"'$OFFER'","bundleId":"'$BUNDLE'","productIds":["'$PRODUCT'"],"eligibility":{"requireLapsed":true,"minPaidDays":30,"minDaysSinceExpiry":30,"maxDaysSinceExpiry":730,"excludeRefunded":true,"storefronts":["USA"]}}'
for placement in bench_placement bench_report_placement; do
    api PUT "/v1/admin/placements/$placement" '{"bundleId":"'$BUNDLE'","offerIds":["'$OFFER'"]}'
done
# Every user is drawn into the arm of the bench offer (the control's weight is 0), so every
# placement request is judged and signed as a sign request is, plus the assignment's read and write.
api PUT /v1/admin/experiments/bench_experiment '{"bundleId":"'$BUNDLE'","placement":"bench_placement","metric":"retained","horizonDays":30,"arms":[{"armId":"control","offerId":null,"weight":0},{"armId":"treatment","offerId":"'$OFFER'","weight":1}]}'
api POST "/v1/admin/experiments/bench_experiment/start?bundleId=$BUNDLE"
api PUT /v1/admin/experiments/bench_report '{"bundleId":"'$BUNDLE'","placement":"bench_report_placement","metric":"retained","horizonDays":30,"arms":[{"armId":"control","offerId":null,"weight":1},{"armId":"treatment","offerId":"'$OFFER'","weight":1}]}'
api POST "/v1/admin/experiments/bench_report/start?bundleId=$BUNDLE"

value() { sed -n "s/^$2=//p" "$1" | tail -1; }
# load SCRIPT NAME: warm-up, then BENCH_DURATION seconds; prints requests/s.
load() {
    local script=$1 name=$2
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PLACEMENT=bench_placement PRODUCT=$PRODUCT USERS=$BENCH_USERS \
        wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_WARMUP}s" --timeout 10s -s "$BENCH/$script" "$URL" >"$WORK/$name.warmup" 2>&1 \
        || die "wrk failed ($name warm-up)"
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PLACEMENT=bench_placement PRODUCT=$PRODUCT USERS=$BENCH_USERS \
        wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_DURATION}s" --timeout 10s -s "$BENCH/$script" "$URL" >"$WORK/$name.txt" 2>&1 \
        || die "wrk failed ($name)"
    [ "$(value "$WORK/$name.txt" non200)" = 0 ] || die "$name: some answers were not 200 ($WORK/$name.txt)"
    value "$WORK/$name.txt" rps
}
log "sign, then placement, then sign and placement again (${BENCH_DURATION} s each, ${BENCH_CONNECTIONS} connections)"
SIGN1=$(load sign.lua sign1); PLACE1=$(load placement.lua place1)
SIGN2=$(load sign.lua sign2); PLACE2=$(load placement.lua place2)
ASSIGNED_BY_LOAD=$(curl -s "$URL/metrics" | sed -n 's/^offer_signer_experiment_assignments_total{.*arm_id="treatment"} //p')
stop_server

log "seeding $BENCH_ASSIGNED assignments of bench_report, each with a period of the app"
python3 "$BENCH/seed_assignments.py" --database "$WORK/db.sqlite" --experiment bench_report --users "$BENCH_ASSIGNED" \
    --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" >&2 || die "seeding the assignments failed"
sync
REPORT_S=()
for run in 1 2 3; do
    t0=$(date +%s%N)
    OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$WORK/db.sqlite OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem \
        "$BIN" experiments report --experiment-id bench_report >"$WORK/report.json" || die "the report failed"
    REPORT_S+=("$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')")
done
python3 - "$WORK/report.json" "$BENCH_ASSIGNED" <<'PY' >&2 || die "the report does not count every assigned user"
import json, sys
report = json.load(open(sys.argv[1]))
assigned = sum(arm["assigned"] for arm in report["arms"])
assert assigned == int(sys.argv[2]), assigned
print("report:", [(a["armId"], a["assigned"], a["retained"], a["churned"]) for a in report["arms"]], report["verdict"])
PY
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }'; }
MEDIAN=$(printf '%s\n' "${REPORT_S[@]}" | sort -n | sed -n 2p)
cat <<MD

## Experiments (issue 35)

| figure | value | target |
| --- | --- | --- |
| \`POST /v1/offers/sign\`, requests/s (two runs) | $SIGN1, $SIGN2 | |
| \`POST /v1/offers/placement\` in a running experiment (every request assigned, judged, signed), requests/s (two runs) | $PLACE1, $PLACE2 | |
| placement / sign (each run against the one before it) | $(ratio "$PLACE1" "$SIGN1"), $(ratio "$PLACE2" "$SIGN2") | ≥ 0.9 |
| users assigned by the placement load | ${ASSIGNED_BY_LOAD:-?} | |
| \`offer-signer experiments report\` over $BENCH_ASSIGNED assigned users (three runs, whole process) | ${REPORT_S[*]} s (median $MEDIAN s) | < 2 s |
MD
