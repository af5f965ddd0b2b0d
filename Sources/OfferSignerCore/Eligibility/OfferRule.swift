import Foundation

/// A promotional offer as marketing configures it: which products it is for, when it runs,
/// who is eligible and how often one user may ask for a signature.
public struct OfferRule: Codable, Hashable, Sendable {
    /// The offer identifier configured in App Store Connect.
    public var offerId: String
    public var bundleId: String
    /// Products the offer may be redeemed on; never empty.
    public var productIds: [String]
    public var enabled: Bool
    /// Higher numbers are shown first.
    public var priority: Int
    @EncodedAsNull public var startsAt: Date?
    @EncodedAsNull public var endsAt: Date?
    public var eligibility: EligibilityCriteria
    public var limits: OfferLimits
    /// The share of otherwise-eligible users, 0–50 %, kept back (refused with the `holdout`
    /// criterion, never signed) to measure the offer's effect; 0, the default, holds no one out.
    /// See ``OfferHoldout``.
    public var holdoutPercent: Int

    public init(
        offerId: String, bundleId: String, productIds: [String], enabled: Bool = true, priority: Int = 0,
        startsAt: Date? = nil, endsAt: Date? = nil,
        eligibility: EligibilityCriteria = .unrestricted, limits: OfferLimits = OfferLimits(), holdoutPercent: Int = 0
    ) {
        self.offerId = offerId
        self.bundleId = bundleId
        self.productIds = productIds
        self.enabled = enabled
        self.priority = priority
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.eligibility = eligibility
        self.limits = limits
        self.holdoutPercent = holdoutPercent
    }

    enum CodingKeys: String, CodingKey {
        case offerId, bundleId, productIds, enabled, priority, startsAt, endsAt, eligibility, limits, holdoutPercent
    }

    /// Decoding a rule that names no `bundleId` takes the bundle ID (a `String`) stored under
    /// this key of the decoder's `userInfo`, if any: the only configured app, for instance.
    /// Without it, `bundleId` is required.
    public static let defaultBundleIdKey = CodingUserInfoKey(rawValue: "offerSigner.defaultBundleId")!

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offerId = try container.decode(String.self, forKey: .offerId)
        bundleId = try container.decodeBundleId(forKey: .bundleId, defaultFrom: decoder)
        productIds = try container.decode([String].self, forKey: .productIds)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        priority = try container.decodeIfPresent(Int.self, forKey: .priority) ?? 0
        startsAt = try container.decodeIfPresent(Date.self, forKey: .startsAt)
        endsAt = try container.decodeIfPresent(Date.self, forKey: .endsAt)
        eligibility = try container.decodeIfPresent(EligibilityCriteria.self, forKey: .eligibility) ?? .unrestricted
        limits = try container.decodeIfPresent(OfferLimits.self, forKey: .limits) ?? OfferLimits()
        holdoutPercent = try container.decodeIfPresent(Int.self, forKey: .holdoutPercent) ?? 0
    }

    /// Whether the offer runs at `now`: enabled and within `startsAt`/`endsAt`.
    public func isRunning(at now: Date) -> Bool {
        enabled && (startsAt.map { $0 <= now } ?? true) && (endsAt.map { now < $0 } ?? true)
    }
}

/// How often one user may ask for a signature for an offer.
public struct OfferLimits: Codable, Hashable, Sendable {
    /// Signatures of this offer issued to one user in any 24 hours.
    public var maxSignaturesPerUserPerDay: Int?

    public init(maxSignaturesPerUserPerDay: Int? = nil) {
        self.maxSignaturesPerUserPerDay = maxSignaturesPerUserPerDay
    }
}
