import OfferSignerCore

/// Why one offer of a placement was passed over.
public struct PlacementOfferDecision: Codable, Hashable, Sendable {
    public var offerId: String
    public var reasons: [EligibilityReason]
}
