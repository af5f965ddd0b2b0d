import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP

/// The body of `POST /v1/offers/placement`: that of `POST /v1/offers/sign` with `placement`
/// instead of `offerId`.
struct PlacementSignRequest: Decodable {
    var placement: String
    var productId: String
    var userId: String
    var bundleId: String?
    var format: PromotionalOfferFormat
    var transactionId: String?
    var environment: AppStoreEnvironment
    var proof: CustomerProof

    enum CodingKeys: String, CodingKey {
        case placement, productId, userId, bundleId, format, transactionId, environment, signedTransaction, signedAppTransaction
        case deviceVerificationId
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        placement = try container.decode(String.self, forKey: .placement)
        productId = try container.decode(String.self, forKey: .productId)
        userId = try container.decode(String.self, forKey: .userId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        format = try container.decodeFormat(forKey: .format)
        transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
        environment = try container.decodeEnvironment(forKey: .environment)
        proof = try container.decodeProof(signedTransaction: .signedTransaction, signedAppTransaction: .signedAppTransaction,
                                           deviceVerificationId: .deviceVerificationId)
    }

    /// Refuses IDs of the wrong length or characters, with the field named.
    func validate() throws(HTTPProblem) {
        if !Identifier.isValidRuleId(placement) {
            throw .invalidRequest("'placement' must be \(Identifier.ruleIdRequirement)")
        }
        try SignRequest.validate(identifiers: [("productId", productId)], bundleId: bundleId, transactionId: transactionId,
                                 proof: proof, userId: userId)
    }

    /// The request as the placement issuer takes it, from `context`'s caller.
    func placementRequest(_ context: ServiceContext) -> PlacementRequest {
        PlacementRequest(placementId: placement, offer: IssueRequest(
            bundleId: bundleId, productId: productId, offerId: "", userId: userId, format: format, transactionId: transactionId,
            environment: environment, requestedBy: context.callerName, requestId: context.requestId, proof: proof,
            callerTrust: context.principal?.trust ?? .app))  // the route needs a key; none is believed least
    }
}
