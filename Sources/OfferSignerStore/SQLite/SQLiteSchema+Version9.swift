extension SQLiteSchema {
    /// Apple's data as it is in 2026 (self-contained: it only adds).
    ///
    /// - `transactions` gains `app_transaction_id`, `offer_period`, `billing_plan_type` and the
    ///   JSON of `commitment_info` and `advanced_commerce_info`; `renewals` gains
    ///   `app_transaction_id`, filled for rows stored before from their signed JWS (see
    ///   ``HistoryFieldsBackfill``).
    /// - `consent_events` records each `RESCIND_CONSENT` (by notification, once) and each
    ///   clearing of it (who and why), per app download; the latest event of an app download
    ///   says whether its consent is rescinded.
    static let version9 = SQLiteMigration(
        version: 9, summary: "app transaction IDs and 2026 transaction fields; consent rescinded and cleared",
        sql: """
        ALTER TABLE transactions ADD COLUMN app_transaction_id TEXT;
        ALTER TABLE transactions ADD COLUMN offer_period TEXT;
        ALTER TABLE transactions ADD COLUMN billing_plan_type TEXT;
        ALTER TABLE transactions ADD COLUMN commitment_info TEXT;
        ALTER TABLE transactions ADD COLUMN advanced_commerce_info TEXT;
        ALTER TABLE renewals ADD COLUMN app_transaction_id TEXT;

        CREATE TABLE consent_events (
            id INTEGER PRIMARY KEY,
            app_transaction_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            action TEXT NOT NULL,
            at_ms INTEGER NOT NULL,
            recorded_at_ms INTEGER NOT NULL,
            notification_uuid TEXT UNIQUE,
            actor TEXT,
            reason TEXT
        );
        CREATE INDEX consent_events_by_download ON consent_events(app_transaction_id, environment, at_ms);
        CREATE INDEX consent_events_by_app ON consent_events(bundle_id, id);
        """,
        backfill: { db throws(SQLiteError) in
            do {
                try HistoryFieldsBackfill.run(db)
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw SQLiteError(extendedCode: 1, message: "filling the 2026 history fields: \(error)", sql: nil)
            }
        })
}
