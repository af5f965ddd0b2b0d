import Foundation
import OfferSignerCore

/// What became of one offer's signatures and redemptions over a period, and the holdout
/// comparison: the answer of `GET /v1/stats/offers/{offerId}/outcomes` and of
/// `offer-signer outcomes report`.
public struct OutcomeReport: Codable, Hashable, Sendable {
    public var bundleId: String
    public var offerId: String
    public var environment: AppStoreEnvironment
    /// RFC 3339, inclusive.
    public var from: String
    /// RFC 3339, exclusive.
    public var to: String
    /// Signatures of the offer with timestamps in the period.
    public var signed: Int
    /// Redemptions of the offer that started in the period.
    public var redemptions: Int
    public var matched: Int
    public var unmatched: Int
    public var retained: Int
    public var churned: Int
    public var refunded: Int
    public var inOffer: Int
    /// Per currency, in milli-units as Apple reports `price`.
    public var revenue: [String: Int]
    public var holdout: GroupReturns
    public var treated: GroupReturns
    /// Treated return rate minus holdout return rate with its 95 % interval; nil when either group is empty.
    @EncodedAsNull public var lift: LiftEstimate?
    /// RFC 3339: when the holdout ended (`holdoutPercent` set to 0; users decided after it are
    /// all signed); nil while the offer has a holdout or never had one.
    @EncodedAsNull public var holdoutEndedAt: String?

    /// Users of one group (by their first decision in the period) and how many of them returned.
    public struct GroupReturns: Codable, Hashable, Sendable {
        public var users: Int
        public var returned: Int
    }

    /// The CSV header of ``csvFields``.
    public static let csvHeader = [
        "bundleId", "offerId", "environment", "from", "to", "signed", "redemptions", "matched", "unmatched", "retained", "churned",
        "refunded", "inOffer", "revenue", "holdoutUsers", "holdoutReturned", "treatedUsers", "treatedReturned", "liftDifference",
        "liftLow", "liftHigh", "holdoutEndedAt",
    ]

    /// One CSV row; revenue as `CUR amount` pairs joined by `;` (`EUR 4990;USD 9990`), an absent lift as empty fields.
    public var csvFields: [String] {
        [bundleId, offerId, environment.rawValue, from, to, String(signed), String(redemptions), String(matched), String(unmatched),
         String(retained), String(churned), String(refunded), String(inOffer),
         revenue.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ";"),
         String(holdout.users), String(holdout.returned), String(treated.users), String(treated.returned),
         lift.map { String($0.difference) } ?? "", lift.map { String($0.low) } ?? "", lift.map { String($0.high) } ?? "",
         holdoutEndedAt ?? ""]
    }
}
