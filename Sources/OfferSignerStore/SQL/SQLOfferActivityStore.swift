import Foundation
import OfferSignerCore

/// Offer activity: refusals in `offer_refusals_daily` (on PostgreSQL each instance adds its
/// counts; the upsert sums them), signatures counted from the signature log through its
/// `(offer_id, timestamp_ms)` index.
final class SQLOfferActivityStore<Database: SQLDatabase>: OfferActivityStore, Sendable {
    private let database: Database
    static var dayMilliseconds: Int64 { 86_400_000 }

    init(database: Database) { self.database = database }

    public func addRefusals(_ counts: [RefusalCount]) throws {
        guard !counts.isEmpty else { return }
        // In key order, so that two instances adding counts at once cannot deadlock.
        let sorted = counts.sorted { ($0.offer, $0.day, $0.criterion) < ($1.offer, $1.day, $1.criterion) }
        try database.inTransaction { db in
            for count in sorted {
                try db.change("""
                    INSERT INTO offer_refusals_daily (bundle_id, offer_id, day, criterion, count) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (bundle_id, offer_id, day, criterion) DO UPDATE SET count = offer_refusals_daily.count + excluded.count
                    """, [.text(count.offer.bundleId), .text(count.offer.offerId), .integer(count.day), .text(count.criterion),
                          .integer(Int64(count.count))])
            }
        }
    }

    public func refusals(bundleId: String, offerId: String, fromDay: Int64, toDay: Int64) throws -> [RefusalCount] {
        let offer = OfferKey(bundleId: bundleId, offerId: offerId)
        return try database.withReader { db in
            try db.select("""
                SELECT day, criterion, count FROM offer_refusals_daily
                WHERE bundle_id = ? AND offer_id = ? AND day >= ? AND day <= ? ORDER BY day, criterion
                """, [.text(bundleId), .text(offerId), .integer(fromDay), .integer(toDay)]) { row in
                RefusalCount(day: row.int64(0), offer: offer, criterion: row.text(1), count: row.int(2))
            }
        }
    }

    public func refusedRequests(fromDay: Int64, toDay: Int64) throws -> [OfferKey: Int] {
        let rows = try database.withReader { db in
            try db.select("""
                SELECT bundle_id, offer_id, SUM(count) FROM offer_refusals_daily
                WHERE criterion = '' AND day >= ? AND day <= ? GROUP BY bundle_id, offer_id
                """, [.integer(fromDay), .integer(toDay)]) { (OfferKey(bundleId: $0.text(0), offerId: $0.text(1)), $0.int(2)) }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    /// Counted on the audit lane: it scans the signature log.
    public func signaturesPerDay(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> [Int64: Int] {
        let rows = try database.withReader(.audit) { db in
            try db.select("""
                SELECT timestamp_ms / ?, COUNT(*) FROM signatures
                WHERE offer_id = ? AND timestamp_ms >= ? AND timestamp_ms < ? AND bundle_id = ? GROUP BY 1
                """, [.integer(Self.dayMilliseconds), .text(offerId), .integer(from), .integer(to), .text(bundleId)]) {
                ($0.int64(0), $0.int(1))
            }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    public func signatures(from: Int64, to: Int64) throws -> [OfferKey: Int] {
        let rows = try database.withReader(.audit) { db in
            try db.select("""
                SELECT bundle_id, offer_id, COUNT(*) FROM signatures
                WHERE timestamp_ms >= ? AND timestamp_ms < ? GROUP BY bundle_id, offer_id
                """, [.integer(from), .integer(to)]) { (OfferKey(bundleId: $0.text(0), offerId: $0.text(1)), $0.int(2)) }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }
}

/// The store as SQLite's callers know it.
typealias SQLiteOfferActivityStore = SQLOfferActivityStore<SQLiteDatabase>
/// The store as PostgreSQL's callers know it.
typealias PostgreSQLOfferActivityStore = SQLOfferActivityStore<PostgreSQLDatabase>
