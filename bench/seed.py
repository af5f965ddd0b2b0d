#!/usr/bin/env python3
"""Seeds an offer-signer SQLite database with a synthetic subscription history, FAST.

Writes straight into the `transactions` and `renewals` tables (schema:
Sources/OfferSignerStore/SQLite/SQLiteSchema.swift) with one executemany per table in one
transaction. The rows are shaped like verified App Store data, but they were NOT verified:
this is seeding for the benchmark only, never a way to load real history.

User i is `bench-user-%08d` (the app account token, already lowercase). Each user had one
monthly subscription in group BENCH_GROUP: 3 or 4 paid 30-day periods (90-120 paid days),
storefront USA, never refunded, lapsed 60-400 days ago, auto-renew off. So every seeded
user is eligible under the bench offer rule (requireLapsed, minPaidDays 30, days since
expiry 30..730, excludeRefunded, storefront USA).
"""
import argparse
import sqlite3
import sys
import time

DAY_MS = 86_400_000
PERIOD_MS = 30 * DAY_MS


def rows(users, bundle, product, group, now_ms, user_ids=None):
    """Yields (transactions, renewals) rows, in key order so every index is appended to."""
    for i in range(users):
        user = user_ids[i] if user_ids else "bench-user-%08d" % i
        original = "2%014d" % (i * 4)
        periods = 3 + (i % 2)                       # 3 or 4 monthly renewals
        lapsed_days = 60 + (i * 7919) % 341         # 60..400 days since expiry
        last_end = now_ms - lapsed_days * DAY_MS - (i % 86_400) * 1000
        first_purchase = last_end - periods * PERIOD_MS
        for p in range(periods):
            purchase = first_purchase + p * PERIOD_MS
            yield ("t", (
                "2%014d" % (i * 4 + p),             # transaction_id
                original,                           # original_transaction_id
                bundle, product, group, user,
                purchase, purchase + PERIOD_MS,     # purchase_ms, expires_ms
                None, None, None, None,             # revocation_ms, offer_type, offer_id, offer_discount_type
                9990, "USA",                        # price (milliunits), storefront
                purchase + 1000, "Production",      # signed_date_ms, environment
                "seeded-by-bench",                  # signed_transaction (a placeholder, not a JWS)
            ))
        yield ("r", (original, product, 0, 0, None, last_end, "Production", "seeded-by-bench"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--bundle", default="com.example.app")
    parser.add_argument("--product", default="com.example.app.pro_monthly")
    parser.add_argument("--group", default="21000001")
    parser.add_argument("--user-ids", help="a file of user IDs, one a line: user i is line i (bench/ceiling.sh: the C server's users)")
    args = parser.parse_args()
    user_ids = None
    if args.user_ids:
        with open(args.user_ids) as f:
            user_ids = [line.strip() for line in f if line.strip()]
        if len(user_ids) < args.users:
            sys.exit(f"seed.py: {args.user_ids} names {len(user_ids)} users, fewer than --users {args.users}")

    started = time.monotonic()
    now_ms = int(time.time() * 1000)
    db = sqlite3.connect(args.database, isolation_level=None)
    mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    # Durability is pointless while seeding: off for this connection only (the service
    # opens its own connections with its own settings).
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA cache_size=-262144")         # 256 MiB page cache while seeding
    db.execute("PRAGMA temp_store=MEMORY")
    existing = db.execute("SELECT count(*) FROM transactions").fetchone()[0]
    if existing:
        sys.exit(f"seed.py: {args.database} already holds {existing} transactions; seed a fresh database")

    counts = {"t": 0, "r": 0}

    def only(kind):
        for k, row in rows(args.users, args.bundle, args.product, args.group, now_ms, user_ids):
            if k == kind:
                counts[k] += 1
                yield row

    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO transactions (transaction_id, original_transaction_id, bundle_id, product_id, group_id, user_id,"
        " purchase_ms, expires_ms, revocation_ms, offer_type, offer_id, offer_discount_type, price, storefront,"
        " signed_date_ms, environment, signed_transaction) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        only("t"))
    db.executemany(
        "INSERT INTO renewals (original_transaction_id, product_id, auto_renew_status, in_billing_retry,"
        " grace_expires_ms, signed_date_ms, environment, signed_renewal_info) VALUES (?,?,?,?,?,?,?,?)",
        only("r"))
    db.execute("COMMIT")
    if mode == "wal":
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    elapsed = time.monotonic() - started
    print(f"seeded {args.users} users, {counts['t']} transactions, {counts['r']} renewal infos "
          f"in {elapsed:.2f} s (seeded directly, not through the verifier)")
    print(f"seed_seconds={elapsed:.3f}")


if __name__ == "__main__":
    main()
