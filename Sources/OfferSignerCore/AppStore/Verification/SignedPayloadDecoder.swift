import Foundation

/// Decodes JWS payloads into Apple's types, turning decoding failures into short,
/// input-free reasons.
enum SignedPayloadDecoder {
    /// The payload field that says when the App Store signed it: `signedDate`, except in an
    /// app transaction, which says `receiptCreationDate`.
    enum SignedDateField: String {
        case signedDate
        case receiptCreationDate
    }

    /// The only payload field read before the signature is checked: the time at which the
    /// chain must be valid.
    private struct SignedDateProbe: Decodable {
        let signedDate: Int64?
    }

    private struct ReceiptCreationDateProbe: Decodable {
        let receiptCreationDate: Int64?
    }

    /// The payload's `field` in milliseconds since 1970, nil when absent.
    static func signedDate(of payload: Data, field: SignedDateField = .signedDate) throws(SignedDataError) -> Int64? {
        do {
            switch field {
            case .signedDate: return try JSONDecoder().decode(SignedDateProbe.self, from: payload).signedDate
            case .receiptCreationDate: return try JSONDecoder().decode(ReceiptCreationDateProbe.self, from: payload).receiptCreationDate
            }
        } catch {
            throw SignedDataError.malformedPayload("is not a JSON object whose \(field.rawValue) is an integer of milliseconds")
        }
    }

    /// The payload decoded as `type`.
    static func decode<Payload: Decodable>(_ type: Payload.Type, from payload: Data) throws(SignedDataError) -> Payload {
        do {
            return try JSONDecoder().decode(type, from: payload)
        } catch {
            let named = JSONNumberFault.named(error, in: payload) { _ = try JSONDecoder().decode(type, from: $0) }
            throw SignedDataError.undecodablePayload(type: String(describing: type),
                                                     reason: DecodingErrorText.describe(named, subject: "the payload"))
        }
    }
}
