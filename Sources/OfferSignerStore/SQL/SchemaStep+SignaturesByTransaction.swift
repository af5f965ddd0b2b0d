extension SchemaStep {
    /// Signatures by the transaction they are bound to (SQLite 13, PostgreSQL 7; it only adds).
    ///
    /// - `signatures_by_transaction`: matching a redemption to a JWS signature bound to its
    ///   subscription by the `transactionId` claim, whatever the signature's user, and a
    ///   token-less customer's first decision about an offer, are each an indexed lookup.
    static let signaturesByTransaction = SchemaStep(
        summary: "signatures by the transaction they are bound to",
        sql: { d in """
            CREATE INDEX signatures_by_transaction ON signatures\(d.indexSpace)(transaction_id, offer_id, timestamp_ms)
                WHERE transaction_id IS NOT NULL;
            """ })
}
