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
        // Every pass reads the transactions where they are, through their positions in the
        // arrays' buffers (issue 38): no transaction is copied, so none of its ~20 strings is
        // retained and released per pass (an array's subscript hands out a copy wherever a whole
        // element is passed on; a buffer pointer's lends it in place).
        transactions.withUnsafeBufferPointer { rows in
            renewalStates.withUnsafeBufferPointer { states in
                facts(rows: rows, states: states, group: group, environment: environment, now: now)
            }
        }
    }

    /// ``compute(transactions:renewalStates:subscriptionGroupIdentifier:environment:now:)`` over
    /// the transactions and renewal states where they are.
    private static func facts(rows: UnsafeBufferPointer<SubscriptionTransaction>, states: UnsafeBufferPointer<SubscriptionRenewalState>,
                              group: String, environment: AppStoreEnvironment, now: Date) -> HistoryFacts? {
        let inGroup = SubscriptionTransaction.newestPositions(in: rows, environment: environment, group: group)
        guard !inGroup.isEmpty else { return nil }
        let latestEnding = greatestPosition(of: inGroup, in: rows) {
            ($0.endDate, $0.transactionId) < ($1.endDate, $1.transactionId)
        }
        let latest = greatestPosition(of: inGroup, in: rows) {
            ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId)
        }
        let latestPeriods = latestPeriodBySubscription(inGroup, in: rows)
        let renewals = newestRenewalStates(states) {
            $0.environment == environment && latestPeriods[$0.originalTransactionId] != nil
        }

        let covered = inGroup.contains {
            rows[$0].revocationDate == nil && rows[$0].purchaseDate <= now && now < rows[$0].endDate
        }
        let isActive = covered || renewals.values.contains { states[$0].isInGracePeriod(at: now) }
        let isInBillingRetry = renewals.contains { subscription, position in
            guard states[position].isInBillingRetryPeriod == true, let period = latestPeriods[subscription] else { return false }
            let retryEnds = period.endDate.addingTimeInterval(TimeInterval(billingRetryDays) * 86_400)
            return states[position].signedDate >= period.purchaseDate && now < retryEnds
        }
        // The intent of the subscription that ended last, from a renewal info about its latest period.
        let latestEndDate = rows[latestEnding].endDate
        let expirationIntent: Int? = {
            let subscription = rows[latestEnding].originalTransactionId
            guard let position = renewals[subscription], let period = latestPeriods[subscription],
                  states[position].signedDate >= period.purchaseDate else { return nil }
            return states[position].expirationIntent
        }()

        var paidPeriods: [Range<Date>] = []
        paidPeriods.reserveCapacity(inGroup.count)
        for position in inGroup where SubscriptionTransaction.isPaid(
            ownership: rows[position].inAppOwnershipType, discountType: rows[position].offerDiscountType,
            offerType: rows[position].offerType, price: rows[position].price) {
            let purchaseDate = rows[position].purchaseDate
            paidPeriods.append(purchaseDate ..< max(purchaseDate, min(rows[position].endDate, now)))
        }
        let redemptions = OfferRedemption.redemptions(in: rows, at: inGroup)
        var redemptionsByOffer: [String: Int] = [:]
        var lastOfferDateByType: [Int: Date] = [:]
        for redemption in redemptions {
            lastOfferDateByType[redemption.offerType] = max(lastOfferDateByType[redemption.offerType] ?? .distantPast, redemption.date)
            if redemption.knownOfferType == .promotionalOffer, let offerId = redemption.offerIdentifier {
                redemptionsByOffer[offerId, default: 0] += 1
            }
        }
        let eligibleWinBackOfferIds: [String] = renewals.values.contains { !states[$0].eligibleWinBackOfferIds.isEmpty }
            ? Set(renewals.values.flatMap { states[$0].eligibleWinBackOfferIds }).sorted() : []

        return HistoryFacts(
            subscriptionGroupIdentifier: group,
            environment: environment,
            asOf: now,
            isActive: isActive,
            isInBillingRetry: isInBillingRetry,
            paidDays: wholeDays(unionLength(of: paidPeriods)),
            latestEndDate: latestEndDate,
            daysSinceExpiry: isActive ? nil : wholeDays(now.timeIntervalSince(latestEndDate)),
            expirationIntent: expirationIntent,
            lastOffer: redemptions.last.map {
                LastOffer(offerType: $0.offerType, offerIdentifier: $0.offerIdentifier, date: $0.date)
            },
            lastOfferDateByType: lastOfferDateByType,
            redemptionsByOffer: redemptionsByOffer,
            isRefunded: inGroup.contains {
                SubscriptionTransaction.isRefund(revoked: rows[$0].revocationDate != nil, upgraded: rows[$0].isUpgraded,
                                                 reason: rows[$0].revocationReason, type: rows[$0].revocationType)
            },
            storefront: rows[latest].storefront,
            eligibleWinBackOfferIds: eligibleWinBackOfferIds)
    }

    /// Of `positions` (not empty) in `transactions`, the position of the greatest transaction
    /// by `increasing` — the first of equals, as `max(by:)` takes — compared in place.
    private static func greatestPosition(of positions: [Int], in transactions: UnsafeBufferPointer<SubscriptionTransaction>,
                                         by increasing: (borrowing SubscriptionTransaction, borrowing SubscriptionTransaction) -> Bool)
        -> Int {
        var best = positions[0]
        for position in positions.dropFirst() where increasing(transactions[best], transactions[position]) {
            best = position
        }
        return best
    }

    /// Per subscription, its latest period (by purchase date), of the transactions at `positions`.
    private static func latestPeriodBySubscription(_ positions: [Int], in transactions: UnsafeBufferPointer<SubscriptionTransaction>)
        -> SubscriptionValues<LatestPeriod> {
        var latest = SubscriptionValues<LatestPeriod>()
        for index in positions {
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

    /// Per subscription, the position in `states` of its newest renewal state, of those `included`.
    private static func newestRenewalStates(_ states: UnsafeBufferPointer<SubscriptionRenewalState>,
                                            included: (borrowing SubscriptionRenewalState) -> Bool) -> SubscriptionValues<Int> {
        var newest = SubscriptionValues<Int>()
        for position in states.indices where included(states[position]) {
            let subscription = states[position].originalTransactionId
            if let kept = newest[subscription], !states[position].supersedes(states[kept]) { continue }
            newest[subscription] = position
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
    static func newestCopies(of transactions: some Collection<SubscriptionTransaction>) -> [SubscriptionTransaction] {
        let all = Array(transactions)
        return all.withUnsafeBufferPointer { rows in newestPositions(in: rows).map { rows[$0] } }
    }

    /// The positions in `transactions` of ``newestCopies(of:)`` of those of `environment` and
    /// subscription group `group` (nil: any), in order of first arrival: the transactions stay
    /// where they are, and only the fields compared are read (issue 38).
    ///
    /// A short history (the usual one) finds a repeat by a linear search, a long one through
    /// an index of positions.
    static func newestPositions(in transactions: UnsafeBufferPointer<SubscriptionTransaction>,
                                environment: AppStoreEnvironment? = nil, group: String? = nil) -> [Int] {
        var newest: [Int] = []
        var indexed = false
        var positions: [String: Int] = [:]
        for position in transactions.indices {
            if let environment, transactions[position].environment != environment { continue }
            if let group, transactions[position].subscriptionGroupIdentifier != group { continue }
            let kept = indexed ? positions[transactions[position].transactionId]
                : newest.firstIndex { transactions[$0].transactionId == transactions[position].transactionId }
            if let kept {
                let other = newest[kept]
                if supersedes(signedDate: transactions[position].signedDate, revoked: transactions[position].revocationDate != nil,
                              otherSignedDate: transactions[other].signedDate, otherRevoked: transactions[other].revocationDate != nil) {
                    newest[kept] = position
                }
                continue
            }
            if indexed {
                positions[transactions[position].transactionId] = newest.count
            } else if newest.count == linearSearchLimit {
                indexed = true
                for (slot, kept) in newest.enumerated() { positions[transactions[kept].transactionId] = slot }
                positions[transactions[position].transactionId] = newest.count
            }
            newest.append(position)
        }
        return newest
    }

    /// Up to this many transactions, ``newestPositions(in:included:)`` finds repeats by a linear search.
    private static let linearSearchLimit = 16

    /// Whether a copy signed at `signedDate` (revoked or not) supersedes one signed at
    /// `otherSignedDate`: signed later, or at the same instant and revoked where the other is not.
    private static func supersedes(signedDate: Date, revoked: Bool, otherSignedDate: Date, otherRevoked: Bool) -> Bool {
        if signedDate != otherSignedDate { return signedDate > otherSignedDate }
        return revoked && !otherRevoked
    }
}

extension SubscriptionRenewalState {
    /// Newer `signedDate` wins; on a tie, the later grace period, then a billing retry over
    /// none, so that the order of equal copies does not matter.
    fileprivate func supersedes(_ other: borrowing SubscriptionRenewalState) -> Bool {
        if signedDate != other.signedDate { return signedDate > other.signedDate }
        if gracePeriodExpiresDate != other.gracePeriodExpiresDate {
            return (gracePeriodExpiresDate ?? .distantPast) > (other.gracePeriodExpiresDate ?? .distantPast)
        }
        return isInBillingRetryPeriod == true && other.isInBillingRetryPeriod != true
    }
}
