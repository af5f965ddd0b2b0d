#!/usr/bin/env python3
"""Writes signed App Store history for the console's end-to-end tests, as NDJSON for
`POST /v1/admin/history/import`: one `{"signedTransactionInfo": …}` or
`{"signedRenewalInfo": …}` per line, each an ES256 compact JWS with an x5c chain from the
test PKI in Tests/OfferSignerServiceTests/Fixtures/appstore-chain (so `serve` must trust
that chain's root with `--apple-roots`). Signed now, so within the test certificates'
validity; periods lie in the past relative to now.

Usage: make_history.py OUT.ndjson [--chain DIR]  (prints the expected counts as JSON)
"""
import argparse, base64, json, os, time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

DAY = 86_400_000
BUNDLE = "com.example.app"
PRODUCT = "com.example.app.pro_monthly"
GROUP = "21000001"
HERE = os.path.dirname(os.path.abspath(__file__))

# The showcase user of the timeline (trial, paid months, a lapse, a promotional offer, a
# refund, lapsed again) and the XSS probe: a user ID that is markup with an onerror handler.
SHOWCASE = "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"
# A customer whose parent withdrew consent (RESCIND_CONSENT for their app download).
CONSENT_USER = "consent-000"
CONSENT_DOWNLOAD = "704289572911"
APP_APPLE_ID = 1234567890  # dev-setup's app
XSS_USER = "<img src=x onerror=window.__xss=1>"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class Signer:
    def __init__(self, chain):
        with open(os.path.join(chain, "leaf.key"), "rb") as f:
            self.key = serialization.load_pem_private_key(f.read(), password=None)
        x5c = []
        for name in ("leaf", "intermediate", "root"):
            with open(os.path.join(chain, f"{name}.pem"), "rb") as f:
                der = x509.load_pem_x509_certificate(f.read()).public_bytes(serialization.Encoding.DER)
            x5c.append(base64.b64encode(der).decode("ascii"))
        self.header = b64url(json.dumps({"alg": "ES256", "x5c": x5c}, separators=(",", ":")).encode())

    def sign(self, payload):
        signing_input = self.header + "." + b64url(json.dumps(payload, separators=(",", ":")).encode())
        r, s = decode_dss_signature(self.key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--chain", default=os.path.join(HERE, "..", "OfferSignerServiceTests", "Fixtures", "appstore-chain"))
    args = parser.parse_args()
    signer = Signer(args.chain)
    now = int(time.time() * 1000)
    lines = []
    counter = [0]

    def subscription(user, periods, active=False, intent=1):
        """periods: (start_days_ago, days, kind, extra) with kind paid | trial | promo; extra may hold offer/refund."""
        counter[0] += 1
        original = "2%014d" % (counter[0] * 1000)
        for index, (start, length, kind, extra) in enumerate(periods):
            transaction_id = original if index == 0 else "2%014d" % (counter[0] * 1000 + index)
            purchase = now - start * DAY
            payload = {
                "transactionId": transaction_id, "originalTransactionId": original, "bundleId": BUNDLE,
                "productId": PRODUCT, "subscriptionGroupIdentifier": GROUP, "purchaseDate": purchase,
                "originalPurchaseDate": now - periods[0][0] * DAY, "expiresDate": purchase + length * DAY,
                "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
                "signedDate": now, "environment": "Production", "transactionReason": "PURCHASE" if index == 0 else "RENEWAL",
                "storefront": extra.get("storefront", "USA"), "storefrontId": "143441", "price": 9990, "currency": "USD",
                "appAccountToken": user,
            }
            if extra.get("download"):
                payload["appTransactionId"] = extra["download"]
            if kind == "trial":
                payload.update({"offerType": 1, "offerDiscountType": "FREE_TRIAL", "price": 0})
            elif kind == "promo":
                payload.update({"offerType": 2, "offerIdentifier": extra["offer"], "offerDiscountType": "PAY_AS_YOU_GO", "price": 4990})
            elif kind == "code":
                payload.update({"offerType": 3, "offerIdentifier": extra["offer"], "offerDiscountType": "ONE_TIME", "price": 2990})
            elif kind == "retention":
                payload.update({"offerType": 5, "offerIdentifier": extra["offer"], "offerDiscountType": "PAY_AS_YOU_GO",
                                "price": 4990, "offerPeriod": "P1M"})
            if extra.get("refund"):
                payload.update({"revocationDate": purchase + extra["refund"] * DAY, "revocationReason": 0, "revocationType": "REFUND_FULL"})
            lines.append({"signedTransactionInfo": signer.sign(payload)})
        renewal = {"originalTransactionId": original, "autoRenewProductId": PRODUCT, "productId": PRODUCT,
                   "autoRenewStatus": 1 if active else 0, "signedDate": now, "environment": "Production",
                   "recentSubscriptionStartDate": now - periods[0][0] * DAY}
        if not active:
            renewal["expirationIntent"] = intent
        lines.append({"signedRenewalInfo": signer.sign(renewal)})

    def months(start, count, kind="paid", **extra):
        return [(start - 30 * i, 30, kind, extra) for i in range(count)]

    expected = {"lapsedLong": 0, "active": 0, "recentlyLapsed": 0, "shortPayers": 0, "refunded": 0, "consentRescinded": 0}
    # Paid 10 months, lapsed 100–190 days ago: eligible for a classic win-back rule.
    for i in range(12):
        subscription(f"lapsed-{i:03d}", months(400 + 10 * i, 10))
        expected["lapsedLong"] += 1
    # Active subscribers: paid for a year, renewing now.
    for i in range(6):
        subscription(f"active-{i:03d}", months(350, 12) + [(10, 30, "paid", {})], active=True)
        expected["active"] += 1
    # Paid a year, lapsed only 15 days ago.
    for i in range(4):
        subscription(f"recent-{i:03d}", months(375, 12))
        expected["recentlyLapsed"] += 1
    # Paid two months only, lapsed 120 days ago.
    for i in range(3):
        subscription(f"short-{i:03d}", months(180, 2))
        expected["shortPayers"] += 1
    # Paid 10 months, lapsed, one purchase refunded.
    for i in range(2):
        subscription(f"refunded-{i:03d}", months(420, 9) + [(150, 30, "paid", {"refund": 3})])
        expected["refunded"] += 1
    # The showcase: a free week, eight paid months, a lapse, a promotional month, two paid (one
    # refunded), an offer code, a paid month, the App Store's own retention offer, lapsed again.
    subscription(SHOWCASE, [(700, 7, "trial", {})] + months(693, 8) + [(400, 30, "promo", {"offer": "winback_spring"})]
                 + months(370, 2) + [(300, 30, "paid", {"refund": 5}), (240, 30, "code", {"offer": "SPRING26"}),
                                     (210, 30, "paid", {}), (180, 30, "retention", {"offer": "stay_half_price"})])
    # Consent rescinded: paid two months with their app download named, then the App Store's notice.
    subscription(CONSENT_USER, months(180, 2, download=CONSENT_DOWNLOAD))
    expected["consentRescinded"] += 1
    app_transaction = {"receiptType": "Production", "appAppleId": APP_APPLE_ID, "bundleId": BUNDLE, "applicationVersion": "7.1",
                       "receiptCreationDate": now - DAY, "originalPurchaseDate": now - 400 * DAY, "originalApplicationVersion": "1.0",
                       "deviceVerification": "dGVzdA==", "deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a",
                       "appTransactionId": CONSENT_DOWNLOAD, "originalPlatform": "iOS"}
    lines.append({"signedPayload": signer.sign({
        "notificationType": "RESCIND_CONSENT", "notificationUUID": "5f1c7a3e-0c4b-4d2a-9e8f-1a2b3c4d5e6f", "version": "2.0",
        "signedDate": now - DAY // 2,
        "appData": {"appAppleId": APP_APPLE_ID, "bundleId": BUNDLE, "environment": "Production",
                    "signedAppTransactionInfo": signer.sign(app_transaction)}})})
    # The XSS probe: a lapsed user whose ID is markup.
    subscription(XSS_USER, months(400, 10))
    with open(args.out, "w") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")
    expected.update({"lines": len(lines), "users": sum(v for k, v in expected.items() if k != "lines") + 2,
                     "showcase": SHOWCASE, "xssUser": XSS_USER, "consentUser": CONSENT_USER, "consentDownload": CONSENT_DOWNLOAD})
    print(json.dumps(expected))


if __name__ == "__main__":
    main()
