extension SchemaStep {
    /// Retention Messaging and introductory-offer eligibility (SQLite 8, PostgreSQL 2; it only adds).
    ///
    /// - `signatures` gains `source` (`api` for every existing record) and
    ///   `allow_introductory_offer` (set only on introductory-offer eligibility records).
    /// - `managed_rules` keeps retention rules and introductory-offer rules (`kind`), keyed by
    ///   app and rule ID, as JSON with a version; `managed_rule_changes` records every change
    ///   (who, when, before, after), as `offer_changes` does for offers.
    /// - `retention_requests` keeps each answered Retention Messaging request by Apple's
    ///   `requestIdentifier`, with the exact answer, so a repeated request gets it again on any instance.
    static let retentionRules = SchemaStep(
        summary: "signature sources; retention and introductory-offer rules; answered retention requests",
        sql: { d in """
            ALTER TABLE signatures ADD COLUMN source TEXT NOT NULL DEFAULT 'api';
            ALTER TABLE signatures ADD COLUMN allow_introductory_offer \(d.integer);

            CREATE TABLE managed_rules (
                kind \(d.key) NOT NULL,
                bundle_id \(d.key) NOT NULL,
                rule_id \(d.key) NOT NULL,
                rule_json TEXT NOT NULL,
                version \(d.integer) NOT NULL,
                created_at_ms \(d.integer) NOT NULL,
                updated_at_ms \(d.integer) NOT NULL,
                PRIMARY KEY (kind, bundle_id, rule_id)
            );
            CREATE TABLE managed_rule_changes (
                id \(d.rowId),
                kind TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                rule_id TEXT NOT NULL,
                version \(d.integer) NOT NULL,
                action TEXT NOT NULL,
                api_key_name TEXT NOT NULL,
                changed_at_ms \(d.integer) NOT NULL,
                before_json TEXT,
                after_json TEXT
            );
            CREATE INDEX managed_rule_changes_by_rule ON managed_rule_changes\(d.indexSpace)(kind, bundle_id, rule_id, id);

            CREATE TABLE retention_requests (
                request_identifier \(d.key) PRIMARY KEY,
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
                signed_date_ms \(d.integer) NOT NULL,
                answered_at_ms \(d.integer) NOT NULL
            );
            CREATE INDEX retention_requests_by_time ON retention_requests\(d.indexSpace)(answered_at_ms);
            """ })
}
