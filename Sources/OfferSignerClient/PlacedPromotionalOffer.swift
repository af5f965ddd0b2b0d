/// The offer a placement picked for the customer, signed: its `offerID` names the offer.
public struct PlacedPromotionalOffer: Sendable, Equatable {
    /// The placement asked for.
    public let placement: String
    /// The signed offer, to pass to StoreKit as any other.
    public let offer: SignedPromotionalOffer
    /// The experiment running on the placement, when the customer's arm picked the offer.
    public let experimentID: String?
    /// The customer's arm in that experiment (the same on every request while it runs).
    public let armID: String?

    public init(placement: String, offer: SignedPromotionalOffer, experimentID: String? = nil, armID: String? = nil) {
        self.placement = placement
        self.offer = offer
        self.experimentID = experimentID
        self.armID = armID
    }
}
