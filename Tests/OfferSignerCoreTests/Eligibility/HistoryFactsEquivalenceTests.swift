import Foundation
import Testing
@testable import OfferSignerCore

/// `HistoryFacts.compute` reads the transactions in place, through their positions (issue 38).
/// These tests hold it to a plain reference written the straightforward way (copies, `max(by:)`,
/// `Dictionary(grouping:)`: the facts as they were computed before), over thousands of random
/// histories with repeats, ties of `signedDate`, revocations, offers, family sharing, other groups
/// and environments, so that the facts, and every refusal reason, stay the same.
@Suite struct HistoryFactsEquivalenceTests {
    private typealias T = EligibilityTestData

    @Test func randomHistoriesGiveTheReferenceFacts() {
        var random = SeededGenerator(seed: 38)
        let rules = [
            T.rule(),
            T.rule(EligibilityCriteria(requireLapsed: true, includeBillingRetry: true, minPaidDays: 30, minDaysSinceExpiry: 0,
                                       waitBetweenOffersDays: 90, waitCountsOfferTypes: [2, 4], maxRedemptionsPerUser: 2,
                                       excludeRefunded: true, storefronts: ["USA"], expirationIntents: [1, 2],
                                       appleWinBack: .exclude)),
        ]
        var known = 0
        for _ in 0 ..< 4_000 {
            let transactions = (0 ..< random.below(14)).map { _ in Self.transaction(&random) }
            let renewals = (0 ..< random.below(4)).map { _ in Self.renewal(&random) }
            for environment in [AppStoreEnvironment.production, .sandbox] {
                let now = T.day(Double(random.below(500)))
                let facts = HistoryFacts.compute(transactions: transactions, renewalStates: renewals,
                                                 subscriptionGroupIdentifier: T.group, environment: environment, now: now)
                let expected = ReferenceFacts.compute(transactions: transactions, renewalStates: renewals,
                                                      group: T.group, environment: environment, now: now)
                #expect(facts == expected, "transactions \(transactions), renewals \(renewals), \(environment), now \(now)")
                if facts != nil { known += 1 }
                for rule in rules {
                    #expect(EligibilityEvaluator.evaluate(facts: facts, rule: rule, now: now)
                        == EligibilityEvaluator.evaluate(facts: expected, rule: rule, now: now))
                }
            }
        }
        #expect(known > 2_000)
    }

    /// `OfferRedemption.redemptions(in:)`, public, still finds what the reference finds.
    @Test func redemptionsOfRandomHistoriesAreTheReferences() {
        var random = SeededGenerator(seed: 3_800)
        for _ in 0 ..< 2_000 {
            let transactions = ReferenceFacts.newestCopies((0 ..< random.below(12)).map { _ in Self.transaction(&random) })
            #expect(OfferRedemption.redemptions(in: transactions) == ReferenceFacts.redemptions(in: transactions))
            #expect(SubscriptionTransaction.newestCopies(of: transactions) == transactions)
        }
    }

    /// A transaction from a small pool of IDs (so that copies repeat), each field drawn at random.
    private static func transaction(_ random: inout SeededGenerator) -> SubscriptionTransaction {
        let start = Double(random.below(400))
        let end: Double? = random.below(10) == 0 ? nil : start + Double(random.below(3) == 0 ? random.below(60) : 30)
        let offerType: Int? = [nil, nil, nil, 1, 2, 3, 4, 5, 9][random.below(9)]
        return T.transaction(
            "t\(random.below(10))", from: start, to: end,
            revokedOn: random.below(5) == 0 ? start + Double(random.below(40)) : nil,
            revocationType: [nil, "REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE", "LATER"][random.below(5)],
            revocationReason: [nil, 0, 1, 7][random.below(4)], upgraded: [nil, false, true][random.below(3)],
            offerType: offerType, offerId: offerType == nil ? nil : ["a", "b", nil][random.below(3)],
            discount: [nil, "FREE_TRIAL", "PAY_AS_YOU_GO", "OTHER"][random.below(4)], price: [nil, 0, 4_990, 9_990][random.below(4)],
            storefront: ["USA", "CAN", nil][random.below(3)], group: random.below(5) == 0 ? T.otherGroup : T.group,
            original: ["1000", "2000", "3000"][random.below(3)], signedOn: start + Double(random.below(3) * 5),
            environment: random.below(4) == 0 ? .sandbox : .production,
            ownership: ["PURCHASED", "FAMILY_SHARED", nil][random.below(3)], reason: ["PURCHASE", "RENEWAL", nil][random.below(3)])
    }

    private static func renewal(_ random: inout SeededGenerator) -> SubscriptionRenewalState {
        T.renewal(signedOn: Double(random.below(8) * 60), original: ["1000", "2000", "3000", "9000"][random.below(4)],
                  retrying: [nil, false, true][random.below(3)],
                  graceUntil: random.below(3) == 0 ? Double(random.below(500)) : nil, intent: [nil, 1, 2, 5][random.below(4)],
                  winBackOffers: [[], ["wb1"], ["wb2", "wb1"]][random.below(3)],
                  environment: random.below(4) == 0 ? .sandbox : .production)
    }
}

/// The facts computed the straightforward way, copying transactions freely: the definition the
/// service's in-place computation must agree with.
private enum ReferenceFacts {
    static func compute(transactions: [SubscriptionTransaction], renewalStates: [SubscriptionRenewalState], group: String,
                        environment: AppStoreEnvironment, now: Date) -> HistoryFacts? {
        let inGroup = newestCopies(transactions.filter { $0.environment == environment && $0.subscriptionGroupIdentifier == group })
        guard !inGroup.isEmpty else { return nil }
        let latestEnding = inGroup.max { ($0.endDate, $0.transactionId) < ($1.endDate, $1.transactionId) }!
        let latest = inGroup.max { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }!
        let latestPeriods = Dictionary(grouping: inGroup, by: \.originalTransactionId).mapValues {
            $0.max { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }!
        }
        var renewals: [String: SubscriptionRenewalState] = [:]
        for state in renewalStates where state.environment == environment && latestPeriods[state.originalTransactionId] != nil {
            if let kept = renewals[state.originalTransactionId], !supersedes(state, kept) { continue }
            renewals[state.originalTransactionId] = state
        }
        let covered = inGroup.contains { $0.revocationDate == nil && $0.purchaseDate <= now && now < $0.endDate }
        let isActive = covered || renewals.values.contains { $0.isInGracePeriod(at: now) }
        let isInBillingRetry = renewals.contains { subscription, state in
            guard state.isInBillingRetryPeriod == true, let period = latestPeriods[subscription] else { return false }
            return state.signedDate >= period.purchaseDate && now < period.endDate.addingTimeInterval(60 * 86_400)
        }
        var expirationIntent: Int?
        if let state = renewals[latestEnding.originalTransactionId], let period = latestPeriods[latestEnding.originalTransactionId],
           state.signedDate >= period.purchaseDate {
            expirationIntent = state.expirationIntent
        }
        let paid = inGroup.filter(\.isPaid).map { $0.purchaseDate ..< max($0.purchaseDate, min($0.endDate, now)) }
            .filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var total: TimeInterval = 0
        var open: Range<Date>?
        for period in paid {
            if let current = open, period.lowerBound <= current.upperBound {
                open = current.lowerBound ..< max(current.upperBound, period.upperBound)
            } else {
                total += open.map { $0.upperBound.timeIntervalSince($0.lowerBound) } ?? 0
                open = period
            }
        }
        total += open.map { $0.upperBound.timeIntervalSince($0.lowerBound) } ?? 0
        let redemptions = redemptions(in: inGroup)
        var byOffer: [String: Int] = [:]
        var byType: [Int: Date] = [:]
        for redemption in redemptions {
            byType[redemption.offerType] = max(byType[redemption.offerType] ?? .distantPast, redemption.date)
            if redemption.offerType == 2, let offerId = redemption.offerIdentifier { byOffer[offerId, default: 0] += 1 }
        }
        return HistoryFacts(
            subscriptionGroupIdentifier: group, environment: environment, asOf: now, isActive: isActive,
            isInBillingRetry: isInBillingRetry, paidDays: HistoryFacts.wholeDays(total), latestEndDate: latestEnding.endDate,
            daysSinceExpiry: isActive ? nil : HistoryFacts.wholeDays(now.timeIntervalSince(latestEnding.endDate)),
            expirationIntent: expirationIntent,
            lastOffer: redemptions.last.map { LastOffer(offerType: $0.offerType, offerIdentifier: $0.offerIdentifier, date: $0.date) },
            lastOfferDateByType: byType, redemptionsByOffer: byOffer, isRefunded: inGroup.contains(where: \.isRefund),
            storefront: latest.storefront, eligibleWinBackOfferIds: Set(renewals.values.flatMap(\.eligibleWinBackOfferIds)).sorted())
    }

    /// One copy per transaction ID, in order of first arrival: the one signed last, a revoked one on a tie.
    static func newestCopies(_ transactions: [SubscriptionTransaction]) -> [SubscriptionTransaction] {
        var order: [String] = []
        var newest: [String: SubscriptionTransaction] = [:]
        for transaction in transactions {
            guard let kept = newest[transaction.transactionId] else {
                order.append(transaction.transactionId)
                newest[transaction.transactionId] = transaction
                continue
            }
            let newer = transaction.signedDate != kept.signedDate ? transaction.signedDate > kept.signedDate
                : transaction.revocationDate != nil && kept.revocationDate == nil
            if newer { newest[transaction.transactionId] = transaction }
        }
        return order.map { newest[$0]! }
    }

    static func redemptions(in transactions: [SubscriptionTransaction]) -> [OfferRedemption] {
        var found: [OfferRedemption] = []
        for (subscription, periods) in Dictionary(grouping: transactions.filter { !$0.isFamilyShared }, by: \.originalTransactionId) {
            var previous: SubscriptionTransaction?
            for period in periods.sorted(by: { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }) {
                defer { previous = period }
                guard let offerType = period.offerType, offerType != 1 else { continue }
                if let previous, previous.offerType == period.offerType, previous.offerIdentifier == period.offerIdentifier,
                   period.transactionReason != "PURCHASE" { continue }
                found.append(OfferRedemption(offerType: offerType, offerIdentifier: period.offerIdentifier,
                                             originalTransactionId: subscription, date: period.purchaseDate))
            }
        }
        return found.sorted { ($0.date, $0.originalTransactionId) < ($1.date, $1.originalTransactionId) }
    }

    private static func supersedes(_ state: SubscriptionRenewalState, _ other: SubscriptionRenewalState) -> Bool {
        if state.signedDate != other.signedDate { return state.signedDate > other.signedDate }
        if state.gracePeriodExpiresDate != other.gracePeriodExpiresDate {
            return (state.gracePeriodExpiresDate ?? .distantPast) > (other.gracePeriodExpiresDate ?? .distantPast)
        }
        return state.isInBillingRetryPeriod == true && other.isInBillingRetryPeriod != true
    }
}
