import Foundation

/// Fills `transactions.currency` (SQLite 17, PostgreSQL 11) into rows stored before the
/// column, from the signed JWS each row keeps, exactly as ``SignedPayloadField/currency(inJWS:)``
/// reads it (what the report read before the column existed), in the migration's transaction,
/// a page of rows at a time in key order. A payload that names no currency leaves NULL.
enum TransactionCurrencyBackfill {
    static func run(_ db: some SQLConnection) throws {
        try HistoryFieldsBackfill.forEachPage(db, table: "transactions", key: "transaction_id", jwsColumn: "signed_transaction") { environment, id, jws in
            guard let currency = SignedPayloadField.currency(inJWS: jws) else { return }
            _ = try db.change("UPDATE transactions SET currency = ? WHERE environment = ? AND transaction_id = ?",
                              [.text(currency), .text(environment), .text(id)])
        }
    }
}
