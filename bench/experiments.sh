#!/usr/bin/env bash
# The experiments' benchmark (issue 35): POST /v1/offers/placement inside a running experiment
# against POST /v1/offers/sign (target >= 0.9x its rate), and the experiment report over
# BENCH_ASSIGNED (1,000,000) assigned users (target < 2 s). `make bench` runs it after the
# main benchmark; alone: `bash bench/experiments.sh` after `swift build -c release`.
# Prints a Markdown section on standard output.
#
# BENCH_EXPERIMENTS_BINS="old=/path/offer-signer new=.build/release/offer-signer" measures several
# builds alternately in the same minutes: the set-up is made once (with the first build), each
# build gets its own copy of the database (brought to its schema by its own `db migrate`, timed),
# then round after round each build's sign and placement loads, then the report timed build after
# build, three times; the reports must be identical but for `generatedAt`. Each round of loads
# is sign, placement, sign again: placement is compared with the sign run before it and with
# the mean of the two around it (the host's drift over the half minute cancels).
# Name the oldest build first: the set-up's database is made by it (a build refuses a database
# whose schema a newer build migrated).
# BENCH_EXPERIMENTS_PROFILE=NAME: one more sign and placement load of that build under
# `perf record -g` (profiles in the work folder).
# BENCH_EXPERIMENTS_PARTS (default "loads report") picks what runs after the set-up: `loads` (sign
# and placement), `report` (the 1,000,000 assignments seeded, each build's report), `backfill`
# (the same seeded database with SQLite migration 17 undone — no currency column — and each
# build's `db migrate` timed filling it again, BENCH_BACKFILL_ROUNDS (2) rounds alternating). E.g.
# BENCH_EXPERIMENTS_PARTS=report skips the loads.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BIN=${BENCH_BIN:-$ROOT/.build/release/offer-signer}
# NAME=PATH pairs; the default is the one build BENCH_BIN names.
read -r -a BUILDS <<<"${BENCH_EXPERIMENTS_BINS:-build=$BIN}"
declare -A BIN_OF=()
NAMES=()
for build in "${BUILDS[@]}"; do
    NAMES+=("${build%%=*}")
    BIN_OF[${build%%=*}]=${build#*=}
done
BIN=${BIN_OF[${NAMES[0]}]}
PROFILE=${BENCH_EXPERIMENTS_PROFILE:-}
PARTS=" ${BENCH_EXPERIMENTS_PARTS:-loads report} "
has_part() { [[ $PARTS == *" $1 "* ]]; }
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
for tool in wrk python3 curl sqlite3; do command -v "$tool" >/dev/null || die "$tool is missing"; done
for name in "${NAMES[@]}"; do
    [ -x "${BIN_OF[$name]}" ] || die "${BIN_OF[$name]} is missing: run 'swift build -c release' first"
done
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

# start_server BINARY DATABASE: serves on $PORT until stop_server.
start_server() {
    OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$2 OFFER_SIGNER_LISTEN=127.0.0.1:$PORT \
    OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off \
    OFFER_SIGNER_RATE_SIGN_PER_USER=off OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
        "$1" serve >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 600); do curl -fs --max-time 1 "$URL/readyz" >/dev/null 2>&1 && break; sleep 0.05; done
    curl -fs --max-time 1 "$URL/readyz" >/dev/null || die "the server did not become ready"
}
# copy_database FROM TO: a copy of a SQLite database no process has open.
copy_database() {
    rm -f "$2" "$2-wal" "$2-shm"
    cp "$1" "$2"
    [ ! -e "$1-wal" ] || cp "$1-wal" "$2-wal"
}
# migrate NAME DATABASE: the build's `db migrate`; prints the seconds it took.
migrate() {
    local t0
    t0=$(date +%s%N)
    OFFER_SIGNER_DATABASE=$2 "${BIN_OF[$1]}" db migrate >>"$WORK/migrate.log" 2>&1 || die "$1: db migrate failed ($WORK/migrate.log)"
    awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'
}
start_server "$BIN" "$WORK/db.sqlite"

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
# cpu_ticks: the server's user and system CPU so far, in clock ticks ("utime stime").
cpu_ticks() { awk '{ print $14, $15 }' "/proc/$SERVER_PID/stat"; }
# load SCRIPT NAME: warm-up, then BENCH_DURATION seconds; prints requests/s. The server's CPU per
# request of the measured part (user + system, µs) goes to $WORK/NAME.cpu.
load() {
    local script=$1 name=$2
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PLACEMENT=bench_placement PRODUCT=$PRODUCT USERS=$BENCH_USERS \
        wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_WARMUP}s" --timeout 10s -s "$BENCH/$script" "$URL" >"$WORK/$name.warmup" 2>&1 \
        || die "wrk failed ($name warm-up)"
    local before after
    before=$(cpu_ticks)
    TOKEN=$CLIENT_TOKEN OFFER=$OFFER PLACEMENT=bench_placement PRODUCT=$PRODUCT USERS=$BENCH_USERS \
        wrk -t"$BENCH_THREADS" -c"$BENCH_CONNECTIONS" -d"${BENCH_DURATION}s" --timeout 10s -s "$BENCH/$script" "$URL" >"$WORK/$name.txt" 2>&1 \
        || die "wrk failed ($name)"
    after=$(cpu_ticks)
    [ "$(value "$WORK/$name.txt" non200)" = 0 ] || die "$name: some answers were not 200 ($WORK/$name.txt)"
    awk -v b="$before" -v a="$after" -v n="$(value "$WORK/$name.txt" requests)" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        split(b, x, " "); split(a, y, " ")
        printf "%.0f", ((y[1] - x[1]) + (y[2] - x[2])) / hz * 1e6 / n }' >"$WORK/$name.cpu"
    value "$WORK/$name.txt" rps
}
stop_server
declare -A SIGN=() SIGN_AFTER=() PLACE=() ASSIGNED_BY_LOAD=() MIGRATE_S=()
if has_part loads; then
for name in "${NAMES[@]}"; do
    copy_database "$WORK/db.sqlite" "$WORK/db-$name.sqlite"
    MIGRATE_S[$name]=$(migrate "$name" "$WORK/db-$name.sqlite")
done
log "builds ${NAMES[*]} alternately: sign, placement, sign again, twice (${BENCH_DURATION} s each, ${BENCH_CONNECTIONS} connections)"
for round in 1 2; do
    for name in "${NAMES[@]}"; do
        start_server "${BIN_OF[$name]}" "$WORK/db-$name.sqlite"
        SIGN[$name]+="${SIGN[$name]:+, }$(load sign.lua "sign-$name-$round")"
        PLACE[$name]+="${PLACE[$name]:+, }$(load placement.lua "place-$name-$round")"
        ASSIGNED_BY_LOAD[$name]+="${ASSIGNED_BY_LOAD[$name]:+, }$(curl -s "$URL/metrics" | sed -n 's/^offer_signer_experiment_assignments_total{.*arm_id="treatment"} //p')"
        # Sign again after the placement load: its rate is compared with the mean of the sign
        # runs on either side (drift of the host over the minute cancels).
        SIGN_AFTER[$name]+="${SIGN_AFTER[$name]:+, }$(load sign.lua "sign-after-$name-$round")"
        if [ "$round" = 2 ] && [ "$name" = "$PROFILE" ]; then
            command -v perf >/dev/null || die "perf is missing (linux-perf) for BENCH_EXPERIMENTS_PROFILE"
            for script in sign placement; do
                perf record -F 999 -g -o "$WORK/perf-$name-$script.data" -p "$SERVER_PID" -- sleep $((BENCH_WARMUP + BENCH_DURATION)) >/dev/null 2>&1 &
                perf_pid=$!
                log "profiling $name under the $script load: $(load "$script.lua" "profile-$name-$script")/s"
                wait "$perf_pid" || true
                perf report -i "$WORK/perf-$name-$script.data" --no-children --sort dso,symbol --stdio -g none 2>/dev/null \
                    | grep -v '^#' | grep -v '^$' | head -80 >"$WORK/profile-$name-$script.txt" || true
            done
        fi
        stop_server
    done
done

fi

if has_part report || has_part backfill; then
log "seeding $BENCH_ASSIGNED assignments of bench_report, each with a period of the app"
python3 "$BENCH/seed_assignments.py" --database "$WORK/db.sqlite" --experiment bench_report --users "$BENCH_ASSIGNED" \
    --bundle "$BUNDLE" --product "$PRODUCT" --group "$GROUP" >&2 || die "seeding the assignments failed"
fi
declare -A REPORT_S=() REPORT_MIGRATE_S=() BACKFILL_S=()
if has_part report; then
for name in "${NAMES[@]}"; do
    copy_database "$WORK/db.sqlite" "$WORK/report-$name.sqlite"
    REPORT_MIGRATE_S[$name]=$(migrate "$name" "$WORK/report-$name.sqlite")
done
sync
for run in 1 2 3; do
    for name in "${NAMES[@]}"; do
        t0=$(date +%s%N)
        OFFER_SIGNER_KEYS=$WORK/dev/keys.json OFFER_SIGNER_DATABASE=$WORK/report-$name.sqlite OFFER_SIGNER_APPLE_ROOTS=$WORK/chain/root.pem \
            "${BIN_OF[$name]}" experiments report --experiment-id bench_report >"$WORK/report-$name.json" || die "$name: the report failed"
        REPORT_S[$name]+="${REPORT_S[$name]:+ }$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')"
    done
done
for name in "${NAMES[@]}"; do
    python3 - "$WORK/report-$name.json" "$BENCH_ASSIGNED" "$WORK/report-${NAMES[0]}.json" <<'PY' >&2 || die "$name: the report does not count every assigned user, or differs from ${NAMES[0]}'s"
import json, re, sys
report = json.load(open(sys.argv[1]))
assigned = sum(arm["assigned"] for arm in report["arms"])
assert assigned == int(sys.argv[2]), assigned
def without_time(path):
    return re.sub(r'"generatedAt" *: *"[^"]*"', "", open(path).read())
assert without_time(sys.argv[1]) == without_time(sys.argv[3]), "the reports differ beyond generatedAt"
print("report:", [(a["armId"], a["assigned"], a["retained"], a["churned"]) for a in report["arms"]], report["verdict"])
PY
done
fi
if has_part backfill; then
    # Migration 17 undone (the column dropped, its row of schema_migrations deleted), then each
    # build's `db migrate` fills the column again from the JWS; two rounds, builds alternating.
    for round in $(seq 1 "${BENCH_BACKFILL_ROUNDS:-2}"); do
        for name in "${NAMES[@]}"; do
            copy_database "$WORK/db.sqlite" "$WORK/backfill-$name.sqlite"
            # (Versions after 17 are undone too, so 17 runs again: 18 rebuilds experiment_assignments, timed with it.)
            sqlite3 "$WORK/backfill-$name.sqlite" "ALTER TABLE transactions DROP COLUMN currency; DELETE FROM schema_migrations WHERE version >= 17;" \
                || die "could not undo migration 17"
            sync
            BACKFILL_S[$name]+="${BACKFILL_S[$name]:+, }$(migrate "$name" "$WORK/backfill-$name.sqlite")"
            # Each build fills the same currencies (a digest of every row's key and currency).
            filled=$(sqlite3 "$WORK/backfill-$name.sqlite" "SELECT COUNT(*), COUNT(currency), SUM(LENGTH(transaction_id || COALESCE(currency, '-'))), SUM(currency = 'USD') FROM transactions")
            [ -z "${BACKFILLED:-}" ] || [ "$filled" = "$BACKFILLED" ] || die "$name: the backfill filled $filled, ${NAMES[0]} $BACKFILLED"
            BACKFILLED=$filled
            log "backfill $name round $round: ${BACKFILL_S[$name]##*, } s, filled (rows, currencies, ...) $filled"
            rm -f "$WORK/backfill-$name.sqlite"*
        done
    done
fi
# cpus NAME KIND: the CPU per request of the build's KIND loads (sign, place, sign-after), rounds 1, 2.
cpus() { printf '%s, %s' "$(cat "$WORK/$2-$1-1.cpu" 2>/dev/null)" "$(cat "$WORK/$2-$1-2.cpu" 2>/dev/null)"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "?" }'; }
mean() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a + b) / 2 }'; }
median() { tr ' ' '\n' <<<"$1" | sort -n | sed -n 2p; }
cat <<MD

## Experiments (issue 35)

Load: $(uptime | sed 's/.*load average/load average/')

| figure | $(printf '%s | ' "${NAMES[@]}")target |
| --- | $(printf -- '--- | %.0s' "${NAMES[@]}")--- |
| \`db migrate\` of the set-up copy, then of the report's copy, s | $(for n in "${NAMES[@]}"; do printf '%s, %s | ' "${MIGRATE_S[$n]:-}" "${REPORT_MIGRATE_S[$n]:-}"; done)|
| \`POST /v1/offers/sign\`, requests/s (rounds 1, 2) | $(for n in "${NAMES[@]}"; do printf '%s | ' "${SIGN[$n]:-}"; done)|
| \`POST /v1/offers/sign\` again after the placement load, requests/s (rounds 1, 2) | $(for n in "${NAMES[@]}"; do printf '%s | ' "${SIGN_AFTER[$n]:-}"; done)|
| \`POST /v1/offers/placement\` in a running experiment (every request assigned, judged, signed), requests/s (rounds 1, 2) | $(for n in "${NAMES[@]}"; do printf '%s | ' "${PLACE[$n]:-}"; done)|
| placement / sign (each run against the sign run before it) | $(for n in "${NAMES[@]}"; do IFS=', ' read -r -a s <<<"${SIGN[$n]:-0, 0}"; IFS=', ' read -r -a p <<<"${PLACE[$n]:-0, 0}"; printf '%s, %s | ' "$(ratio "${p[0]}" "${s[0]}")" "$(ratio "${p[1]}" "${s[1]}")"; done)|
| placement / mean of the sign runs before and after it | $(for n in "${NAMES[@]}"; do IFS=', ' read -r -a s <<<"${SIGN[$n]:-0, 0}"; IFS=', ' read -r -a a <<<"${SIGN_AFTER[$n]:-0, 0}"; IFS=', ' read -r -a p <<<"${PLACE[$n]:-0, 0}"; printf '%s, %s | ' "$(ratio "${p[0]}" "$(mean "${s[0]}" "${a[0]}")")" "$(ratio "${p[1]}" "$(mean "${s[1]}" "${a[1]}")")"; done)≥ 0.9 |
| server CPU per request, µs (user + system), sign before, placement, sign after (rounds 1, 2) | $(for n in "${NAMES[@]}"; do printf '%s; %s; %s | ' "$(cpus "$n" sign)" "$(cpus "$n" place)" "$(cpus "$n" sign-after)"; done)|
| users assigned by the placement loads (rounds 1, 2) | $(for n in "${NAMES[@]}"; do printf '%s | ' "${ASSIGNED_BY_LOAD[$n]:-?}"; done)|
| \`offer-signer experiments report\` over $BENCH_ASSIGNED assigned users (three runs, whole process), s | $(for n in "${NAMES[@]}"; do printf '%s (median %s) | ' "${REPORT_S[$n]:-}" "$(median "${REPORT_S[$n]:-}")"; done)< 2 s |
| \`db migrate\` filling \`transactions.currency\` (migrations 17 and later undone on the report's database; 18 rebuilds the assignments), s (rounds 1, 2) | $(for n in "${NAMES[@]}"; do printf '%s | ' "${BACKFILL_S[$n]:-}"; done)|
MD
