import Foundation

extension HistoryFacts {
    /// Apple retries a failed renewal for up to 60 days after the period ended.
    static let billingRetryDays = 60

    /// Computes the facts for one user in one subscription group and one environment at
    /// `now`, or `nil` when none of `transactions` belongs to that group and environment (an
    /// unknown user).
    ///
    /// A pure function of its inputs: `transactions` may arrive in any order and repeat;
    /// of several copies of one `transactionId` the newest `signedDate` counts. Transactions
    /// and renewal states of another environment are ignored, so sandbox and production
    /// history never mix. Renewal states count only for subscriptions
    /// (`originalTransactionId`) of the group, and only the newest one of each subscription.
    public static func compute(
        transactions: [SubscriptionTransaction], renewalStates: [SubscriptionRenewalState],
        subscriptionGroupIdentifier group: String, environment: AppStoreEnvironment = .production, now: Date
    ) -> HistoryFacts? {
        let inGroup = SubscriptionTransaction.newestCopies(
            of: transactions.lazy.filter { $0.environment == environment && $0.subscriptionGroupIdentifier == group })
        guard !inGroup.isEmpty else { return nil }
        let latestEnding = inGroup[greatestIndex(of: inGroup) { ($0.endDate, $0.transactionId) < ($1.endDate, $1.transactionId) }]
        let latest = inGroup[greatestIndex(of: inGroup) { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }]
        let latestPeriods = latestPeriodBySubscription(inGroup)
        let renewals = newestRenewalStates(renewalStates.filter {
            $0.environment == environment && latestPeriods[$0.originalTransactionId] != nil
        })

        let covered = inGroup.contains { $0.revocationDate == nil && $0.purchaseDate <= now && now < $0.endDate }
        let isActive = covered || renewals.values.contains { $0.isInGracePeriod(at: now) }
        let isInBillingRetry = renewals.contains { subscription, state in
            guard state.isInBillingRetryPeriod == true, let period = latestPeriods[subscription] else { return false }
            let retryEnds = period.endDate.addingTimeInterval(TimeInterval(billingRetryDays) * 86_400)
            return state.signedDate >= period.purchaseDate && now < retryEnds
        }
        // The intent of the subscription that ended last, from a renewal info about its latest period.
        let expirationIntent: Int? = {
            let subscription = latestEnding.originalTransactionId
            guard let state = renewals[subscription], let period = latestPeriods[subscription],
                  state.signedDate >= period.purchaseDate else { return nil }
            return state.expirationIntent
        }()

        let paidPeriods = inGroup.compactMap { $0.isPaid ? $0.purchaseDate ..< max($0.purchaseDate, min($0.endDate, now)) : nil }
        let redemptions = OfferRedemption.redemptions(in: inGroup)
        var redemptionsByOffer: [String: Int] = [:]
        var lastOfferDateByType: [Int: Date] = [:]
        for redemption in redemptions {
            lastOfferDateByType[redemption.offerType] = max(lastOfferDateByType[redemption.offerType] ?? .distantPast, redemption.date)
            if redemption.knownOfferType == .promotionalOffer, let offerId = redemption.offerIdentifier {
                redemptionsByOffer[offerId, default: 0] += 1
            }
        }

        return HistoryFacts(
            subscriptionGroupIdentifier: group,
            environment: environment,
            asOf: now,
            isActive: isActive,
            isInBillingRetry: isInBillingRetry,
            paidDays: wholeDays(unionLength(of: paidPeriods)),
            latestEndDate: latestEnding.endDate,
            daysSinceExpiry: isActive ? nil : wholeDays(now.timeIntervalSince(latestEnding.endDate)),
            expirationIntent: expirationIntent,
            lastOffer: redemptions.last.map {
                LastOffer(offerType: $0.offerType, offerIdentifier: $0.offerIdentifier, date: $0.date)
            },
            lastOfferDateByType: lastOfferDateByType,
            redemptionsByOffer: redemptionsByOffer,
            isRefunded: inGroup.contains(where: \.isRefund),
            storefront: latest.storefront,
            eligibleWinBackOfferIds: Set(renewals.values.flatMap(\.eligibleWinBackOfferIds)).sorted())
    }

    /// The position of the greatest of `transactions` (not empty) by `increasing` — the first
    /// of equals, as `max(by:)` takes — compared in place, without copying each transaction
    /// out of the array as `max(by:)` does (issue 38: ~20 strings retained and released a copy).
    private static func greatestIndex(of transactions: [SubscriptionTransaction],
                                  by increasing: (SubscriptionTransaction, SubscriptionTransaction) -> Bool) -> Int {
        var best = 0
        for index in transactions.indices.dropFirst() where increasing(transactions[best], transactions[index]) {
            best = index
        }
        return best
    }

    /// Per subscription, its latest period (by purchase date).
    private static func latestPeriodBySubscription(_ transactions: [SubscriptionTransaction]) -> [String: LatestPeriod] {
        var latest: [String: LatestPeriod] = [:]
        for index in transactions.indices {
            let subscription = transactions[index].originalTransactionId
            let purchaseDate = transactions[index].purchaseDate, transactionId = transactions[index].transactionId
            if let kept = latest[subscription], (kept.purchaseDate, kept.transactionId) >= (purchaseDate, transactionId) { continue }
            latest[subscription] = LatestPeriod(purchaseDate: purchaseDate, endDate: transactions[index].endDate,
                                                transactionId: transactionId)
        }
        return latest
    }

    /// What ``compute(transactions:renewalStates:subscriptionGroupIdentifier:environment:now:)``
    /// needs of a subscription's latest period, without copying the whole transaction.
    private struct LatestPeriod {
        let purchaseDate: Date
        let endDate: Date
        let transactionId: String
    }

    /// Per subscription, its newest renewal state.
    private static func newestRenewalStates(_ states: [SubscriptionRenewalState]) -> [String: SubscriptionRenewalState] {
        var newest: [String: SubscriptionRenewalState] = [:]
        for state in states {
            if let kept = newest[state.originalTransactionId], !state.supersedes(kept) { continue }
            newest[state.originalTransactionId] = state
        }
        return newest
    }

    /// Whole days in `interval`, rounded down (so -0.5 days is -1), within ±1,000,000,000 so
    /// that no interval (however far the dates) traps the conversion; NaN is 0.
    static func wholeDays(_ interval: TimeInterval) -> Int {
        let days = (interval / 86_400).rounded(.down)
        return days.isNaN ? 0 : Int(min(max(days, -1_000_000_000), 1_000_000_000))
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
    ///
    /// Kept in one array, in order of first arrival; a short history (the usual one) finds a
    /// repeat by a linear search, a long one through an index of positions, so that no
    /// transaction is copied into a dictionary and out again.
    static func newestCopies(of transactions: some Collection<SubscriptionTransaction>) -> [SubscriptionTransaction] {
        var newest: [SubscriptionTransaction] = []
        var indexed = false
        var positions: [String: Int] = [:]
        for transaction in transactions {
            let kept = indexed ? positions[transaction.transactionId]
                : newest.firstIndex { $0.transactionId == transaction.transactionId }
            if let kept {
                if transaction.supersedes(newest[kept]) { newest[kept] = transaction }
                continue
            }
            if indexed {
                positions[transaction.transactionId] = newest.count
            } else if newest.count == linearSearchLimit {
                indexed = true
                for (position, kept) in newest.enumerated() { positions[kept.transactionId] = position }
                positions[transaction.transactionId] = newest.count
            }
            newest.append(transaction)
        }
        return newest
    }

    /// Up to this many transactions, ``newestCopies(of:)`` finds repeats by a linear search.
    private static let linearSearchLimit = 16

    private func supersedes(_ other: SubscriptionTransaction) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        return revocationDate != nil && other.revocationDate == nil
    }
}

extension SubscriptionRenewalState {
    /// Newer `signedDate` wins; on a tie, the later grace period, then a billing retry over
    /// none, so that the order of equal copies does not matter.
    fileprivate func supersedes(_ other: SubscriptionRenewalState) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        if gracePeriodExpiresDate != other.gracePeriodExpiresDate {
            return (gracePeriodExpiresDate ?? .distantPast) > (other.gracePeriodExpiresDate ?? .distantPast)
        }
        return isInBillingRetryPeriod == true && other.isInBillingRetryPeriod != true
    }
}
