import Foundation
import OfferSignerCore
import OfferSignerStore

/// Reports what became of an offer: its signatures, the redemptions that started in a period
/// with their matches and outcomes, the revenue they brought, and how often treated (signed)
/// and held-out users came back, with the lift between the two. Read from the derived
/// redemptions, the signature log, the holdout decisions and the history; no HTTP here.
public struct OfferOutcomes: Sendable {
    let offers: any OfferStore
    let history: any SubscriptionHistoryStore
    let outcomes: any OutcomeStore

    /// The default period: the last 90 days.
    public static let defaultDays = 90

    public init(offers: any OfferStore, history: any SubscriptionHistoryStore, outcomes: any OutcomeStore) {
        self.offers = offers
        self.history = history
        self.outcomes = outcomes
    }

    /// Why a report cannot be made.
    public enum Refusal: Error, CustomStringConvertible, Sendable {
        case offerNotFound(bundleId: String, offerId: String)
        case badPeriod(String)

        public var description: String {
            switch self {
            case .offerNotFound(let bundleId, let offerId): "no offer '\(offerId)' in app '\(bundleId)'"
            case .badPeriod(let reason): reason
            }
        }
    }

    /// The report of `offerId` in `bundleId` on `environment`'s history for `from..<to` (redemptions
    /// by their start, signatures and first decisions by their time), outcomes as at `now`.
    public func report(bundleId: String, offerId: String, environment: AppStoreEnvironment, from: Date, to: Date,
                       now: Date) throws -> OutcomeReport {
        guard from < to else { throw Refusal.badPeriod("'from' must be before 'to'") }
        guard let rule = try offers.offer(bundleId: bundleId, offerId: offerId)?.rule else {
            throw Refusal.offerNotFound(bundleId: bundleId, offerId: offerId)
        }
        let start = from.milliseconds
        let end = to.milliseconds

        var counts: [RedemptionOutcome: Int] = [:]
        var redemptions = 0
        var matched = 0
        var revenue: [String: Int] = [:]
        var after: Int64 = 0
        let filter = RedemptionFilter(bundleId: bundleId, offerId: offerId, environment: environment, from: start, to: end)
        while true {
            let page = try outcomes.redemptions(matching: filter, afterId: after, limit: 5000)
            for record in page {
                redemptions += 1
                if record.matched { matched += 1 }
                counts[record.run.outcome(at: now), default: 0] += 1
                revenue.merge(record.run.revenue, uniquingKeysWith: +)
            }
            guard page.count == 5000, let last = page.last else { break }
            after = last.id
        }

        let returns = try outcomes.decisionReturns(bundleId: bundleId, offerId: offerId, environment: environment,
                                                   groupId: try subscriptionGroup(of: rule, environment: environment), from: start, to: end)
        let holdout = OutcomeReport.GroupReturns(users: returns.holdoutUsers, returned: returns.holdoutReturned)
        let treated = OutcomeReport.GroupReturns(users: returns.treatedUsers, returned: returns.treatedReturned)
        return OutcomeReport(
            bundleId: bundleId, offerId: offerId, environment: environment, from: RFC3339.string(from: from), to: RFC3339.string(from: to),
            signed: try outcomes.signatureCount(bundleId: bundleId, offerId: offerId, from: start, to: end), redemptions: redemptions,
            matched: matched, unmatched: redemptions - matched, retained: counts[.retained] ?? 0, churned: counts[.churned] ?? 0,
            refunded: counts[.refunded] ?? 0, inOffer: counts[.inOffer] ?? 0, revenue: revenue, holdout: holdout, treated: treated,
            lift: LiftEstimate.estimate(treated: treated.users, treatedReturned: treated.returned, holdout: holdout.users,
                                        holdoutReturned: holdout.returned),
            holdoutEndedAt: try holdoutEnd(of: rule).map(RFC3339.string(from:)))
    }

    /// When the offer's holdout ended: the time of the last change that set `holdoutPercent`
    /// from above 0 to 0, when the rule has none now; nil while it has one, or never had one.
    private func holdoutEnd(of rule: OfferRule) throws -> Date? {
        guard rule.holdoutPercent == 0 else { return nil }
        var ended: Date?
        var after: Int64 = 0
        while true {
            let page = try offers.changes(bundleId: rule.bundleId, offerId: rule.offerId, afterId: after, limit: 1000)
            for change in page {
                let before = change.before?.holdoutPercent ?? 0
                let now = change.after?.holdoutPercent ?? 0
                if before > 0, now == 0 { ended = change.changedAt } else if now > 0 { ended = nil }
            }
            guard page.count == 1000, let last = page.last else { return ended }
            after = last.id
        }
    }

    /// The subscription group of the offer's first product that verified transactions name.
    private func subscriptionGroup(of rule: OfferRule, environment: AppStoreEnvironment) throws -> String? {
        for product in rule.productIds {
            if let group = try history.subscriptionGroup(productId: product, bundleId: rule.bundleId, environment: environment) {
                return group
            }
        }
        return nil
    }
}
