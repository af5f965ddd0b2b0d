import OfferSignerCore

/// What a caller asks `PlacementIssuer` for: the offer of a placement, for one product and
/// user. `offer` is the request as it would be for one offer (its `offerId` is set to each of
/// the placement's offers in turn).
public struct PlacementRequest: Sendable {
    public var placementId: String
    public var offer: IssueRequest

    public init(placementId: String, offer: IssueRequest) {
        self.placementId = placementId
        self.offer = offer
    }
}
