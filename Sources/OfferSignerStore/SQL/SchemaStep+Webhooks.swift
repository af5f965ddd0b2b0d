extension SchemaStep {
    /// Webhooks and their outbox (SQLite 16, PostgreSQL 10; it only adds).
    ///
    /// - `webhooks`: each webhook's URL, subscribed event types and apps, secrets.
    /// - `webhook_changes`: every change of a webhook, who made it, the webhook after it (no secret).
    /// - `webhook_outbox`: one row per event and subscribed webhook, written in the transaction
    ///   that caused the event; its delivery state, tries and the last answer.
    static let webhooks = SchemaStep(
        summary: "webhooks, their changes and the outbox of events to deliver",
        sql: { d in """
            CREATE TABLE webhooks (
                webhook_id \(d.key) PRIMARY KEY,
                url TEXT NOT NULL,
                events TEXT NOT NULL,
                bundle_ids TEXT,
                enabled \(d.integer) NOT NULL,
                secret TEXT NOT NULL,
                previous_secret TEXT,
                previous_secret_until_ms \(d.integer),
                created_at_ms \(d.integer) NOT NULL,
                updated_at_ms \(d.integer) NOT NULL
            );
            CREATE TABLE webhook_changes (
                id \(d.rowId),
                webhook_id \(d.key) NOT NULL,
                action TEXT NOT NULL,
                actor TEXT NOT NULL,
                at_ms \(d.integer) NOT NULL,
                document TEXT
            );
            CREATE INDEX webhook_changes_by_webhook ON webhook_changes\(d.indexSpace)(webhook_id, id);
            CREATE TABLE webhook_outbox (
                id \(d.rowId),
                webhook_id \(d.key) NOT NULL,
                event_id \(d.key) NOT NULL,
                event_type TEXT NOT NULL,
                ordering_key \(d.key) NOT NULL,
                occurred_at_ms \(d.integer) NOT NULL,
                body TEXT NOT NULL,
                state \(d.key) NOT NULL,
                attempts \(d.integer) NOT NULL,
                queued_at_ms \(d.integer) NOT NULL,
                next_attempt_ms \(d.integer) NOT NULL,
                lease_until_ms \(d.integer),
                claim TEXT,
                last_attempt_ms \(d.integer),
                last_status \(d.integer),
                last_answer TEXT,
                last_error TEXT,
                delivered_at_ms \(d.integer),
                UNIQUE (webhook_id, event_id)
            );
            CREATE INDEX webhook_outbox_by_state ON webhook_outbox\(d.indexSpace)(state, id);
            CREATE INDEX webhook_outbox_by_user ON webhook_outbox\(d.indexSpace)(webhook_id, ordering_key, state, id);
            CREATE INDEX webhook_outbox_by_time ON webhook_outbox\(d.indexSpace)(webhook_id, occurred_at_ms);
            """ })
}
