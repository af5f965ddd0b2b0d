import Foundation

/// Decides whether a user may redeem an offer: a pure function of the user's history
/// facts, the offer rule and the time.
public enum EligibilityEvaluator {
    /// Evaluates every criterion of `rule` against `facts` at `now` and reports each one
    /// that fails, in the order of the rule's fields: `enabled`, `startsAt`, `endsAt`,
    /// `requireLapsed` (with `includeBillingRetry`), `minPaidDays`, `minDaysSinceExpiry`,
    /// `maxDaysSinceExpiry`, `waitBetweenOffersDays`, `maxRedemptionsPerUser`,
    /// `excludeRefunded`, `storefronts`, `expirationIntents`, `appleWinBack`.
    ///
    /// `facts` is `nil` for a user without history in the offer's subscription group (and
    /// the environment asked about). Such a user is not lapsed, has paid 0 days, redeemed
    /// nothing, was not refunded, is offered no Apple win-back offer, and has no known
    /// expiry, expiration intent or storefront, so fails the criteria that need one. An
    /// active user has no days since expiry and fails `minDaysSinceExpiry` and
    /// `maxDaysSinceExpiry`. A user in billing retry is not lapsed unless the rule says
    /// `includeBillingRetry`. A criterion left `nil` (or `false`, for `requireLapsed` and
    /// `excludeRefunded`) does not restrict.
    public static func evaluate(facts: HistoryFacts?, rule: OfferRule, now: Date) -> EligibilityDecision {
        var reasons: [EligibilityReason] = []
        func fail(_ criterion: String, _ required: JSONValue, _ actual: JSONValue, _ message: String) {
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
        if criteria.requireLapsed == true {
            let retryAdmitted = criteria.includeBillingRetry == true && facts.map { $0.isInBillingRetry && !$0.isActive } == true
            if facts?.isLapsed != true && !retryAdmitted {
                let why = switch facts {
                case nil: noHistory
                case let facts? where facts.isActive: "The subscription is active"
                default: "Apple is still retrying the subscription's payment (billing retry)"
                }
                let whom = criteria.includeBillingRetry == true ? "lapsed subscribers and those in billing retry" : "lapsed subscribers"
                fail("requireLapsed", .bool(true), .bool(false), "\(why); this offer is only for \(whom).")
            }
        }
        let paid = facts?.paidDays ?? 0
        if let minimum = criteria.minPaidDays, paid < minimum {
            fail("minPaidDays", .int(minimum), .int(paid), "Paid \(days(paid)); this offer needs at least \(minimum).")
        }
        let sinceExpiry = facts?.daysSinceExpiry
        let noExpiry = facts == nil ? noHistory : "The subscription is active"
        if let minimum = criteria.minDaysSinceExpiry, !(sinceExpiry.map { $0 >= minimum } ?? false) {
            fail("minDaysSinceExpiry", .int(minimum), sinceExpiry.map(JSONValue.int) ?? .null,
                 sinceExpiry.map { "Expired \(days($0)) ago; this offer needs at least \(minimum)." }
                    ?? "\(noExpiry); this offer needs one that expired at least \(days(minimum)) ago.")
        }
        if let maximum = criteria.maxDaysSinceExpiry, !(sinceExpiry.map { $0 <= maximum } ?? false) {
            fail("maxDaysSinceExpiry", .int(maximum), sinceExpiry.map(JSONValue.int) ?? .null,
                 sinceExpiry.map { "Expired \(days($0)) ago; this offer allows at most \(maximum)." }
                    ?? "\(noExpiry); this offer needs one that expired at most \(days(maximum)) ago.")
        }
        if let wait = criteria.waitBetweenOffersDays, let facts,
           let last = facts.lastOfferDate(counting: criteria.waitCountsOfferTypes) {
            let since = HistoryFacts.wholeDays(now.timeIntervalSince(last))
            if since < wait {
                let counted = criteria.waitCountsOfferTypes ?? []
                let type = facts.lastOfferDateByType.filter { counted.isEmpty || counted.contains($0.key) }
                    .max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
                let kind = type.map(LastOffer.kind(of:)) ?? "an offer"
                fail("waitBetweenOffersDays", .int(wait), .int(since),
                     "Took \(kind) \(days(since)) ago; this offer needs at least \(days(wait)) since the last one.")
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
                fail("storefronts", .strings(storefronts), storefront.map(JSONValue.string) ?? .null,
                     "The storefront is \(storefront ?? "unknown"); this offer is for \(list).")
            }
        }
        if let intents = criteria.expirationIntents {
            let intent = facts?.expirationIntent
            if !intents.contains(where: { $0 == intent }) {
                let list = intents.map(String.init).joined(separator: ", ")
                let why = intent.map { "The subscription expired because \(expirationReason($0)) (intent \($0))" }
                    ?? (facts == nil ? noHistory : "Why the subscription expired is not known")
                fail("expirationIntents", .ints(intents), intent.map(JSONValue.int) ?? .null,
                     "\(why); this offer is for expiration intents \(list).")
            }
        }
        if let appleWinBack = criteria.appleWinBack {
            let offered = facts?.eligibleWinBackOfferIds ?? []
            let actual = facts == nil ? JSONValue.null : .strings(offered)
            switch appleWinBack {
            case .exclude where !offered.isEmpty:
                fail("appleWinBack", .string(appleWinBack.rawValue), actual,
                     "Apple already offers this user its win-back offer \(offered.joined(separator: ", ")); "
                        + "this offer excludes users Apple offers one.")
            case .require where offered.isEmpty:
                fail("appleWinBack", .string(appleWinBack.rawValue), actual,
                     "\(facts == nil ? noHistory : "Apple offers this user no win-back offer"); "
                        + "this offer is only for users Apple offers one.")
            case .exclude, .require:
                break
            }
        }
        return EligibilityDecision(reasons: reasons)
    }

    /// Why a subscription expired, after "expired because", for Apple's `expirationIntent`.
    private static func expirationReason(_ intent: Int) -> String {
        switch Int32(exactly: intent).flatMap(ExpirationIntent.init(rawValue:)) {
        case .customerCancelled: "the customer cancelled"
        case .billingError: "of a billing error"
        case .customerDidNotConsentToPriceIncrease: "the customer did not agree to a price increase"
        case .productNotAvailable: "the product was not available"
        case .other: "of another reason"
        case nil: "of a reason Apple added later"
        }
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
