extension SchemaStep {
    /// What became of the offers (SQLite 11, PostgreSQL 5; it only adds).
    ///
    /// - `offer_redemptions`: each redemption of a promotional or win-back offer found in the
    ///   history (named by its first period's transaction), with the facts of its outcome, its
    ///   revenue by currency and the nonce of the signature that explains it (NULL: unmatched).
    ///   Derived: `offer-signer outcomes rebuild` makes it again from the history and the log.
    /// - `offer_holdouts`: the first decision to hold a user out of an offer.
    static let offerOutcomes = SchemaStep(
        summary: "offer outcomes: redemptions matched to signatures, holdout decisions",
        sql: { d in """
            CREATE TABLE offer_redemptions (
                id \(d.rowId),
                environment \(d.key) NOT NULL,
                transaction_id \(d.key) NOT NULL,
                bundle_id \(d.key) NOT NULL,
                offer_id \(d.key),
                offer_type \(d.integer) NOT NULL,
                original_transaction_id \(d.key) NOT NULL,
                group_id TEXT NOT NULL,
                app_account_token TEXT,
                purchase_ms \(d.integer) NOT NULL,
                refunded \(d.integer) NOT NULL,
                retained \(d.integer) NOT NULL,
                ends_ms \(d.integer) NOT NULL,
                revenue_json TEXT NOT NULL,
                signature_nonce \(d.key),
                managed \(d.integer) NOT NULL,
                updated_at_ms \(d.integer) NOT NULL,
                UNIQUE (environment, transaction_id)
            );
            CREATE INDEX offer_redemptions_by_offer ON offer_redemptions\(d.indexSpace)(bundle_id, offer_id, purchase_ms);
            CREATE INDEX offer_redemptions_by_subscription ON offer_redemptions\(d.indexSpace)(environment, original_transaction_id);
            CREATE INDEX offer_redemptions_by_nonce ON offer_redemptions\(d.indexSpace)(signature_nonce);

            CREATE TABLE offer_holdouts (
                bundle_id \(d.key) NOT NULL,
                offer_id \(d.key) NOT NULL,
                user_key \(d.key) NOT NULL,
                environment TEXT NOT NULL,
                decided_at_ms \(d.integer) NOT NULL,
                percent \(d.integer) NOT NULL,
                PRIMARY KEY (bundle_id, offer_id, user_key)
            );
            """ })
}
