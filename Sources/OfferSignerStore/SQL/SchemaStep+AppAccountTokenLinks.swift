extension SchemaStep {
    /// Subscriptions linked to app account tokens at Apple (SQLite 12, PostgreSQL 6; it only adds).
    ///
    /// - `app_account_token_links`: every ended attempt to set a subscription's app account
    ///   token through Set App Account Token (linked, refused or failed), who asked and why.
    static let appAccountTokenLinks = SchemaStep(
        summary: "app account token links: subscriptions attributed to users at Apple",
        sql: { d in """
            CREATE TABLE app_account_token_links (
                id \(d.rowId),
                bundle_id \(d.key) NOT NULL,
                environment \(d.key) NOT NULL,
                original_transaction_id \(d.key) NOT NULL,
                app_account_token \(d.key) NOT NULL,
                outcome TEXT NOT NULL,
                existing_token TEXT,
                reason TEXT,
                actor TEXT NOT NULL,
                request_id TEXT,
                forced \(d.integer) NOT NULL,
                attempts \(d.integer) NOT NULL,
                at_ms \(d.integer) NOT NULL
            );
            CREATE INDEX app_account_token_links_by_subscription
                ON app_account_token_links\(d.indexSpace)(bundle_id, environment, original_transaction_id);
            CREATE INDEX app_account_token_links_by_token ON app_account_token_links\(d.indexSpace)(app_account_token);
            """ })
}
