import Foundation

/// A named moment in an app where an offer may be shown (`cancel_flow`, `winback_push`,
/// `paywall`), as marketing configures it: the app's offers to choose from, in priority order.
/// A client asks for "the offer of this placement" and the service picks the first one the
/// user is eligible for (or, while an experiment runs on the placement, the user's arm).
public struct Placement: ManagedRule {
    public static let kind = "placement"
    public static let identifierKey = "placementId"
    public static let collectionKey = "placements"
    /// The most offers a placement may list.
    public static let maxOffers = 20
    /// The longest description, in code points.
    public static let maxDescriptionLength = 500
    /// Where the decoder's `userInfo` carries the placement ID of the request's path, used
    /// when the body leaves `placementId` out.
    public static let defaultPlacementIdKey = CodingUserInfoKey(rawValue: "offerSigner.defaultPlacementId")!

    /// What a description may not hold: controls, the soft hyphen, zero-width characters, the
    /// bidirectional overrides and isolates, invisible operators and the byte-order mark, which
    /// would make the text read otherwise in the console than it is stored (the same list as
    /// `openapi.yaml`'s pattern).
    static let refusedInDescriptions: [ClosedRange<UInt32>] = [
        0x0000...0x001F, 0x007F...0x009F, 0x00AD...0x00AD, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064,
        0x2066...0x206F, 0xFEFF...0xFEFF,
    ]

    public var placementId: String
    public var bundleId: String
    /// The app's offer rules (`offerId`), tried in this order.
    public var offerIds: [String]
    /// What the moment is, for the people who configure it.
    @EncodedAsNull public var description: String? = nil
    /// A disabled placement (`DELETE`) signs nothing; it keeps its history.
    public var enabled: Bool = true

    public var ruleId: String { placementId }
    public var priority: Int { 0 }
}

extension Placement {
    enum CodingKeys: String, CodingKey { case placementId, bundleId, offerIds, description, enabled }

    /// Decodes a placement; `enabled` defaults to true, a missing `placementId` to the one
    /// under ``defaultPlacementIdKey`` and a missing `bundleId` to the one under
    /// ``OfferRule/defaultBundleIdKey`` of the decoder's `userInfo`, if any.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let named = try container.decodeIfPresent(String.self, forKey: .placementId) {
            placementId = named
        } else if let fallback = decoder.userInfo[Self.defaultPlacementIdKey] as? String {
            placementId = fallback
        } else {
            placementId = try container.decode(String.self, forKey: .placementId)
        }
        bundleId = try container.decodeBundleId(forKey: .bundleId, defaultFrom: decoder)
        offerIds = try container.decode([String].self, forKey: .offerIds)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
    }

    /// Every reason the placement cannot be right, as sentences naming the field; empty when valid.
    public func validationProblems() -> [String] {
        var problems: [String] = []
        if !Identifier.isValidRuleId(placementId) { problems.append("'placementId' must be \(Identifier.ruleIdRequirement)") }
        if !Identifier.isValid(bundleId) { problems.append("'bundleId' must be 1–256 visible ASCII characters") }
        if offerIds.isEmpty {
            problems.append("'offerIds' must name at least one offer")
        } else {
            RuleChecks.identifiers("offerIds", offerIds, into: &problems)
        }
        if offerIds.count > Self.maxOffers { problems.append("'offerIds' may name at most \(Self.maxOffers) offers") }
        if let description {
            if description.unicodeScalars.count > Self.maxDescriptionLength {
                problems.append("'description' must be at most \(Self.maxDescriptionLength) characters")
            }
            if description.unicodeScalars.contains(where: { scalar in Self.refusedInDescriptions.contains { $0.contains(scalar.value) } }) {
                problems.append("'description' must not contain control or invisible formatting characters")
            }
        }
        return problems
    }
}
