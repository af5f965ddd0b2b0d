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
    public var lift: LiftEstimate?

    /// Users of one group (by their first decision in the period) and how many of them returned.
    public struct GroupReturns: Codable, Hashable, Sendable {
        public var users: Int
        public var returned: Int
    }

    enum CodingKeys: String, CodingKey {
        case bundleId, offerId, environment, from, to, signed, redemptions, matched, unmatched, retained, churned, refunded, inOffer,
             revenue, holdout, treated, lift
    }

    public init(bundleId: String, offerId: String, environment: AppStoreEnvironment, from: String, to: String, signed: Int,
                redemptions: Int, matched: Int, unmatched: Int, retained: Int, churned: Int, refunded: Int, inOffer: Int,
                revenue: [String: Int], holdout: GroupReturns, treated: GroupReturns, lift: LiftEstimate?) {
        self.bundleId = bundleId
        self.offerId = offerId
        self.environment = environment
        self.from = from
        self.to = to
        self.signed = signed
        self.redemptions = redemptions
        self.matched = matched
        self.unmatched = unmatched
        self.retained = retained
        self.churned = churned
        self.refunded = refunded
        self.inOffer = inOffer
        self.revenue = revenue
        self.holdout = holdout
        self.treated = treated
        self.lift = lift
    }

    /// `lift` is written as `null` when there is none, never left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bundleId, forKey: .bundleId)
        try c.encode(offerId, forKey: .offerId)
        try c.encode(environment, forKey: .environment)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(signed, forKey: .signed)
        try c.encode(redemptions, forKey: .redemptions)
        try c.encode(matched, forKey: .matched)
        try c.encode(unmatched, forKey: .unmatched)
        try c.encode(retained, forKey: .retained)
        try c.encode(churned, forKey: .churned)
        try c.encode(refunded, forKey: .refunded)
        try c.encode(inOffer, forKey: .inOffer)
        try c.encode(revenue, forKey: .revenue)
        try c.encode(holdout, forKey: .holdout)
        try c.encode(treated, forKey: .treated)
        try c.encode(lift, forKey: .lift)
    }

    /// The CSV header of ``csvFields``.
    public static let csvHeader = [
        "bundleId", "offerId", "environment", "from", "to", "signed", "redemptions", "matched", "unmatched", "retained", "churned",
        "refunded", "inOffer", "revenue", "holdoutUsers", "holdoutReturned", "treatedUsers", "treatedReturned", "liftDifference",
        "liftLow", "liftHigh",
    ]

    /// One CSV row; revenue as `CUR amount` pairs joined by `;` (`EUR 4990;USD 9990`), an absent lift as empty fields.
    public var csvFields: [String] {
        [bundleId, offerId, environment.rawValue, from, to, String(signed), String(redemptions), String(matched), String(unmatched),
         String(retained), String(churned), String(refunded), String(inOffer),
         revenue.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ";"),
         String(holdout.users), String(holdout.returned), String(treated.users), String(treated.returned),
         lift.map { String($0.difference) } ?? "", lift.map { String($0.low) } ?? "", lift.map { String($0.high) } ?? ""]
    }
}
