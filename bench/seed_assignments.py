#!/usr/bin/env python3
"""Seeds an experiment's assignments, and a period of the app for each assigned user, FAST,
for the report's benchmark (bench/experiments.sh). Writes straight into the SQLite tables
(schema: Sources/OfferSignerStore/SQL/SchemaStep+Experiments.swift and the transactions
table); the rows are shaped like the service's, NOT verified: benchmark only.

User i is `bench-user-%08d`, assigned `--days-ago` days ago to arm i % 2 (`control`,
`treatment`), weight period 0; every third user renewed at full price for 30 days after the
horizon (retained), the others lapsed. Each period carries a JWS-shaped text whose payload
names the currency, as the report reads it.
"""
import argparse
import base64
import json
import sqlite3
import time

DAY_MS = 86_400_000


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True)
    parser.add_argument("--experiment", default="bench_experiment")
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--days-ago", type=int, default=100)
    parser.add_argument("--horizon-days", type=int, default=30)
    parser.add_argument("--bundle", default="com.example.app")
    parser.add_argument("--product", default="com.example.app.pro_monthly")
    parser.add_argument("--group", default="21000001")
    args = parser.parse_args()
    started = time.monotonic()
    now = int(time.time() * 1000)
    assigned = now - args.days_ago * DAY_MS
    header = b64(b'{"alg":"ES256"}')
    db = sqlite3.connect(args.database, isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO experiment_assignments (bundle_id, experiment_id, user_key, arm_id, weight_period, environment, assigned_at_ms,"
        " eligible, first_signed_at_ms) VALUES (?, ?, ?, ?, 0, 'Production', ?, ?, ?)",
        ((args.bundle, args.experiment, "bench-user-%08d" % i, "control" if i % 2 == 0 else "treatment", assigned + i,
          i % 2, assigned + i if i % 2 else None) for i in range(args.users)))

    # A build whose schema has the currency column gets it filled as the service fills it (from the JWS).
    has_currency = any(row[1] == "currency" for row in db.execute("PRAGMA table_info(transactions)"))

    def periods():
        for i in range(args.users):
            start = assigned + (args.horizon_days - 10) * DAY_MS if i % 3 == 0 else assigned + DAY_MS
            days = 40 if i % 3 == 0 else 20
            payload = b64(json.dumps({"transactionId": "9%014d" % i, "currency": "USD", "price": 9990}).encode())
            row = ("9%014d" % i, "9%014d" % i, args.bundle, args.product, args.group, "bench-user-%08d" % i, start,
                   start + days * DAY_MS, 9990, "USA", start, "Production", f"{header}.{payload}.c2ln")
            yield row + ("USD",) if has_currency else row

    db.executemany(
        "INSERT INTO transactions (transaction_id, original_transaction_id, bundle_id, product_id, group_id, user_id, purchase_ms,"
        " expires_ms, price, storefront, signed_date_ms, environment, signed_transaction" + (", currency" if has_currency else "")
        + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?" + (", ?" if has_currency else "") + ")",
        periods())
    db.execute("COMMIT")
    print(f"assignments={args.users}")
    print(f"seed_seconds={time.monotonic() - started:.1f}")


if __name__ == "__main__":
    main()
