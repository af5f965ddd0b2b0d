import Foundation

/// The JSON bodies of the service's routes, as `openapi.yaml` describes them.
enum WireFormat {
    /// `POST /v1/offers/sign`'s body (`offerId`), or `POST /v1/offers/placement`'s (`placement`
    /// instead; the one not given is left out).
    struct SignRequest: Encodable {
        var placement: String? = nil
        let productId: String
        var offerId: String? = nil
        let userId: String
        let format: String
        let bundleId: String?
        let transactionId: String?
        let signedTransaction: String?
        let signedAppTransaction: String?
        /// `AppStore.deviceVerificationID`, lowercased, with the proof's transaction.
        let deviceVerificationId: String?
        let environment: String?
    }

    /// `POST /v1/offers/sign`'s answer, either format.
    struct SignResponse: Decodable {
        let format: String
        let bundleId: String
        let productId: String
        let offerId: String
        let appAccountToken: String
        let keyIdentifier: String
        let nonce: String
        let timestamp: Int?
        let signature: String?
        let jws: String?
        let expiresAt: String
    }

    /// What `POST /v1/offers/placement`'s answer adds to the sign answer.
    struct PlacementResponse: Decodable {
        let placement: String
        let experimentId: String?
        let armId: String?
    }

    /// `POST /v1/offers/introductory-eligibility`'s body: `productId` for one product,
    /// `productIds` for a store page (the one not given is left out).
    struct IntroductoryRequest: Encodable {
        var productId: String? = nil
        var productIds: [String]? = nil
        let userId: String
        let transactionId: String
        let bundleId: String?
        let signedTransaction: String?
        let signedAppTransaction: String?
        /// `AppStore.deviceVerificationID`, lowercased, with the proof's transaction.
        let deviceVerificationId: String?
        let environment: String?
    }

    /// A store page's answer: one per product, in request order.
    struct IntroductoryPageResponse: Decodable {
        let items: [IntroductoryResponse]
    }

    /// `POST /v1/offers/introductory-eligibility`'s answer.
    struct IntroductoryResponse: Decodable {
        let allowIntroductoryOffer: Bool
        let jws: String
        let nonce: String
        let keyIdentifier: String
        let reasons: [EligibilityReason]
    }

    /// `value` as JSON (nil members left out).
    static func encode<Value: Encodable>(_ value: Value) throws(OfferSignerError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .invalidRequest(detail: "cannot encode the request: \(error)")
        }
    }

    /// `data` decoded as `type`; an answer that is not is an unexpected response.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(OfferSignerError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .unexpectedResponse(status: 200, code: nil, detail: "an answer that could not be read: \(error)")
        }
    }

    /// An RFC 3339 time as the service writes it (with or without fractional seconds).
    static func date(_ text: String) throws(OfferSignerError) -> Date {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw .unexpectedResponse(status: 200, code: nil, detail: "not an RFC 3339 time: \(text)")
    }

    /// A UUID as the service writes it.
    static func uuid(_ text: String) throws(OfferSignerError) -> UUID {
        guard let uuid = UUID(uuidString: text) else {
            throw .unexpectedResponse(status: 200, code: nil, detail: "not a UUID: \(text)")
        }
        return uuid
    }
}

extension WireFormat.SignResponse {
    /// The signed offer this answer carries, checked to have its format's signature.
    func offer() throws(OfferSignerError) -> SignedPromotionalOffer {
        let signature: SignedPromotionalOffer.Signature
        switch (format, self.signature, timestamp, jws) {
        case ("legacy", let text?, let timestamp?, _):
            guard let der = Data(base64Encoded: text) else {
                throw .unexpectedResponse(status: 200, code: nil, detail: "the signature is not base64")
            }
            signature = .legacy(signature: der, timestamp: timestamp)
        case ("jws", _, _, let jws?):
            signature = .jws(compactJWS: jws)
        default:
            throw .unexpectedResponse(status: 200, code: nil, detail: "an answer of format '\(format)' without its signature")
        }
        return SignedPromotionalOffer(
            bundleID: bundleId, productID: productId, offerID: offerId, appAccountToken: appAccountToken, keyID: keyIdentifier,
            nonce: try WireFormat.uuid(nonce), expiresAt: try WireFormat.date(expiresAt), signature: signature)
    }
}
