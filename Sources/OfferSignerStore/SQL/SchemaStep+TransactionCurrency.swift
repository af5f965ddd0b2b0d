extension SchemaStep {
    /// The currency of each transaction (SQLite 17, PostgreSQL 11; it only adds).
    ///
    /// - `transactions` gains `currency`: the ISO 4217 code of the signed payload's `currency`
    ///   (``SignedPayloadField/currency(inJWS:)``; NULL when the payload names none), written
    ///   with every transaction stored and filled into rows stored before by each engine's
    ///   migration (``TransactionCurrencyBackfill``), so an experiment's report and revenue caps
    ///   read it as a column instead of decoding every paid period's JWS.
    static let transactionCurrency = SchemaStep(
        summary: "the currency of each transaction, as a column",
        sql: { _ in """
            ALTER TABLE transactions ADD COLUMN currency TEXT;
            """ })
}
