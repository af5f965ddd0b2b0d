import Foundation

extension OfferRule {
    /// Every reason the rule cannot be right, as sentences naming the field; empty when valid.
    public func validationProblems() -> [String] {
        var problems: [String] = []
        func identifier(_ name: String, _ value: String) {
            if !Identifier.isValid(value) {
                problems.append("'\(name)' must be 1–256 visible ASCII characters")
            }
        }
        if !Identifier.isValidRuleId(offerId) { problems.append("'offerId' must be \(Identifier.ruleIdRequirement)") }
        identifier("bundleId", bundleId)
        if productIds.isEmpty { problems.append("'productIds' must list at least one product") }
        for (index, product) in productIds.enumerated() { identifier("productIds[\(index)]", product) }
        if Set(productIds).count != productIds.count { problems.append("'productIds' lists a product twice") }
        if let startsAt, let endsAt, startsAt >= endsAt { problems.append("'startsAt' must be before 'endsAt'") }

        let days: [(String, Int?)] = [
            ("minPaidDays", eligibility.minPaidDays), ("minDaysSinceExpiry", eligibility.minDaysSinceExpiry),
            ("maxDaysSinceExpiry", eligibility.maxDaysSinceExpiry), ("waitBetweenOffersDays", eligibility.waitBetweenOffersDays),
        ]
        for (name, value) in days {
            if let value, !(0...36_500).contains(value) { problems.append("'eligibility.\(name)' must be between 0 and 36500 days") }
        }
        if let min = eligibility.minDaysSinceExpiry, let max = eligibility.maxDaysSinceExpiry, min > max {
            problems.append("'eligibility.minDaysSinceExpiry' (\(min)) is above 'eligibility.maxDaysSinceExpiry' (\(max))")
        }
        if let value = eligibility.maxRedemptionsPerUser, !(1...1_000_000).contains(value) {
            problems.append("'eligibility.maxRedemptionsPerUser' must be at least 1 (disable the offer instead of allowing none)")
        }
        if let storefronts = eligibility.storefronts {
            if storefronts.isEmpty { problems.append("'eligibility.storefronts' must not be empty (leave it out to allow every storefront)") }
            for code in storefronts where !(code.utf8.count == 3 && code.utf8.allSatisfy { (0x41...0x5a).contains($0) }) {
                problems.append("'eligibility.storefronts' entry '\(code)' is not an ISO 3166-1 alpha-3 code such as USA")
            }
        }
        if eligibility.includeBillingRetry == true, eligibility.requireLapsed != true {
            problems.append("'eligibility.includeBillingRetry' applies only with 'eligibility.requireLapsed': true")
        }
        if let intents = eligibility.expirationIntents {
            if intents.isEmpty { problems.append("'eligibility.expirationIntents' must not be empty (leave it out to allow every reason)") }
            for intent in intents where Int32(exactly: intent).flatMap(ExpirationIntent.init(rawValue:)) == nil {
                problems.append("'eligibility.expirationIntents' entry \(intent) is not one of Apple's expiration intents (1–5)")
            }
            if Set(intents).count != intents.count { problems.append("'eligibility.expirationIntents' lists an intent twice") }
        }
        if let types = eligibility.waitCountsOfferTypes {
            if types.isEmpty { problems.append("'eligibility.waitCountsOfferTypes' must not be empty (leave it out to count every offer type)") }
            for type in types where !(2...99).contains(type) {
                problems.append("'eligibility.waitCountsOfferTypes' entry \(type) is not an offer type that counts (2 promotional, 3 offer code, 4 win-back, 5 App Store retention offer, up to 99; introductory offers never count)")
            }
            if Set(types).count != types.count { problems.append("'eligibility.waitCountsOfferTypes' lists a type twice") }
            if eligibility.waitBetweenOffersDays == nil {
                problems.append("'eligibility.waitCountsOfferTypes' applies only with 'eligibility.waitBetweenOffersDays'")
            }
        }
        if let value = limits.maxSignaturesPerUserPerDay, !(1...1_000_000).contains(value) {
            problems.append("'limits.maxSignaturesPerUserPerDay' must be at least 1")
        }
        if !(0...OfferHoldout.maxPercent).contains(holdoutPercent) {
            problems.append("'holdoutPercent' must be between 0 and \(OfferHoldout.maxPercent)")
        }
        return problems
    }
}
