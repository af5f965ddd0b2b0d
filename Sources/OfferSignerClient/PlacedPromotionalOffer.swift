/// The offer a placement picked for the customer, signed: its `offerID` names the offer.
public struct PlacedPromotionalOffer: Sendable, Equatable {
    /// The placement asked for.
    public let placement: String
    /// The signed offer, to pass to StoreKit as any other.
    public let offer: SignedPromotionalOffer

    public init(placement: String, offer: SignedPromotionalOffer) {
        self.placement = placement
        self.offer = offer
    }
}
