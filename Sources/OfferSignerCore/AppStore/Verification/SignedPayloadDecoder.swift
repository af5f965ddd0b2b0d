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
        } catch let error as DecodingError {
            throw SignedDataError.undecodablePayload(type: String(describing: type), reason: reason(error))
        } catch {
            throw SignedDataError.undecodablePayload(type: String(describing: type), reason: "not valid JSON")
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            "missing field '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context):
            "field '\(path(context.codingPath))' is not of type \(type)"
        case .valueNotFound(let type, let context):
            "field '\(path(context.codingPath))' is null, expected \(type)"
        case .dataCorrupted(let context):
            context.codingPath.isEmpty ? "not valid JSON" : "field '\(path(context.codingPath))' is invalid"
        @unknown default:
            "not decodable"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
