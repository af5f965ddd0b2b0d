import Foundation

/// What became of one redemption of a promotional or win-back offer: exactly one of these.
public enum RedemptionOutcome: String, Codable, Sendable, CaseIterable {
    /// A period of the run was refunded.
    case refunded
    /// The same subscription renewed at least once at full price (under no offer) after the run.
    case retained
    /// The run ended and the subscription expired without such a renewal.
    case churned
    /// The run, or the subscription's last period after it, has not ended yet.
    case inOffer

    /// The outcome at `now` of a redemption whose facts are these; refunded wins over
    /// retained, retained over the rest.
    /// - Parameters:
    ///   - refunded: a period of the run was refunded.
    ///   - retained: a full-price renewal of the subscription followed the run.
    ///   - endsAt: the end of the subscription's last period from the run on.
    public static func classify(refunded: Bool, retained: Bool, endsAt: Date, now: Date) -> RedemptionOutcome {
        if refunded { return .refunded }
        if retained { return .retained }
        return now < endsAt ? .inOffer : .churned
    }
}
