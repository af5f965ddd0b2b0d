import OfferSignerCore

/// The offer a placement picked, signed and logged.
public struct PlacedOffer: Sendable {
    public var issued: IssuedOffer
    public var placementId: String
    /// The experiment running on the placement, when the user's arm picked the offer.
    public var experimentId: String? = nil
    /// The user's arm in that experiment.
    public var armId: String? = nil
}
