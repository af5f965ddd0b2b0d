extension SchemaStep {
    /// The outbox keeps each user's order with an index of the held rows only (SQLite 19,
    /// PostgreSQL 12).
    ///
    /// - `webhook_outbox_by_user` (every event, by webhook and user: a random page of it written
    ///   with each event, inside the signature batch's commit) is replaced by
    ///   `webhook_outbox_held`: only the pending rows that were claimed or tried (leased, or
    ///   waiting after a failure), the rows that hold a user's later events back. An event is
    ///   written untouched, so writing one touches none of its pages; a claim and a try do.
    ///   (`IF EXISTS`, `IF NOT EXISTS`: it may run again over its own result.)
    static let webhookOutboxHeld = SchemaStep(
        summary: "the outbox's order per user kept by an index of the claimed or tried pending rows only",
        sql: { d in """
            DROP INDEX IF EXISTS webhook_outbox_by_user;
            CREATE INDEX IF NOT EXISTS webhook_outbox_held ON webhook_outbox\(d.indexSpace)(webhook_id, ordering_key, id)
                WHERE state = 'pending' AND (attempts > 0 OR lease_until_ms IS NOT NULL);
            """ })
}
