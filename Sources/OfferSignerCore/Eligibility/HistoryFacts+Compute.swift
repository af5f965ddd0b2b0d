import Foundation

extension HistoryFacts {
    /// Computes the facts for one user in one subscription group at `now`, or `nil` when
    /// none of `transactions` belongs to the group (an unknown user).
    ///
    /// A pure function of its inputs: `transactions` may arrive in any order and repeat;
    /// of several copies of one `transactionId` the newest `signedDate` counts. Renewal
    /// states count only for subscriptions (`originalTransactionId`) of the group, and only
    /// the newest one of each subscription.
    public static func compute(
        transactions: [SubscriptionTransaction], renewalStates: [SubscriptionRenewalState],
        subscriptionGroupIdentifier group: String, now: Date
    ) -> HistoryFacts? {
        let inGroup = SubscriptionTransaction.newestCopies(of: transactions)
            .filter { $0.subscriptionGroupIdentifier == group }
        guard let latestEnd = inGroup.map(\.endDate).max(),
              let latest = inGroup.max(by: { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) })
        else { return nil }

        let covered = inGroup.contains { $0.revocationDate == nil && $0.purchaseDate <= now && now < $0.endDate }
        let isActive = covered || inGracePeriod(renewalStates, of: inGroup, at: now)

        let paidPeriods = inGroup.filter(\.isPaid).map { $0.purchaseDate ..< max($0.purchaseDate, min($0.endDate, now)) }
        var redemptions: [String: Int] = [:]
        for transaction in inGroup where transaction.offerType == SubscriptionTransaction.promotionalOfferType {
            if let offerId = transaction.offerIdentifier { redemptions[offerId, default: 0] += 1 }
        }

        return HistoryFacts(
            subscriptionGroupIdentifier: group,
            asOf: now,
            isActive: isActive,
            paidDays: wholeDays(unionLength(of: paidPeriods)),
            latestEndDate: latestEnd,
            daysSinceExpiry: isActive ? nil : wholeDays(now.timeIntervalSince(latestEnd)),
            lastOfferRedemptionDate: inGroup.filter(\.isOfferRedemption).map(\.purchaseDate).max(),
            redemptionsByOffer: redemptions,
            isRefunded: inGroup.contains { $0.revocationDate != nil },
            storefront: latest.storefront)
    }

    /// Whether the newest renewal state of any subscription of `transactions` puts it in
    /// its billing grace period at `now`.
    private static func inGracePeriod(
        _ states: [SubscriptionRenewalState], of transactions: [SubscriptionTransaction], at now: Date
    ) -> Bool {
        let subscriptions = Set(transactions.map(\.originalTransactionId))
        var newest: [String: SubscriptionRenewalState] = [:]
        for state in states where subscriptions.contains(state.originalTransactionId) {
            if let kept = newest[state.originalTransactionId], !state.supersedes(kept) { continue }
            newest[state.originalTransactionId] = state
        }
        return newest.values.contains { $0.isInGracePeriod(at: now) }
    }

    /// Whole days in `interval`, rounded down (so -0.5 days is -1).
    static func wholeDays(_ interval: TimeInterval) -> Int {
        Int((interval / 86_400).rounded(.down))
    }

    /// The total length of the union of `periods`, overlaps counted once.
    private static func unionLength(of periods: [Range<Date>]) -> TimeInterval {
        var total: TimeInterval = 0
        var current: Range<Date>?
        for period in periods.sorted(by: { $0.lowerBound < $1.lowerBound }) where !period.isEmpty {
            if let open = current, period.lowerBound <= open.upperBound {
                current = open.lowerBound ..< max(open.upperBound, period.upperBound)
            } else {
                total += current.map { $0.upperBound.timeIntervalSince($0.lowerBound) } ?? 0
                current = period
            }
        }
        return total + (current.map { $0.upperBound.timeIntervalSince($0.lowerBound) } ?? 0)
    }
}


extension SubscriptionTransaction {
    /// One copy per `transactionId`: the one Apple signed last (on equal `signedDate`, a
    /// revoked copy wins), so arrival order and repeats do not matter.
    static func newestCopies(of transactions: [SubscriptionTransaction]) -> [SubscriptionTransaction] {
        var newest: [String: SubscriptionTransaction] = [:]
        for transaction in transactions {
            if let kept = newest[transaction.transactionId], !transaction.supersedes(kept) { continue }
            newest[transaction.transactionId] = transaction
        }
        return Array(newest.values)
    }

    private func supersedes(_ other: SubscriptionTransaction) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return revocationDate != nil && other.revocationDate == nil
    }
}

extension SubscriptionRenewalState {
    /// Newer `signedDate` wins; on a tie, the later grace period.
    fileprivate func supersedes(_ other: SubscriptionRenewalState) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return (gracePeriodExpiresDate ?? .distantPast) > (other.gracePeriodExpiresDate ?? .distantPast)
    }
}
