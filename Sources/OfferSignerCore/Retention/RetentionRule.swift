import Foundation

/// What to answer the App Store's Retention Messaging request for a subscription, as
/// marketing configures it: for which products and locales the rule applies, how it ranks,
/// and the retention message to show — a message alone, a message with an alternate product
/// (switch plan), or a message with a promotional offer (one of the app's offer rules, so its
/// eligibility, dates, quota and storefronts apply as they do to `/v1/offers/sign`).
///
/// Rules are tried highest `priority` first. A message or alternate-product rule answers as
/// soon as it applies. An offer rule answers with the offer when the user is eligible for it;
/// when not, it answers its `fallbackMessageIdentifier` if it has one, and otherwise passes to
/// the next rule. When no rule answers, the App Store shows the default message configured
/// in App Store Connect for the product and locale.
public struct RetentionRule: ManagedRule {
    public static let kind = "retention"

    public var ruleId: String
    public var bundleId: String
    public var enabled: Bool = true
    public var priority: Int = 0
    /// The subscriptions (the request's `productId`) the rule applies to; nil for every one.
    @EncodedAsNull public var productIds: [String]? = nil
    /// The locales (the request's `userLocale`) the rule applies to; nil for every one. `en`
    /// matches every `en-…` locale, `en-US` only itself; case and `_`/`-` do not matter.
    @EncodedAsNull public var locales: [String]? = nil
    /// The retention message (a UUID from the Retention Messaging API's message upload)
    /// shown alone, with the alternate product, or with the offer.
    public var messageIdentifier: String
    /// With a switch-plan message: the subscription to suggest.
    @EncodedAsNull public var alternateProductId: String? = nil
    /// With a promotional-offer message: the offer rule (`offerId` of this app) to sign.
    @EncodedAsNull public var offerId: String? = nil
    /// With an offer: the message to show instead when the user is not eligible for it.
    @EncodedAsNull public var fallbackMessageIdentifier: String? = nil
}

extension RetentionRule {
    enum CodingKeys: String, CodingKey {
        case ruleId, bundleId, enabled, priority, productIds, locales, messageIdentifier, alternateProductId, offerId
        case fallbackMessageIdentifier
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
        locales = try container.decodeIfPresent([String].self, forKey: .locales)
        messageIdentifier = try container.decode(String.self, forKey: .messageIdentifier)
        alternateProductId = try container.decodeIfPresent(String.self, forKey: .alternateProductId)
        offerId = try container.decodeIfPresent(String.self, forKey: .offerId)
        fallbackMessageIdentifier = try container.decodeIfPresent(String.self, forKey: .fallbackMessageIdentifier)
    }

    /// Whether the rule is enabled and applies to a request about `productId` in `locale`.
    public func applies(productId: String, locale: String) -> Bool {
        guard enabled else { return false }
        if let productIds, !productIds.contains(productId) { return false }
        if let locales {
            let wanted = Self.normalized(locale)
            return locales.contains { candidate in
                let rule = Self.normalized(candidate)
                return wanted == rule || wanted.hasPrefix(rule + "-")
            }
        }
        return true
    }

    /// A locale compared without case, `_` read as `-`.
    static func normalized(_ locale: String) -> String {
        locale.lowercased().replacingOccurrences(of: "_", with: "-")
    }
}
