import Foundation

/// Who gets a subscription's introductory offer (a free trial or introductory price), as
/// marketing configures it for some products or whole subscription groups. Without a rule
/// the answer is Apple's own: only a user who never had an introductory offer in the group.
///
/// A rule keeps that default and can widen it (`allowAgain`: a user who already had one gets
/// it again when they meet these eligibility criteria, for instance lapsed for a year after
/// at least a month paid) and narrow it (`excludeRefunded`, `storefronts`: denied to every
/// user who fails them).
public struct IntroductoryOfferRule: ManagedRule {
    public static let kind = "introductory-offer"

    public var ruleId: String
    public var bundleId: String
    public var enabled: Bool = true
    /// Among the rules that apply to a product, higher numbers win (a rule naming the product
    /// always wins over one naming its group).
    public var priority: Int = 0
    /// The products the rule applies to.
    @EncodedAsNull public var productIds: [String]? = nil
    /// The subscription groups the rule applies to (every product of each).
    @EncodedAsNull public var subscriptionGroupIds: [String]? = nil
    /// Criteria (those of offer rules) under which a user who already had an introductory
    /// offer in the group gets one again; nil: never, as Apple decides.
    @EncodedAsNull public var allowAgain: EligibilityCriteria? = nil
    /// Deny users with a refunded purchase in the group.
    @EncodedAsNull public var excludeRefunded: Bool? = nil
    /// Deny users whose latest storefront is not one of these (ISO 3166-1 alpha-3).
    @EncodedAsNull public var storefronts: [String]? = nil
}

extension IntroductoryOfferRule {
    enum CodingKeys: String, CodingKey {
        case ruleId, bundleId, enabled, priority, productIds, subscriptionGroupIds, allowAgain, excludeRefunded, storefronts
    }

    /// Decodes a rule; `enabled` defaults to true, `priority` to 0, and a missing `bundleId`
    /// to the one under ``OfferRule/defaultBundleIdKey`` of the decoder's `userInfo`, if any.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ruleId = try container.decode(String.self, forKey: .ruleId)
        bundleId = try container.decodeBundleId(forKey: .bundleId, defaultFrom: decoder)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 0
        productIds = try container.decodeIfPresent([String].self, forKey: .productIds)
        subscriptionGroupIds = try container.decodeIfPresent([String].self, forKey: .subscriptionGroupIds)
        allowAgain = try container.decodeIfPresent(EligibilityCriteria.self, forKey: .allowAgain)
        excludeRefunded = try container.decodeIfPresent(Bool.self, forKey: .excludeRefunded)
        storefronts = try container.decodeIfPresent([String].self, forKey: .storefronts)
    }

    /// The rule that decides for `productId` of group `group` (nil when unknown): among the
    /// enabled rules, those naming the product before those naming its group, each by priority.
    public static func deciding(_ rules: [IntroductoryOfferRule], productId: String, group: String?) -> IntroductoryOfferRule? {
        let enabled = inPriorityOrder(rules.filter(\.enabled))
        if let rule = enabled.first(where: { $0.productIds?.contains(productId) == true }) { return rule }
        guard let group else { return nil }
        return enabled.first { $0.subscriptionGroupIds?.contains(group) == true }
    }

    /// Every reason the rule cannot be right, as sentences naming the field; empty when valid.
    public func validationProblems() -> [String] {
        var problems: [String] = []
        if !Identifier.isValidRuleId(ruleId) { problems.append("'ruleId' must be \(Identifier.ruleIdRequirement)") }
        if !Identifier.isValid(bundleId) { problems.append("'bundleId' must be 1–256 visible ASCII characters") }
        if productIds == nil, subscriptionGroupIds == nil {
            problems.append("name the products ('productIds') or subscription groups ('subscriptionGroupIds') the rule applies to")
        }
        RuleChecks.identifiers("productIds", productIds, into: &problems)
        RuleChecks.identifiers("subscriptionGroupIds", subscriptionGroupIds, into: &problems)
        RuleChecks.storefronts("storefronts", storefronts, into: &problems)
        if let allowAgain {
            if allowAgain.maxRedemptionsPerUser != nil {
                problems.append("'allowAgain.maxRedemptionsPerUser' counts a promotional offer's redemptions and has no meaning here")
            }
            let criteria = OfferRule(offerId: ruleId, bundleId: bundleId, productIds: ["-"], eligibility: allowAgain)
            problems += criteria.validationProblems()
                .filter { $0.contains("'eligibility.") }
                .map { $0.replacingOccurrences(of: "'eligibility.", with: "'allowAgain.") }
        }
        return problems
    }
}
