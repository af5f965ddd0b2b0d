import Foundation
import OfferSignerCore

/// Fills the history columns added in 2026 (SQLite 9, PostgreSQL 3: `app_transaction_id`,
/// `offer_period`, `billing_plan_type`, `commitment_info`, `advanced_commerce_info`) into rows
/// stored before them, from the signed JWS each row keeps (verified when it was stored, so only
/// its payload is decoded), in the migration's transaction. Rows are read a page at a time in
/// key order, so memory stays bounded; a JWS that does not decode leaves its row as it was.
enum HistoryFieldsBackfill {
    /// Rows read per page.
    static let pageSize = 500

    static func run(_ db: some SQLConnection) throws {
        try forEachPage(db, table: "transactions", key: "transaction_id", jwsColumn: "signed_transaction") { environment, id, jws in
            guard let payload = try? StoredSignedData.payload(JWSTransactionDecodedPayload.self, of: jws),
                  payload.appTransactionId != nil || payload.offerPeriod != nil || payload.rawBillingPlanType != nil
                    || payload.commitmentInfo != nil || payload.advancedCommerceInfo != nil else { return }
            _ = try db.change("""
                UPDATE transactions SET app_transaction_id = ?, offer_period = ?, billing_plan_type = ?, commitment_info = ?,
                    advanced_commerce_info = ?
                WHERE environment = ? AND transaction_id = ?
                """, [.optional(payload.appTransactionId.flatMap { $0.isEmpty ? nil : $0 }), .optional(payload.offerPeriod),
                      .optional(payload.rawBillingPlanType), HistoryRows.jsonText(payload.commitmentInfo),
                      HistoryRows.jsonText(payload.advancedCommerceInfo), .text(environment), .text(id)])
        }
        try forEachPage(db, table: "renewals", key: "original_transaction_id", jwsColumn: "signed_renewal_info") { environment, id, jws in
            guard let payload = try? StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: jws),
                  let download = payload.appTransactionId, !download.isEmpty else { return }
            _ = try db.change("UPDATE renewals SET app_transaction_id = ? WHERE environment = ? AND original_transaction_id = ?",
                              [.text(download), .text(environment), .text(id)])
        }
    }

    /// Calls `body` with the environment, key and JWS of every row of `table`, in key order.
    static func forEachPage(_ db: some SQLConnection, table: String, key: String, jwsColumn: String,
                                    _ body: (String, String, String) throws -> Void) throws {
        try forEachPage(db, table: table, key: key, jwsColumn: jwsColumn, pageSize: pageSize) { page in
            for (environment, id, jws) in page { try body(environment, id, jws) }
        }
    }

    /// Calls `body` with each page of at most `pageSize` rows of `table` (environment, key and
    /// JWS each), in key order. Each page is read from a seek to the key after the last
    /// page's (a row-value comparison both engines take through the primary key; an `OR` of
    /// the two columns made SQLite scan the key from the start for every page).
    static func forEachPage(_ db: some SQLConnection, table: String, key: String, jwsColumn: String, pageSize: Int,
                            _ body: ([(String, String, String)]) throws -> Void) throws {
        var after = ("", "")
        while true {
            let page = try db.select("""
                SELECT environment, \(key), \(jwsColumn) FROM \(table)
                WHERE (environment, \(key)) > (?, ?)
                ORDER BY environment, \(key) LIMIT ?
                """, [.text(after.0), .text(after.1), .limit(pageSize)]) { row in
                (row.text(0), row.text(1), row.text(2))
            }
            try body(page)
            guard let last = page.last, page.count == pageSize else { return }
            after = (last.0, last.1)
        }
    }
}
