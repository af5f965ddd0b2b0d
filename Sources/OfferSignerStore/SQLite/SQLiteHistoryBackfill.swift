import Foundation
import OfferSignerCore

/// Fills the history columns added by schema version 4 into rows stored before it, from the
/// signed JWS each row keeps. The JWS was verified when it was stored, so only its payload is
/// decoded here. Rows are visited in pages by rowid, so memory stays bounded on large
/// databases; a row whose JWS does not decode (it cannot happen to data this service stored)
/// keeps its columns empty rather than stopping the migration.
enum SQLiteHistoryBackfill {
    /// Rows read per page.
    static let pageSize = 500

    static func transactions(_ db: SQLiteConnection) throws(SQLiteError) {
        try forEachRow(db, table: "transactions", column: "signed_transaction") { rowid, jws, hasEnvironment throws(SQLiteError) in
            guard let payload = try? StoredSignedData.payload(JWSTransactionDecodedPayload.self, of: jws) else { return }
            try db.run("""
                UPDATE transactions SET revocation_reason = ?, revocation_type = ?, revocation_percentage = ?, is_upgraded = ?,
                    ownership_type = ?, transaction_reason = ?
                WHERE rowid = ?
                """, [.optional(payload.rawRevocationReason.map(Int64.init)), .optional(payload.rawRevocationType),
                      .optional(payload.revocationPercentage.map(Int64.init)), .optional(payload.isUpgraded.map { $0 ? 1 : 0 }),
                      .optional(payload.rawInAppOwnershipType), .optional(payload.rawTransactionReason), .integer(rowid)])
            if !hasEnvironment, let environment = payload.rawEnvironment {
                try db.run("UPDATE transactions SET environment = ? WHERE rowid = ?", [.text(environment), .integer(rowid)])
            }
        }
    }

    static func renewals(_ db: SQLiteConnection) throws(SQLiteError) {
        try forEachRow(db, table: "renewals", column: "signed_renewal_info") { rowid, jws, hasEnvironment throws(SQLiteError) in
            guard let payload = try? StoredSignedData.payload(JWSRenewalInfoDecodedPayload.self, of: jws) else { return }
            try db.run("UPDATE renewals SET expiration_intent = ?, win_back_offer_ids = ? WHERE rowid = ?",
                       [.optional(payload.rawExpirationIntent.map(Int64.init)),
                        .text(WinBackOfferIds.encode(payload.eligibleWinBackOfferIds ?? [])), .integer(rowid)])
            if !hasEnvironment, let environment = payload.rawEnvironment {
                try db.run("UPDATE renewals SET environment = ? WHERE rowid = ?", [.text(environment), .integer(rowid)])
            }
        }
    }

    /// Calls `body` with the rowid, `column` and whether the environment is known of every
    /// row of `table`, a page at a time.
    private static func forEachRow(_ db: SQLiteConnection, table: String, column: String,
                                   _ body: (Int64, String, Bool) throws(SQLiteError) -> Void) throws(SQLiteError) {
        var after: Int64 = 0
        while true {
            let statement = try db.statement("""
                SELECT rowid, \(column), environment <> '' FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT \(pageSize)
                """)
            try statement.bind([.integer(after)])
            var page: [(Int64, String, Bool)] = []
            while try statement.step() {
                let row = SQLiteRow(statement: statement)
                page.append((row.int64(0), row.text(1), row.int64(2) != 0))
            }
            guard let last = page.last else { return }
            for (rowid, jws, hasEnvironment) in page { try body(rowid, jws, hasEnvironment) }
            after = last.0
        }
    }
}

/// `eligibleWinBackOfferIds` as the renewals table keeps it: a JSON array of strings.
enum WinBackOfferIds {
    static func encode(_ ids: [String]) -> String {
        (try? JSONEncoder().encode(ids)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    /// The IDs in `text`; empty for anything that is not a JSON array of strings.
    static func decode(_ text: String) -> [String] {
        guard text != "[]" else { return [] }  // nearly every renewal: no decoder made on the signing path
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
