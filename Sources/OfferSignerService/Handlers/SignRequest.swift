/// The body of `POST /v1/offers/sign`.
typealias SignRequest = SignRequestBody<OfferChoice>

extension SignRequestBody where Choice == OfferChoice {
    /// The offer to sign.
    var offerId: String { choice }
}
