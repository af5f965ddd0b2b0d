extension SQLiteSchema {
    /// What became of the offers (self-contained: it only adds).
    ///
    /// - `offer_redemptions`: each redemption of a promotional or win-back offer found in the
    ///   history (named by its first period's transaction), with the facts of its outcome, its
    ///   revenue by currency and the nonce of the signature that explains it (NULL: unmatched).
    ///   Derived: `offer-signer outcomes rebuild` makes it again from the history and the log.
    /// - `offer_holdouts`: the first decision to hold a user out of an offer.
    static let version11 = SQLiteMigration(
        version: 11, summary: "offer outcomes: redemptions matched to signatures, holdout decisions",
        sql: """
        CREATE TABLE offer_redemptions (
            id INTEGER PRIMARY KEY,
            environment TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            offer_id TEXT,
            offer_type INTEGER NOT NULL,
            original_transaction_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            app_account_token TEXT,
            purchase_ms INTEGER NOT NULL,
            refunded INTEGER NOT NULL,
            retained INTEGER NOT NULL,
            ends_ms INTEGER NOT NULL,
            revenue_json TEXT NOT NULL,
            signature_nonce TEXT,
            managed INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL,
            UNIQUE (environment, transaction_id)
        );
        CREATE INDEX offer_redemptions_by_offer ON offer_redemptions(bundle_id, offer_id, purchase_ms);
        CREATE INDEX offer_redemptions_by_subscription ON offer_redemptions(environment, original_transaction_id);
        CREATE INDEX offer_redemptions_by_nonce ON offer_redemptions(signature_nonce);

        CREATE TABLE offer_holdouts (
            bundle_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            user_key TEXT NOT NULL,
            environment TEXT NOT NULL,
            decided_at_ms INTEGER NOT NULL,
            percent INTEGER NOT NULL,
            PRIMARY KEY (bundle_id, offer_id, user_key)
        );
        """)
}
