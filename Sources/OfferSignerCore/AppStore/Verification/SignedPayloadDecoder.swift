import Foundation

/// Decodes JWS payloads into Apple's types, turning decoding failures into short,
/// input-free reasons.
enum SignedPayloadDecoder {
    /// The only payload field read before the signature is checked: the time at which the
    /// chain must be valid.
    private struct SignedDateProbe: Decodable {
        let signedDate: Int64?
    }

    /// The payload's `signedDate` in milliseconds since 1970, nil when absent.
    static func signedDate(of payload: Data) throws(SignedDataError) -> Int64? {
        do {
            return try JSONDecoder().decode(SignedDateProbe.self, from: payload).signedDate
        } catch {
            throw SignedDataError.malformedPayload("is not a JSON object whose signedDate is an integer of milliseconds")
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
