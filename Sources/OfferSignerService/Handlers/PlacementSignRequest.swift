import OfferSignerApplication

/// The body of `POST /v1/offers/placement`: that of `POST /v1/offers/sign` with `placement`
/// instead of `offerId`.
typealias PlacementSignRequest = SignRequestBody<PlacementChoice>

extension SignRequestBody where Choice == PlacementChoice {
    /// The placement whose offer the service picks.
    var placement: String { choice }

    /// The request as the placement issuer takes it, from `context`'s caller.
    func placementRequest(_ context: ServiceContext) -> PlacementRequest {
        PlacementRequest(placementId: placement, offer: issueRequest(offerId: "", context))
    }
}
