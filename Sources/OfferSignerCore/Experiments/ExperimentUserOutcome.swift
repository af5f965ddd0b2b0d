/// What became of one assigned user at the experiment's horizon (`assignedAt` + `horizonDays`),
/// judged on the user's periods of the app, in this order:
///
/// - `refunded`: a period bought between assignment and horizon was refunded;
/// - `inOffer`: at the horizon the user is in a period under an offer (any `offerType`);
/// - `retained`: at the horizon the user is in a full-price period;
/// - `churned`: at the horizon the user has no period.
///
/// Revenue: per currency, the prices of the periods bought between assignment and horizon,
/// refunded ones left out (net of refunds).
public enum ExperimentUserOutcome: String, Codable, Hashable, Sendable, CaseIterable {
    case retained, churned, refunded, inOffer

    /// The outcome of a user assigned at `assignedAt` (milliseconds) with `periods`, at `horizon`.
    public static func judge(_ periods: some Collection<ExperimentPeriod>, assignedAt: Int64, horizon: Int64) -> ExperimentUserOutcome {
        var current = false
        var inOffer = false
        for period in periods {
            if period.revokedAt != nil {
                if period.purchasedAt >= assignedAt && period.purchasedAt < horizon { return .refunded }
            } else if period.purchasedAt <= horizon, period.expiresAt.map({ $0 > horizon }) ?? true {
                current = true
                if period.offerType != nil { inOffer = true }
            }
        }
        return inOffer ? .inOffer : current ? .retained : .churned
    }

    /// The user's net revenue per currency between `assignedAt` and `horizon`, in milli-units.
    public static func revenue(_ periods: some Collection<ExperimentPeriod>, assignedAt: Int64, horizon: Int64) -> [String: Int64] {
        var revenue: [String: Int64] = [:]
        for period in periods where period.revokedAt == nil && period.purchasedAt >= assignedAt && period.purchasedAt < horizon {
            if let price = period.price, price > 0 { revenue[period.currency, default: 0] += price }
        }
        return revenue
    }
}
