#!/usr/bin/env python3
"""Pre-generates App Store Server Notifications V2 request bodies for the ingestion benchmark.

Each line of the output is one request body, `{"signedPayload": "<compact JWS>"}`: a
SUBSCRIBED (INITIAL_BUY) notification (ResponseBodyV2DecodedPayload) with a unique notificationUUID,
signedDate now, data {bundleId, appAppleId, environment Production,
signedTransactionInfo, signedRenewalInfo (unless --no-renewal)}, each JWS ES256-signed by
the leaf of the test chain made by bench/run.sh (x5c = [leaf, intermediate, root]) with
the raw 64-byte R||S signature, as Apple signs. Every notification is about a new user
`bench-notify-%08d` with a new subscription, so each one stores a new transaction.

With `--redeem-offer OFFER`, notification i is instead seeded user `bench-user-%08d`'s
purchase of a new subscription under promotional offer OFFER (pay as you go, 4.99), dated
`--redeem-after-minutes` after generation: a redemption for the outcomes benchmark, which
the service matches against the signature the signing load gave that user.

Generation is not part of the timed run. Needs the `cryptography` package.
"""
import argparse
import json
import time
import uuid

from appstore_signing import AppStoreSigner

DAY_MS = 86_400_000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chain", required=True, help="folder with leaf.key, leaf.pem, intermediate.pem, root.pem")
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bundle", default="com.example.app")
    parser.add_argument("--app-apple-id", type=int, default=1234567890)
    parser.add_argument("--product", default="com.example.app.pro_monthly")
    parser.add_argument("--group", default="21000001")
    parser.add_argument("--no-renewal", action="store_true", help="leave out signedRenewalInfo")
    parser.add_argument("--redeem-offer", help="make each notification a seeded user's redemption of this promotional offer")
    parser.add_argument("--redeem-after-minutes", type=int, default=30, help="the redemptions' purchaseDate, in minutes after now")
    args = parser.parse_args()

    started = time.monotonic()
    sign = AppStoreSigner(args.chain).sign

    now_ms = int(time.time() * 1000)
    with open(args.out, "w") as out:
        for i in range(args.count):
            original = ("6%014d" if args.redeem_offer else "3%014d") % i
            purchase = now_ms + args.redeem_after_minutes * 60_000 if args.redeem_offer else now_ms - DAY_MS
            transaction = {
                "transactionId": original, "originalTransactionId": original, "webOrderLineItemId": "4%014d" % i,
                "bundleId": args.bundle, "productId": args.product, "subscriptionGroupIdentifier": args.group,
                "purchaseDate": purchase, "originalPurchaseDate": purchase, "expiresDate": purchase + 30 * DAY_MS,
                "quantity": 1, "type": "Auto-Renewable Subscription", "appAccountToken": "bench-notify-%08d" % i,
                "inAppOwnershipType": "PURCHASED", "signedDate": now_ms, "environment": "Production",
                "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441",
                "price": 9990, "currency": "USD", "appTransactionId": "5%014d" % i,
            }
            if args.redeem_offer:
                transaction.update({"appAccountToken": "bench-user-%08d" % i, "offerType": 2, "offerIdentifier": args.redeem_offer,
                                    "offerDiscountType": "PAY_AS_YOU_GO", "price": 4990})
            data = {"appAppleId": args.app_apple_id, "bundleId": args.bundle, "bundleVersion": "1.0",
                    "environment": "Production", "signedTransactionInfo": sign(transaction), "status": 1}
            if not args.no_renewal:
                renewal = {"originalTransactionId": original, "autoRenewProductId": args.product,
                           "productId": args.product, "autoRenewStatus": 1, "signedDate": now_ms,
                           "environment": "Production", "recentSubscriptionStartDate": purchase,
                           "renewalDate": purchase + 30 * DAY_MS, "appTransactionId": "5%014d" % i}
                data["signedRenewalInfo"] = sign(renewal)
            notification = {"notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY",
                            "notificationUUID": str(uuid.uuid4()), "data": data, "version": "2.0",
                            "signedDate": now_ms}
            out.write(json.dumps({"signedPayload": sign(notification)}, separators=(",", ":")) + "\n")
    elapsed = time.monotonic() - started
    print(f"generated {args.count} signed notifications in {elapsed:.1f} s (not timed)")


if __name__ == "__main__":
    main()
