import Foundation
import OfferSignerCore

/// Offer activity in PostgreSQL: refusals in `offer_refusals_daily` (each instance adds its
/// counts; the upsert sums them), signatures counted from the one signature log.
public final class PostgreSQLOfferActivityStore: OfferActivityStore, Sendable {
    private let database: PostgreSQLDatabase
    static let dayMilliseconds: Int64 = 86_400_000

    public init(database: PostgreSQLDatabase) {
        self.database = database
    }

    public func addRefusals(_ counts: [RefusalCount]) throws {
        guard !counts.isEmpty else { return }
        // In key order, so that two instances adding counts at once cannot deadlock.
        let sorted = counts.sorted { ($0.offer, $0.day, $0.criterion) < ($1.offer, $1.day, $1.criterion) }
        try database.write { db in
            for count in sorted {
                try db.query("""
                    INSERT INTO offer_refusals_daily (bundle_id, offer_id, day, criterion, count) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (bundle_id, offer_id, day, criterion) DO UPDATE SET count = offer_refusals_daily.count + excluded.count
                    """, [.text(count.offer.bundleId), .text(count.offer.offerId), .integer(count.day), .text(count.criterion),
                          .integer(Int64(count.count))])
            }
        }
    }

    public func refusals(bundleId: String, offerId: String, fromDay: Int64, toDay: Int64) throws -> [RefusalCount] {
        let offer = OfferKey(bundleId: bundleId, offerId: offerId)
        return try database.read { db in
            try db.query("""
                SELECT day, criterion, count FROM offer_refusals_daily
                WHERE bundle_id = $1 AND offer_id = $2 AND day >= $3 AND day <= $4 ORDER BY day, criterion
                """, [.text(bundleId), .text(offerId), .integer(fromDay), .integer(toDay)]).map { row in
                RefusalCount(day: row.int64(0), offer: offer, criterion: row.text(1), count: row.int(2))
            }
        }
    }

    public func refusedRequests(fromDay: Int64, toDay: Int64) throws -> [OfferKey: Int] {
        let rows = try database.read { db in
            try db.query("""
                SELECT bundle_id, offer_id, SUM(count) FROM offer_refusals_daily
                WHERE criterion = '' AND day >= $1 AND day <= $2 GROUP BY bundle_id, offer_id
                """, [.integer(fromDay), .integer(toDay)]).map { (OfferKey(bundleId: $0.text(0), offerId: $0.text(1)), $0.int(2)) }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    public func signaturesPerDay(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> [Int64: Int] {
        let rows = try database.read(.audit) { db in
            try db.query("""
                SELECT timestamp_ms / $1, COUNT(*) FROM signatures
                WHERE offer_id = $2 AND timestamp_ms >= $3 AND timestamp_ms < $4 AND bundle_id = $5 GROUP BY 1
                """, [.integer(Self.dayMilliseconds), .text(offerId), .integer(from), .integer(to), .text(bundleId)]).map {
                ($0.int64(0), $0.int(1))
            }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    public func signatures(from: Int64, to: Int64) throws -> [OfferKey: Int] {
        let rows = try database.read(.audit) { db in
            try db.query("""
                SELECT bundle_id, offer_id, COUNT(*) FROM signatures
                WHERE timestamp_ms >= $1 AND timestamp_ms < $2 GROUP BY bundle_id, offer_id
                """, [.integer(from), .integer(to)]).map { (OfferKey(bundleId: $0.text(0), offerId: $0.text(1)), $0.int(2)) }
        }
        return Dictionary(rows, uniquingKeysWith: +)
    }
}
