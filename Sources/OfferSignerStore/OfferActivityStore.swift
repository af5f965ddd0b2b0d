import Foundation

/// What happened to an offer, day by day (UTC): signatures issued, counted from the
/// signature log itself, and signing requests refused, aggregated per failed criterion (a
/// refusal is counted, never logged on its own).
public protocol OfferActivityStore: Sendable {
    /// Adds refusal counts to the stored daily totals, in one transaction.
    func addRefusals(_ counts: [RefusalCount]) throws

    /// The stored refusal counts of an offer for days `fromDay...toDay`.
    func refusals(bundleId: String, offerId: String, fromDay: Int64, toDay: Int64) throws -> [RefusalCount]

    /// Refusals of every offer for days `fromDay...toDay`, summed per offer (criterion '' only).
    func refusedRequests(fromDay: Int64, toDay: Int64) throws -> [OfferKey: Int]

    /// Signatures of an offer per day (days since 1970-01-01, UTC) with timestamps in `from..<to` (ms).
    func signaturesPerDay(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> [Int64: Int]

    /// Signatures of every offer with timestamps in `from..<to` (ms).
    func signatures(from: Int64, to: Int64) throws -> [OfferKey: Int]
}
