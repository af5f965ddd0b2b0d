import Foundation
import OfferSignerCore

/// Reads one field of a stored signed JWS's payload again, without verifying it (it was
/// verified before it was stored): for fields the history's columns do not keep, such as a
/// transaction's `currency`.
enum SignedPayloadField {
    /// The string field `name` of the JWS's payload; nil when absent or not a string.
    static func string(_ name: String, inJWS jws: String) -> String? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        return object[name] as? String
    }
}
