extension SQLiteSchema {
    /// Offers belong to an app; history is kept apart per App Store environment and keeps
    /// what eligibility reads of revocations, ownership, purchase reasons, expiration intents
    /// and Apple's own win-back offers.
    ///
    /// - `offers` is keyed by (bundle_id, offer_id): every existing offer keeps its app.
    ///   `offer_changes` gains `bundle_id`, the app of the rule the change wrote.
    /// - `transactions` is keyed by (environment, transaction_id) and gains revocation_reason,
    ///   revocation_type, revocation_percentage, is_upgraded, ownership_type and
    ///   transaction_reason; `renewals` is keyed by (environment, original_transaction_id) and
    ///   gains expiration_intent and win_back_offer_ids (a JSON array). Existing rows get them
    ///   from their stored signed JWS (see ``SQLiteHistoryBackfill``).
    static let version4 = SQLiteMigration(
        version: 4, summary: "offers keyed by app; history keyed by environment, with revocation, ownership, expiration intent and win-back fields",
        sql: """
        CREATE TABLE offers_v4 (
            bundle_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            rule_json TEXT NOT NULL,
            version INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            PRIMARY KEY (bundle_id, offer_id)
        );
        INSERT INTO offers_v4 (bundle_id, offer_id, rule_json, version, created_at_ms, updated_at_ms)
            SELECT bundle_id, offer_id, rule_json, version, created_at_ms, updated_at_ms FROM offers;
        DROP TABLE offers;
        ALTER TABLE offers_v4 RENAME TO offers;

        ALTER TABLE offer_changes ADD COLUMN bundle_id TEXT NOT NULL DEFAULT '';
        UPDATE offer_changes SET bundle_id = COALESCE(json_extract(after_json, '$.bundleId'), json_extract(before_json, '$.bundleId'),
            (SELECT offers.bundle_id FROM offers WHERE offers.offer_id = offer_changes.offer_id), '');
        DROP INDEX offer_changes_by_offer;
        CREATE INDEX offer_changes_by_offer ON offer_changes(bundle_id, offer_id, id);

        CREATE TABLE transactions_v4 (
            environment TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            user_id TEXT,
            purchase_ms INTEGER NOT NULL,
            expires_ms INTEGER,
            revocation_ms INTEGER,
            revocation_reason INTEGER,
            revocation_type TEXT,
            revocation_percentage INTEGER,
            is_upgraded INTEGER,
            ownership_type TEXT,
            transaction_reason TEXT,
            offer_type INTEGER,
            offer_id TEXT,
            offer_discount_type TEXT,
            price INTEGER,
            storefront TEXT,
            signed_date_ms INTEGER NOT NULL,
            signed_transaction TEXT NOT NULL,
            PRIMARY KEY (environment, transaction_id)
        );
        INSERT INTO transactions_v4 (environment, transaction_id, original_transaction_id, bundle_id, product_id, group_id,
                user_id, purchase_ms, expires_ms, revocation_ms, offer_type, offer_id, offer_discount_type, price, storefront,
                signed_date_ms, signed_transaction)
            SELECT COALESCE(environment, ''), transaction_id, original_transaction_id, bundle_id, product_id, group_id,
                user_id, purchase_ms, expires_ms, revocation_ms, offer_type, offer_id, offer_discount_type, price, storefront,
                signed_date_ms, signed_transaction FROM transactions;
        DROP TABLE transactions;
        ALTER TABLE transactions_v4 RENAME TO transactions;
        CREATE INDEX transactions_by_user ON transactions(bundle_id, user_id);
        CREATE INDEX transactions_by_original ON transactions(environment, original_transaction_id);
        CREATE INDEX transactions_by_product ON transactions(bundle_id, product_id, environment);

        CREATE TABLE renewals_v4 (
            environment TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            product_id TEXT,
            auto_renew_status INTEGER,
            in_billing_retry INTEGER,
            grace_expires_ms INTEGER,
            expiration_intent INTEGER,
            win_back_offer_ids TEXT NOT NULL DEFAULT '[]',
            signed_date_ms INTEGER NOT NULL,
            signed_renewal_info TEXT NOT NULL,
            PRIMARY KEY (environment, original_transaction_id)
        );
        INSERT INTO renewals_v4 (environment, original_transaction_id, product_id, auto_renew_status, in_billing_retry,
                grace_expires_ms, signed_date_ms, signed_renewal_info)
            SELECT COALESCE(environment, ''), original_transaction_id, product_id, auto_renew_status, in_billing_retry,
                grace_expires_ms, signed_date_ms, signed_renewal_info FROM renewals;
        DROP TABLE renewals;
        ALTER TABLE renewals_v4 RENAME TO renewals;
        """,
        backfill: { db throws(SQLiteError) in
            try SQLiteHistoryBackfill.transactions(db)
            try SQLiteHistoryBackfill.renewals(db)
        })
}
