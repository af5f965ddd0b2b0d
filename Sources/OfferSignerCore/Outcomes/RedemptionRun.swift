import Foundation

/// One redemption of a promotional or win-back offer with the periods it is made of and what
/// followed it on the same subscription: the facts its ``RedemptionOutcome`` and revenue come
/// from. Runs are found as ``OfferRedemption/redemptions(in:)`` finds redemptions, of promotional
/// and win-back offers only.
public struct RedemptionRun: Hashable, Sendable {
    /// ``OfferType/promotionalOffer`` or ``OfferType/winBackOffer``.
    public var offerType: OfferType
    public var offerIdentifier: String?
    public var bundleId: String
    public var environment: AppStoreEnvironment
    public var subscriptionGroupIdentifier: String
    public var originalTransactionId: String
    /// The run's first period: it names the redemption.
    public var transactionId: String
    /// The first period's app account token, lowercased; nil when the purchase carried none.
    public var appAccountToken: String?
    /// The first period's `purchaseDate`: when the customer redeemed the offer.
    public var purchaseDate: Date
    /// A period of the run was refunded.
    public var refunded: Bool
    /// The subscription renewed at full price (under no offer, paid by the user) after the run.
    public var retained: Bool
    /// The end of the subscription's last period from the run on (refunds end a period early).
    public var endsAt: Date
    /// Prices (milli-units of the currency) of the run's periods and of the full-price periods
    /// after it up to the subscription's next offer, refunded periods left out; by currency
    /// (`USD`), as `currencies` named them; a period of unknown currency counts under `XXX`
    /// (ISO 4217 for "no currency").
    public var revenue: [String: Int]

    public init(offerType: OfferType, offerIdentifier: String?, bundleId: String, environment: AppStoreEnvironment,
                subscriptionGroupIdentifier: String, originalTransactionId: String, transactionId: String, appAccountToken: String?,
                purchaseDate: Date, refunded: Bool, retained: Bool, endsAt: Date, revenue: [String: Int]) {
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.bundleId = bundleId
        self.environment = environment
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
        self.appAccountToken = appAccountToken
        self.purchaseDate = purchaseDate
        self.refunded = refunded
        self.retained = retained
        self.endsAt = endsAt
        self.revenue = revenue
    }

    /// Where revenue of a period without a known currency is counted.
    public static let unknownCurrency = "XXX"

    /// The outcome at `now`.
    public func outcome(at now: Date) -> RedemptionOutcome {
        RedemptionOutcome.classify(refunded: refunded, retained: retained, endsAt: endsAt, now: now)
    }

    /// The runs in `transactions` (any order, repeats allowed: the newest signed copy of each
    /// transaction counts), oldest first. `currencies` gives each transaction's currency by
    /// `transactionId`.
    public static func runs(in transactions: [SubscriptionTransaction], currencies: [String: String] = [:]) -> [RedemptionRun] {
        let newest = SubscriptionTransaction.newestCopies(of: transactions)
        guard newest.contains(where: { ($0.knownOfferType == .promotionalOffer || $0.knownOfferType == .winBackOffer) && !$0.isFamilyShared })
        else { return [] }
        let bySubscription = Dictionary(grouping: newest.filter { !$0.isFamilyShared }) {
            "\($0.environment.rawValue)\u{0}\($0.originalTransactionId)"
        }
        var found: [RedemptionRun] = []
        for (_, unsorted) in bySubscription {
            let periods = unsorted.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            var index = 0
            while index < periods.count {
                let first = periods[index]
                // Outcomes are of the offers a signature can explain: promotional and win-back (the
                // wait between offers counts other types too, see `OfferRedemption`).
                guard let offerType = first.knownOfferType, offerType == .promotionalOffer || offerType == .winBackOffer else {
                    index += 1
                    continue
                }
                var end = index + 1
                while end < periods.count, periods[end].offerType == first.offerType,
                      periods[end].offerIdentifier == first.offerIdentifier, periods[end].knownTransactionReason != .purchase {
                    end += 1
                }
                let run = periods[index..<end]
                // After the run: full-price periods up to the next period under any offer.
                let after = periods[end...].prefix { $0.knownOfferType == nil && $0.offerType == nil }
                let paidAfter = after.filter { $0.isPaid }
                var revenue: [String: Int] = [:]
                for period in run + paidAfter where !period.isRefund {
                    if let price = period.price { revenue[currencies[period.transactionId] ?? Self.unknownCurrency, default: 0] += price }
                }
                let endsAt = periods[index...].map(\.endDate).max() ?? first.endDate
                found.append(RedemptionRun(
                    offerType: offerType, offerIdentifier: first.offerIdentifier, bundleId: first.bundleId, environment: first.environment,
                    subscriptionGroupIdentifier: first.subscriptionGroupIdentifier, originalTransactionId: first.originalTransactionId,
                    transactionId: first.transactionId, appAccountToken: first.appAccountToken?.lowercased(),
                    purchaseDate: first.purchaseDate, refunded: run.contains(where: \.isRefund),
                    retained: paidAfter.contains { !$0.isRefund }, endsAt: endsAt, revenue: revenue))
                index = end
            }
        }
        return found.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
    }
}
