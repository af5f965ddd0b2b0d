extension SchemaStep {
    /// Apple's data as it is in 2026 (SQLite 9, PostgreSQL 3; it only adds).
    ///
    /// - `transactions` gains `app_transaction_id`, `offer_period`, `billing_plan_type` and the
    ///   JSON of `commitment_info` and `advanced_commerce_info`; `renewals` gains
    ///   `app_transaction_id`. Each engine's migration fills them into rows stored before, from
    ///   their signed JWS (see ``HistoryFieldsBackfill``).
    /// - `consent_events` records each `RESCIND_CONSENT` (by notification, once) and each
    ///   clearing of it (who and why), per app download; the latest event of an app download
    ///   says whether its consent is rescinded.
    static let appleData2026 = SchemaStep(
        summary: "app transaction IDs and 2026 transaction fields; consent rescinded and cleared",
        sql: { d in """
            ALTER TABLE transactions ADD COLUMN app_transaction_id TEXT;
            ALTER TABLE transactions ADD COLUMN offer_period TEXT;
            ALTER TABLE transactions ADD COLUMN billing_plan_type TEXT;
            ALTER TABLE transactions ADD COLUMN commitment_info TEXT;
            ALTER TABLE transactions ADD COLUMN advanced_commerce_info TEXT;
            ALTER TABLE renewals ADD COLUMN app_transaction_id TEXT;

            CREATE TABLE consent_events (
                id \(d.rowId),
                app_transaction_id \(d.key) NOT NULL,
                environment \(d.key) NOT NULL,
                bundle_id \(d.key) NOT NULL,
                action TEXT NOT NULL,
                at_ms \(d.integer) NOT NULL,
                recorded_at_ms \(d.integer) NOT NULL,
                notification_uuid TEXT UNIQUE,
                actor TEXT,
                reason TEXT
            );
            CREATE INDEX consent_events_by_download ON consent_events\(d.indexSpace)(app_transaction_id, environment, at_ms);
            CREATE INDEX consent_events_by_app ON consent_events\(d.indexSpace)(bundle_id, id);
            """ })
}
