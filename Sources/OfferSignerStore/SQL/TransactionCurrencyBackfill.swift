import Foundation

/// Fills `transactions.currency` (SQLite 17, PostgreSQL 11) into rows stored before the
/// column, from the signed JWS each row keeps, exactly as ``SignedPayloadField/currency(inJWS:)``
/// reads it (what the report read before the column existed), in the migration's transaction.
/// A payload that names no currency leaves NULL.
///
/// Rows are read a page of ``pageSize`` at a time in key order (a seek to the page's first
/// key, ``HistoryFieldsBackfill/forEachPage(_:table:key:jwsColumn:pageSize:_:)``) and each
/// page's currencies are written by one `UPDATE` joined to the page's values, so the
/// migration makes one statement per page rather than one per row (what costs on PostgreSQL,
/// a round trip each). How it runs changed after release; what it writes did not.
enum TransactionCurrencyBackfill {
    /// Rows read and written per statement (three values bound per row).
    static let pageSize = 2_000

    static func run(_ db: some SQLConnection, pageSize: Int = pageSize) throws {
        try HistoryFieldsBackfill.forEachPage(db, table: "transactions", key: "transaction_id", jwsColumn: "signed_transaction",
                                              pageSize: pageSize) { page in
            var values: [SQLValue] = []
            values.reserveCapacity(page.count * 3)
            for (environment, id, jws) in page {
                values += [.text(environment), .text(id), .optional(SignedPayloadField.currency(inJWS: jws))]
            }
            guard !page.isEmpty else { return }
            _ = try db.change(statement(rows: page.count), values)
        }
    }

    /// One `UPDATE` of `rows` rows: (environment, transaction ID, currency) each; a row whose
    /// currency is NULL is left as it is. (Every row of the page is bound, so the statement's
    /// text depends only on the page's length: a full page's is prepared once.)
    static func statement(rows: Int) -> String {
        """
        WITH filled (environment, transaction_id, currency) AS (VALUES \(Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")))
        UPDATE transactions SET currency = filled.currency FROM filled
        WHERE transactions.environment = filled.environment AND transactions.transaction_id = filled.transaction_id
            AND filled.currency IS NOT NULL
        """
    }
}
