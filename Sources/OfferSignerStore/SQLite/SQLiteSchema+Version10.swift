extension SQLiteSchema {
    /// Retention answers kept per app and environment: `retention_requests` is keyed on
    /// (`bundle_id`, `environment`, `request_identifier`), so one app's answer is never given
    /// for another's request that reuses the identifier (the rows are kept as they are).
    static let version10 = SQLiteMigration(
        version: 10, summary: "retention answers keyed by app, environment and request identifier",
        sql: """
        CREATE TABLE retention_requests_v10 (
            request_identifier TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            user_locale TEXT NOT NULL,
            user_id TEXT,
            rule_id TEXT,
            answer TEXT NOT NULL,
            signature_nonce TEXT,
            response_json TEXT NOT NULL,
            signed_date_ms INTEGER NOT NULL,
            answered_at_ms INTEGER NOT NULL,
            PRIMARY KEY (bundle_id, environment, request_identifier)
        );
        INSERT INTO retention_requests_v10 SELECT request_identifier, bundle_id, environment, original_transaction_id, product_id,
            user_locale, user_id, rule_id, answer, signature_nonce, response_json, signed_date_ms, answered_at_ms
            FROM retention_requests;
        DROP TABLE retention_requests;
        ALTER TABLE retention_requests_v10 RENAME TO retention_requests;
        CREATE INDEX retention_requests_by_time ON retention_requests(answered_at_ms);
        """)
}
