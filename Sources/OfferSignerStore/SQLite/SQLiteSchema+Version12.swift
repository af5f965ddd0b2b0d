extension SQLiteSchema {
    /// Subscriptions linked to app account tokens at Apple (self-contained: it only adds).
    ///
    /// - `app_account_token_links`: every ended attempt to set a subscription's app account
    ///   token through Set App Account Token (linked, refused or failed), who asked and why.
    static let version12 = SQLiteMigration(
        version: 12, summary: "app account token links: subscriptions attributed to users at Apple",
        sql: """
        CREATE TABLE app_account_token_links (
            id INTEGER PRIMARY KEY,
            bundle_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            app_account_token TEXT NOT NULL,
            outcome TEXT NOT NULL,
            existing_token TEXT,
            reason TEXT,
            actor TEXT NOT NULL,
            request_id TEXT,
            forced INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX app_account_token_links_by_subscription
            ON app_account_token_links(bundle_id, environment, original_transaction_id);
        CREATE INDEX app_account_token_links_by_token ON app_account_token_links(app_account_token);
        """)
}
