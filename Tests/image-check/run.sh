#!/usr/bin/env bash
# `make image-check`: the Dockerfile's runtime stage, proven without Docker.
#
# Builds the runtime stage's Debian root file system with mmdebstrap (Debian 12, minbase, as
# debian:bookworm-slim), runs the stage's own RUN commands in it (its apt-get install list
# and user, read from the Dockerfile, not copied), copies in the --static-swift-stdlib
# release binary where the stage's COPY puts it, and starts the stage's ENTRYPOINT and CMD
# inside it (a chroot in its own mount and PID namespaces, /proc and /dev as a container has
# them) as the stage's USER, in its WORKDIR, with its ENV. From outside it checks /healthz,
# /console/ and one signature of the demo offer. Any library the binary loads that the
# package list lacks fails the check (the loader's list of missing libraries is printed).
#
# Usage: run.sh DOCKERFILE BINARY     (root; mmdebstrap and network access to Debian's mirrors)
set -euo pipefail
dockerfile=${1:?Dockerfile}
binary=${2:?release binary}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "image-check: needs root (mmdebstrap --mode=root, chroot)" >&2; exit 1; }
[ -x "$binary" ] || { echo "image-check: no binary at $binary" >&2; exit 1; }

eval "$(python3 "$here/dockerfile-stage.py" "$dockerfile")"
case "$BASE_IMAGE" in
    debian:bookworm-slim|debian:bookworm|debian:12-slim|debian:12) suite=bookworm ;;
    *) echo "image-check: the runtime stage's base $BASE_IMAGE is not Debian 12, which this check builds" >&2; exit 1 ;;
esac

work=$(mktemp -d /tmp/offer-signer-image-check.XXXXXX)
root="$work/rootfs"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        # serve is PID 1 of its namespace, unshare's child: kill it, then unshare (which ignores SIGTERM
        # while it waits, and whose --kill-child a change of user clears).
        for pid in $(pgrep -P "$server_pid" || true) "$server_pid"; do kill -KILL "$pid" 2>/dev/null || true; done
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "image-check: $BASE_IMAGE as mmdebstrap --variant=minbase $suite, then the stage's RUN:"
echo "  $RUN_COMMANDS"
printf '%s\n' "set -e" "$RUN_COMMANDS" > "$work/stage-run.sh"
mmdebstrap --quiet --mode=root --variant=minbase \
    --customize-hook="copy-in $work/stage-run.sh /tmp" \
    --customize-hook='chroot "$1" /bin/sh /tmp/stage-run.sh' \
    --customize-hook='rm -f "$1/tmp/stage-run.sh"' \
    "$suite" "$root" >"$work/mmdebstrap.log" 2>&1 \
    || { cat "$work/mmdebstrap.log" >&2; echo "image-check: building the root file system failed" >&2; exit 1; }

install -D -m 0755 "$binary" "$root$BINARY_DEST"
missing=$(chroot "$root" ldd "$BINARY_DEST" 2>&1 | grep 'not found' || true)
if [ -n "$missing" ]; then
    echo "image-check: FAILED: the runtime stage lacks libraries $BINARY_DEST loads:" >&2
    echo "$missing" >&2
    exit 1
fi

if [[ "$STAGE_USER" =~ ^([0-9]+)(:([0-9]+))?$ ]]; then
    uid=${BASH_REMATCH[1]}
    gid=${BASH_REMATCH[3]:-$(chroot "$root" id -g "$uid")}
else
    uid=$(chroot "$root" id -u "$STAGE_USER")
    gid=$(chroot "$root" id -g "$STAGE_USER")
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The stage's ENV, with the listening address on a free port of 127.0.0.1 (as `docker run -p` maps 8080).
environment=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$STAGE_WORKDIR")
for assignment in "${STAGE_ENV[@]}"; do
    case "$assignment" in
        OFFER_SIGNER_LISTEN=*) environment+=("OFFER_SIGNER_LISTEN=127.0.0.1:$port") ;;
        *) environment+=("$assignment") ;;
    esac
done
# dev-setup writes the keys file and demo offer where the stage's ENV says (as an operator
# mounts them into /data), as the stage's user.
keys=$(printf '%s\n' "${environment[@]}" | sed -n 's/^OFFER_SIGNER_KEYS=//p')
database=$(printf '%s\n' "${environment[@]}" | sed -n 's/^OFFER_SIGNER_DATABASE=//p')
# Runs "$@" in the stage; replaces the calling (sub)shell, so that a background job's $! is
# unshare, and the stage's command is its only child.
in_stage() {
    exec unshare --mount --pid --fork --kill-child --mount-proc="$root/proc" \
        sh -c 'mount --rbind /dev "$0/dev" && exec "$@"' "$root" \
        chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i "${environment[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$STAGE_WORKDIR" "$@"
}
(in_stage "$BINARY_DEST" dev-setup --dir "$(dirname "$keys")" --database "$database" --listen "127.0.0.1:$port") >"$work/dev-setup.txt"
client_token=$(awk '$1 == "client" && $2 ~ /^dev_/ { print $2 }' "$work/dev-setup.txt")
[ -n "$client_token" ] || { cat "$work/dev-setup.txt" >&2; echo "image-check: dev-setup printed no client token" >&2; exit 1; }

echo "image-check: ${COMMAND[*]} as $STAGE_USER ($uid:$gid) in $STAGE_WORKDIR, on 127.0.0.1:$port"
in_stage "${COMMAND[@]}" >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
fail() { echo "image-check: FAILED: $*" >&2; echo "--- serve's output:" >&2; cat "$work/serve.log" >&2; exit 1; }
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || fail "/healthz did not answer 200"
curl -fsS "http://127.0.0.1:$port/console/" | grep -qi '<html' || fail "/console/ did not serve the console"
signature=$(curl -fsS "http://127.0.0.1:$port/v1/offers/sign" -H "Authorization: Bearer $client_token" \
    -H 'Content-Type: application/json' \
    -d '{"productId": "com.example.app.pro_monthly", "offerId": "demo_winback", "userId": "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"}') \
    || fail "signing the demo offer failed"
echo "$signature" | grep -q '"signature"' || fail "the sign answer has no signature: $signature"
echo "image-check: passed: /healthz, /console/ and a signature from the runtime stage of $dockerfile"
