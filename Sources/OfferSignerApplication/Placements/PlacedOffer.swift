import OfferSignerCore

/// The offer a placement picked, signed and logged.
public struct PlacedOffer: Sendable {
    public var issued: IssuedOffer
    public var placementId: String
}
