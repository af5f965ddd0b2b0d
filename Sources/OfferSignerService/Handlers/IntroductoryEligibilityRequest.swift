import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The body of `POST /v1/offers/introductory-eligibility`.
struct IntroductoryEligibilityRequest: Decodable {
    var productId: String
    var userId: String
    /// Any transaction of the customer; their `appTransactionId` is accepted.
    var transactionId: String
    var bundleId: String?
    /// Whose history decides: Production unless the body names `"environment": "Sandbox"`.
    var environment: AppStoreEnvironment
    /// The customer's Apple-signed transaction and app transaction, as for signing.
    var proof: CustomerProof

    enum CodingKeys: String, CodingKey {
        case productId, userId, transactionId, bundleId, environment, signedTransaction, signedAppTransaction
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productId = try container.decode(String.self, forKey: .productId)
        userId = try container.decode(String.self, forKey: .userId)
        transactionId = try container.decode(String.self, forKey: .transactionId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        environment = try container.decodeEnvironment(forKey: .environment)
        proof = try container.decodeProof(signedTransaction: .signedTransaction, signedAppTransaction: .signedAppTransaction)
    }

    /// Refuses IDs of the wrong length or characters, with the field named.
    func validate() throws(HTTPProblem) {
        if !Identifier.isValid(productId) { throw .invalidRequest("'productId' must be 1–256 visible ASCII characters") }
        if let bundleId, !Identifier.isValid(bundleId) { throw .invalidRequest("'bundleId' must be 1–256 visible ASCII characters") }
        if !Identifier.isValid(transactionId, maxLength: 64) {
            throw .invalidRequest("'transactionId' must be 1–64 visible ASCII characters")
        }
        try proof.validate(userId: userId)
    }
}
