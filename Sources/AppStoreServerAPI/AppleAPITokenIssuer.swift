import Foundation
import OfferSignerCore
import Synchronization

/// Makes the ES256 JWT Apple's APIs take (the App Store Server API's and App Store Connect's),
/// and reuses it until a minute before it expires.
///
/// Header `alg` ES256, `kid`, `typ` JWT; claims `iss`, `iat`, `exp` (`lifetime` after `iat`),
/// `aud` `appstoreconnect-v1`, and `bid` when the token is for one app.
final class AppleAPITokenIssuer: Sendable {
    static let audience = "appstoreconnect-v1"
    /// A token is replaced once less than this is left of its life.
    static let renewalMargin: TimeInterval = 60

    /// Why a token could not be signed (the key's own words).
    struct SigningFailure: Error {
        let description: String
    }

    private struct Token {
        let compact: String
        let expires: Date
    }

    private let keyId: String
    private let issuerId: String
    private let bundleId: String?
    private let privateKey: any P256SigningKey
    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let cached = Mutex<Token?>(nil)

    init(keyId: String, issuerId: String, bundleId: String?, privateKey: any P256SigningKey, lifetime: TimeInterval,
         now: @escaping @Sendable () -> Date) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.privateKey = privateKey
        self.lifetime = lifetime
        self.now = now
    }

    /// The current token, signing a new one when the last is missing or has a minute or less to live.
    func token() throws(SigningFailure) -> String {
        let now = self.now()
        return try cached.withLock { cached throws(SigningFailure) -> String in
            if let token = cached, token.expires.timeIntervalSince(now) > Self.renewalMargin {
                return token.compact
            }
            let fresh = try sign(issuedAt: now)
            cached = fresh
            return fresh.compact
        }
    }

    /// Forgets the cached token, so the next request signs a new one.
    func discard() {
        cached.withLock { $0 = nil }
    }

    private func sign(issuedAt now: Date) throws(SigningFailure) -> Token {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = issuedAt + Int64(lifetime)
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(keyId)), ("typ", .string("JWT"))])
        var claims: [(String, JSONValue)] = [
            ("iss", .string(issuerId)),
            ("iat", .int(Int(issuedAt))),
            ("exp", .int(Int(expires))),
            ("aud", .string(Self.audience)),
        ]
        if let bundleId { claims.append(("bid", .string(bundleId))) }
        let signingInput = Base64URL.encode(header.utf8) + "." + Base64URL.encode(JSONValue.object(claims).utf8)
        let raw: [UInt8]
        do {
            raw = try privateKey.rawSignature(Array(signingInput.utf8))
        } catch {
            throw SigningFailure(description: error.description)
        }
        return Token(compact: signingInput + "." + Base64URL.encode(raw), expires: Date(timeIntervalSince1970: TimeInterval(expires)))
    }
}
