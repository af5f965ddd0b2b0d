import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The body of `POST /v1/offers/introductory-eligibility`: one product (`productId`) or a
/// store page of 1–20 distinct products of one app (`productIds`), never both.
struct IntroductoryEligibilityRequest: Decodable {
    /// The most products one request may name (a store page).
    static let maxProducts = 20

    var productId: String?
    var productIds: [String]?
    var userId: String
    /// Any transaction of the customer; their `appTransactionId` is accepted.
    var transactionId: String
    var bundleId: String?
    /// Whose history decides: Production unless the body names `"environment": "Sandbox"`.
    var environment: AppStoreEnvironment
    /// The customer's Apple-signed transaction and app transaction, as for signing.
    var proof: CustomerProof

    enum CodingKeys: String, CodingKey {
        case productId, productIds, userId, transactionId, bundleId, environment, signedTransaction, signedAppTransaction
        case deviceVerificationId
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Either may be absent, but neither may be null.
        productId = container.contains(.productId) ? try container.decode(String.self, forKey: .productId) : nil
        productIds = container.contains(.productIds) ? try container.decode([String].self, forKey: .productIds) : nil
        userId = try container.decode(String.self, forKey: .userId)
        transactionId = try container.decode(String.self, forKey: .transactionId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        environment = try container.decodeEnvironment(forKey: .environment)
        proof = try container.decodeProof(signedTransaction: .signedTransaction, signedAppTransaction: .signedAppTransaction,
                                           deviceVerificationId: .deviceVerificationId)
    }

    /// Refuses IDs of the wrong length or characters, with the field named.
    func validate() throws(HTTPProblem) {
        switch (productId, productIds) {
        case (nil, nil):
            throw .invalidRequest("name the product ('productId') or the products of a store page ('productIds')")
        case (_?, _?):
            throw .invalidRequest("'productId' and 'productIds' exclude each other: send one")
        case (let productId?, nil):
            if !Identifier.isValid(productId) { throw .invalidRequest("'productId' must be 1–256 visible ASCII characters") }
        case (nil, let productIds?):
            guard (1...Self.maxProducts).contains(productIds.count) else {
                throw .invalidRequest("'productIds' must name 1–\(Self.maxProducts) products (got \(productIds.count))")
            }
            var seen = Set<String>()
            for (index, product) in productIds.enumerated() {
                if !Identifier.isValid(product) {
                    throw .invalidRequest("'productIds[\(index)]' must be 1–256 visible ASCII characters")
                }
                if !seen.insert(product).inserted { throw .invalidRequest("'productIds' names '\(product)' twice") }
            }
        }
        if let bundleId, !Identifier.isValid(bundleId) { throw .invalidRequest("'bundleId' must be 1–256 visible ASCII characters") }
        if !Identifier.isValid(transactionId, maxLength: 64) {
            throw .invalidRequest("'transactionId' must be 1–64 visible ASCII characters")
        }
        try proof.validate(userId: userId)
    }
}
