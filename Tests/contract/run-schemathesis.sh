#!/usr/bin/env bash
# Contract test: runs schemathesis with every check against the already built service.
#
#   Tests/contract/run-schemathesis.sh          (make test runs it after swift test)
#
# Builds nothing: it uses .build/debug/offer-signer (OFFER_SIGNER_BIN to use another) and the
# schemathesis that `make test` installs in .build/contract-venv (SCHEMATHESIS for another).
# It sets up a throwaway service (dev-setup keys and demo offer, a temporary database) on a
# free loopback port, sends each route the token of its role (schemathesis.toml), lets
# through only the refusals listed in allowed-refusals.toml, and stops the service.
# CONTRACT_SEED and CONTRACT_MAX_EXAMPLES change the seed and the examples per operation.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${OFFER_SIGNER_BIN:-$root/.build/debug/offer-signer}
schemathesis=${SCHEMATHESIS:-$root/.build/contract-venv/bin/schemathesis}
seed=${CONTRACT_SEED:-20261130}
max_examples=${CONTRACT_MAX_EXAMPLES:-60}

# Absolute paths: schemathesis runs in the temporary folder.
absolute() { case $1 in */*) echo "$(cd "$(dirname "$1")" 2>/dev/null && pwd)/$(basename "$1")" ;; *) command -v "$1" || echo "$1" ;; esac; }
bin=$(absolute "$bin")
schemathesis=$(absolute "$schemathesis")
[ -x "$bin" ] || { echo "contract: $bin is missing; build first (swift build)" >&2; exit 2; }
[ -x "$schemathesis" ] || { echo "contract: $schemathesis is missing; make test installs it" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/offer-signer-contract.XXXXXX")
service=""
apple=""
stop() {
    if [ -n "$service" ] && kill -0 "$service" 2>/dev/null; then
        kill "$service" 2>/dev/null || true
        wait "$service" 2>/dev/null || true
    fi
    if [ -n "$apple" ]; then kill "$apple" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
listen=127.0.0.1:$port

"$bin" dev-setup --dir "$work/dev" --database "$work/offer-signer.sqlite" --listen "$listen" >"$work/dev-setup.txt"
token() { awk -v role="$1" '$1 == role && $2 ~ /^dev_/ { print $2 }' "$work/dev-setup.txt"; }
for role in client marketing auditor admin; do
    value=$(token "$role")
    [ -n "$value" ] || { echo "contract: dev-setup printed no $role token" >&2; exit 1; }
    export "CONTRACT_${role^^}_TOKEN=$value"
done

# Rate limits off: the contract, not the limiter, is under test (429 is documented anyway).
# Both environments accepted: `environment` may then name either, as the document says.
# Apple's Retention Messaging API, stood in for (apple-standin.py): the run has no network.
python3 "$here/apple-standin.py" >"$work/apple-port" &
apple=$!
for _ in $(seq 100); do [ -s "$work/apple-port" ] && break; sleep 0.05; done
OFFER_SIGNER_APPSTORE_API_URL="http://127.0.0.1:$(cat "$work/apple-port")" \
OFFER_SIGNER_KEYS="$work/dev/keys.json" OFFER_SIGNER_DATABASE="$work/offer-signer.sqlite" OFFER_SIGNER_LISTEN="$listen" \
OFFER_SIGNER_ENVIRONMENTS=Production,Sandbox OFFER_SIGNER_LOG_LEVEL=error OFFER_SIGNER_RATE_SIGN_PER_KEY=off OFFER_SIGNER_RATE_SIGN_PER_USER=off \
OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS=off \
    "$bin" serve 2>"$work/service.log" &
service=$!

python3 - "http://$listen/healthz" <<'PY' || { echo "contract: the service did not start:" >&2; cat "$work/service.log" >&2; exit 1; }
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(1)
PY

export CONTRACT_BASE_URL="http://$listen" CONTRACT_ALLOWED_REFUSALS="$here/allowed-refusals.toml"
export SCHEMATHESIS_HOOKS="$here/hooks.py" HYPOTHESIS_STORAGE_DIRECTORY="$work/hypothesis"
status=0
(cd "$work" && "$schemathesis" --config-file "$here/schemathesis.toml" --no-color run "$root/openapi.yaml" \
    --checks all --max-examples "$max_examples" --seed "$seed") || status=$?
if ! kill -0 "$service" 2>/dev/null; then
    echo "contract: the service died during the run" >&2
    status=1
fi
if [ "$status" != 0 ] && [ -s "$work/service.log" ]; then
    echo "contract: the service's errors, last lines:" >&2
    tail -20 "$work/service.log" >&2
fi
exit "$status"
