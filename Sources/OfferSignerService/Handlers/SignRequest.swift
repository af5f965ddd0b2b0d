import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The body of `POST /v1/offers/sign`.
struct SignRequest: Decodable {
    var productId: String
    var offerId: String
    var userId: String
    var bundleId: String?
    var format: PromotionalOfferFormat
    var transactionId: String?
    /// Whose history decides: Production unless the body names `"environment": "Sandbox"`.
    var environment: AppStoreEnvironment
    /// The customer's `Transaction.jwsRepresentation` and `AppTransaction.shared.jwsRepresentation`,
    /// and the device's `AppStore.deviceVerificationID`.
    var proof: CustomerProof

    enum CodingKeys: String, CodingKey {
        case productId, offerId, userId, bundleId, format, transactionId, environment, signedTransaction, signedAppTransaction
        case deviceVerificationId
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        productId = try container.decode(String.self, forKey: .productId)
        offerId = try container.decode(String.self, forKey: .offerId)
        userId = try container.decode(String.self, forKey: .userId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        format = try container.decodeFormat(forKey: .format)
        transactionId = try container.decodeIfPresent(String.self, forKey: .transactionId)
        environment = try container.decodeEnvironment(forKey: .environment)
        proof = try container.decodeProof(signedTransaction: .signedTransaction, signedAppTransaction: .signedAppTransaction,
                                           deviceVerificationId: .deviceVerificationId)
    }

    /// The body read without `JSONDecoder` when it is a flat object of plain strings (see
    /// `FlatJSONObject`) whose every member is a field of the request, with the required ones
    /// present and a known format and environment; nil otherwise, and the caller decodes it
    /// strictly (which words any refusal). Both readings agree on every body this accepts.
    init?(plainJSON body: [UInt8]) {
        guard let members = FlatJSONObject.strings(body) else { return nil }
        var productId: String?, offerId: String?, userId: String?, formatName: String?, environmentName: String?
        var proof = CustomerProof()
        for (name, value) in members {
            switch CodingKeys(stringValue: name) {
            case .productId: productId = value
            case .offerId: offerId = value
            case .userId: userId = value
            case .bundleId: bundleId = value
            case .format: formatName = value
            case .transactionId: transactionId = value
            case .environment: environmentName = value
            case .signedTransaction: proof.signedTransaction = value
            case .signedAppTransaction: proof.signedAppTransaction = value
            case .deviceVerificationId: proof.deviceVerificationId = value
            case nil: return nil
            }
        }
        guard let productId, let offerId, let userId,
              let format = PromotionalOfferFormat(rawValue: formatName ?? PromotionalOfferFormat.legacy.rawValue),
              let environment = AppStoreEnvironment(rawValue: environmentName ?? AppStoreEnvironment.production.rawValue) else {
            return nil
        }
        self.productId = productId
        self.offerId = offerId
        self.userId = userId
        self.format = format
        self.environment = environment
        self.proof = proof
    }

    /// Refuses IDs of the wrong length or characters, with the field named.
    func validate() throws(HTTPProblem) {
        try Self.validate(identifiers: [("productId", productId), ("offerId", offerId)], bundleId: bundleId,
                          transactionId: transactionId, proof: proof, userId: userId)
    }

    /// The checks of a request for one offer or for a placement's: each of `identifiers`
    /// (name, value), the app, the transaction and the proof.
    static func validate(identifiers: [(String, String)], bundleId: String?, transactionId: String?, proof: CustomerProof,
                         userId: String) throws(HTTPProblem) {
        for (name, value) in identifiers where !Identifier.isValid(value) {
            throw .invalidRequest("'\(name)' must be 1–256 visible ASCII characters")
        }
        if let bundleId, !Identifier.isValid(bundleId) {
            throw .invalidRequest("'bundleId' must be 1–256 visible ASCII characters")
        }
        if let transactionId, !Identifier.isValid(transactionId, maxLength: 64) {
            throw .invalidRequest("'transactionId' must be 1–64 visible ASCII characters")
        }
        try proof.validate(userId: userId)
    }
}
