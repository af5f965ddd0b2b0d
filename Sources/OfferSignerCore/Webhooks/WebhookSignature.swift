import Foundation

/// The `Offer-Signer-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`,
/// with one `v1=` per secret in force (two while a rotated secret's old one is still valid).
public enum WebhookSignature {
    /// The header's value for `body` sent at `timestamp` (Unix seconds), signed with each of `secrets`.
    public static func header(body: [UInt8], timestamp: Int64, secrets: [String]) -> String {
        header(body: body, timestamp: timestamp, keys: secrets.map(WebhookSigningKey.init(secret:)))
    }

    /// The header's value for `body` sent at `timestamp`, signed with each of `keys` (the
    /// secrets in force, each keyed once: ``WebhookSigningKey``).
    public static func header(body: [UInt8], timestamp: Int64, keys: [WebhookSigningKey]) -> String {
        let time = String(timestamp)
        let prefix = Array((time + ".").utf8)
        var out = "t=" + time
        for key in keys {
            out += ",v1="
            out += key.mac(prefix, body).hexString
        }
        return out
    }

    /// Whether `header` carries a `v1=` of `body` made with `secret`, and its timestamp is within
    /// `tolerance` seconds of `now` (nil: the time is not checked).
    public static func verify(header: String, body: [UInt8], secret: String, now: Date? = nil,
                              tolerance: Int64 = 300) -> Result<Int64, VerificationFailure> {
        var timestamp: Int64?
        var candidates: [[UInt8]] = []
        for part in header.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return .failure(.malformed) }
            switch pair[0] {
            case "t":
                guard timestamp == nil, let value = Int64(pair[1]) else { return .failure(.malformed) }
                timestamp = value
            case "v1":
                guard let bytes = [UInt8](hexString: pair[1]), bytes.count == 32 else { return .failure(.malformed) }
                candidates.append(bytes)
            default:
                continue  // a later scheme
            }
        }
        guard let timestamp, !candidates.isEmpty else { return .failure(.malformed) }
        let expected = hmacSHA256(key: Array(secret.utf8), message: signed(body, timestamp))
        guard candidates.contains(where: { SHA256Digest.constantTimeEquals($0, expected) }) else { return .failure(.mismatch) }
        if let now, abs(Int64(now.timeIntervalSince1970) - timestamp) > tolerance { return .failure(.stale(timestamp)) }
        return .success(timestamp)
    }

    /// Why a header did not verify.
    public enum VerificationFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not `t=…,v1=…` with a decimal time and 64 hex digits.
        case malformed
        /// No `v1=` matches the body signed with the secret.
        case mismatch
        /// The signature matches but its time is too far from now (a replay).
        case stale(Int64)

        public var description: String {
            switch self {
            case .malformed: "the signature header is not t=<unix seconds>,v1=<64 hex digits>"
            case .mismatch: "no v1 signature matches the body and the secret"
            case .stale(let t): "the signature's time t=\(t) is too far from now"
            }
        }
    }

    /// `"<t>.<body>"`, what each `v1` signs.
    static func signed(_ body: [UInt8], _ timestamp: Int64) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }

    /// HMAC-SHA256 (RFC 2104), OpenSSL's.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        WebhookSigningKey(key: key).mac(message)
    }
}
