#!/usr/bin/env python3
"""Pre-generates Retention Messaging real-time request bodies for the retention benchmark.

Each line of the output is one request body, `{"signedPayload": "<compact JWS>"}`: a
DecodedRealtimeRequestBody with a unique requestIdentifier (so none is a repeat, which the
service would answer from its record), signedDate now, environment Production, locale
en-US, about the subscription of a seeded user: user i of bench/seed.py has the
subscription whose originalTransactionId is "2%014d" % (4 * i). It is ES256-signed by the
leaf of the test chain made by bench/run.sh (x5c = [leaf, intermediate, root]) with the raw
64-byte R||S signature, as Apple signs.

Generation is not part of the timed run. Needs the `cryptography` package.
"""
import argparse
import json
import time
import uuid

from appstore_signing import AppStoreSigner


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chain", required=True, help="folder with leaf.key, leaf.pem, intermediate.pem, root.pem")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=100_000, help="how many users bench/seed.py seeded")
    parser.add_argument("--out", required=True)
    parser.add_argument("--app-apple-id", type=int, default=1234567890)
    parser.add_argument("--product", default="com.example.app.pro_monthly")
    args = parser.parse_args()

    started = time.monotonic()
    signer = AppStoreSigner(args.chain)

    now_ms = int(time.time() * 1000)
    with open(args.out, "w") as out:
        for i in range(args.count):
            # Users from the end of the seeded range, in a stride, so consecutive requests are
            # about different users.
            user = (args.users - 1 - i * 7919) % args.users
            payload = {"originalTransactionId": "2%014d" % (4 * user), "appAppleId": args.app_apple_id,
                       "productId": args.product, "userLocale": "en-US", "requestIdentifier": str(uuid.uuid4()),
                       "signedDate": now_ms, "environment": "Production"}
            jws = signer.sign(payload)
            out.write(json.dumps({"signedPayload": jws}, separators=(",", ":")) + "\n")
    elapsed = time.monotonic() - started
    print(f"generated {args.count} signed retention requests in {elapsed:.1f} s (not timed)")


if __name__ == "__main__":
    main()
