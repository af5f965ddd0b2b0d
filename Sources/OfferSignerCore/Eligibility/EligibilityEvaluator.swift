import Foundation

/// Decides whether a user may redeem an offer: a pure function of the user's history
/// facts, the offer rule and the time.
public enum EligibilityEvaluator {
    /// Evaluates every criterion of `rule` against `facts` at `now` and reports each one
    /// that fails, in the order of the rule's fields: `enabled`, `startsAt`, `endsAt`,
    /// `requireLapsed`, `minPaidDays`, `minDaysSinceExpiry`, `maxDaysSinceExpiry`,
    /// `waitBetweenOffersDays`, `maxRedemptionsPerUser`, `excludeRefunded`, `storefronts`.
    ///
    /// `facts` is `nil` for a user without history in the offer's subscription group. Such
    /// a user is not lapsed, has paid 0 days, redeemed nothing, was not refunded, and has
    /// no known expiry or storefront, so fails the criteria that need one. An active user
    /// has no days since expiry and fails `minDaysSinceExpiry` and `maxDaysSinceExpiry`.
    /// A criterion left `nil` (or `false`, for `requireLapsed` and `excludeRefunded`)
    /// does not restrict.
    public static func evaluate(facts: HistoryFacts?, rule: OfferRule, now: Date) -> EligibilityDecision {
        var reasons: [EligibilityReason] = []
        func fail(_ criterion: String, _ required: ReasonValue, _ actual: ReasonValue, _ message: String) {
            reasons.append(EligibilityReason(criterion: criterion, required: required, actual: actual, message: message))
        }
        let criteria = rule.eligibility
        let noHistory = "No subscription in this group is known for this user"

        if !rule.enabled {
            fail("enabled", .bool(true), .bool(false), "The offer is disabled.")
        }
        if let startsAt = rule.startsAt, now < startsAt {
            fail("startsAt", .string(timestamp(startsAt)), .string(timestamp(now)),
                 "The offer starts at \(timestamp(startsAt)).")
        }
        if let endsAt = rule.endsAt, now >= endsAt {
            fail("endsAt", .string(timestamp(endsAt)), .string(timestamp(now)),
                 "The offer ended at \(timestamp(endsAt)).")
        }
        if criteria.requireLapsed == true, facts?.isLapsed != true {
            let why = facts == nil ? noHistory : "The subscription is active"
            fail("requireLapsed", .bool(true), .bool(false), "\(why); this offer is only for lapsed subscribers.")
        }
        let paid = facts?.paidDays ?? 0
        if let minimum = criteria.minPaidDays, paid < minimum {
            fail("minPaidDays", .int(minimum), .int(paid), "Paid \(days(paid)); this offer needs at least \(minimum).")
        }
        let sinceExpiry = facts?.daysSinceExpiry
        let noExpiry = facts == nil ? noHistory : "The subscription is active"
        if let minimum = criteria.minDaysSinceExpiry, !(sinceExpiry.map { $0 >= minimum } ?? false) {
            fail("minDaysSinceExpiry", .int(minimum), sinceExpiry.map(ReasonValue.int) ?? .null,
                 sinceExpiry.map { "Expired \(days($0)) ago; this offer needs at least \(minimum)." }
                    ?? "\(noExpiry); this offer needs one that expired at least \(days(minimum)) ago.")
        }
        if let maximum = criteria.maxDaysSinceExpiry, !(sinceExpiry.map { $0 <= maximum } ?? false) {
            fail("maxDaysSinceExpiry", .int(maximum), sinceExpiry.map(ReasonValue.int) ?? .null,
                 sinceExpiry.map { "Expired \(days($0)) ago; this offer allows at most \(maximum)." }
                    ?? "\(noExpiry); this offer needs one that expired at most \(days(maximum)) ago.")
        }
        if let wait = criteria.waitBetweenOffersDays, let last = facts?.lastOfferRedemptionDate {
            let since = HistoryFacts.wholeDays(now.timeIntervalSince(last))
            if since < wait {
                fail("waitBetweenOffersDays", .int(wait), .int(since),
                     "Redeemed an offer \(days(since)) ago; this offer needs at least \(days(wait)) since the last one.")
            }
        }
        if let limit = criteria.maxRedemptionsPerUser {
            let count = facts?.redemptions(of: rule.offerId) ?? 0
            if count >= limit {
                fail("maxRedemptionsPerUser", .int(limit), .int(count),
                     "Redeemed this offer \(times(count)); it may be redeemed at most \(times(limit)).")
            }
        }
        if criteria.excludeRefunded == true, facts?.isRefunded == true {
            fail("excludeRefunded", .bool(false), .bool(true),
                 "A purchase in this subscription group was refunded; this offer excludes refunded users.")
        }
        if let storefronts = criteria.storefronts {
            let storefront = facts?.storefront
            if !storefronts.contains(where: { $0.uppercased() == storefront?.uppercased() }) {
                let list = storefronts.isEmpty ? "no storefront" : storefronts.joined(separator: ", ")
                fail("storefronts", .strings(storefronts), storefront.map(ReasonValue.string) ?? .null,
                     "The storefront is \(storefront ?? "unknown"); this offer is for \(list).")
            }
        }
        return EligibilityDecision(reasons: reasons)
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    private static func days(_ count: Int) -> String {
        count == 1 || count == -1 ? "\(count) day" : "\(count) days"
    }

    private static func times(_ count: Int) -> String {
        count == 1 ? "1 time" : "\(count) times"
    }
}
