import Foundation
import OfferSignerCore
import Synchronization

/// Makes the ES256 JWT the App Store Connect API requires, and reuses it until a minute
/// before it expires.
///
/// Header `alg` ES256, `kid`, `typ` JWT; claims `iss`, `iat`, `exp` twenty minutes after `iat`
/// (App Store Connect refuses a token that lives longer), `aud` `appstoreconnect-v1`.
///
/// [Generating tokens for API requests](https://developer.apple.com/documentation/appstoreconnectapi/generating-tokens-for-api-requests)
final class AppStoreConnectTokenIssuer: Sendable {
    static let audience = "appstoreconnect-v1"
    /// App Store Connect's longest token life.
    static let lifetime: TimeInterval = 20 * 60
    /// A token is replaced once less than this is left of its life.
    static let renewalMargin: TimeInterval = 60

    private struct Token {
        let compact: String
        let expires: Date
    }

    private let credentials: AppStoreConnectCredentials
    private let now: @Sendable () -> Date
    private let cached = Mutex<Token?>(nil)

    init(credentials: AppStoreConnectCredentials, now: @escaping @Sendable () -> Date) {
        self.credentials = credentials
        self.now = now
    }

    /// The current token, signing a new one when the last is missing or has a minute or less to live.
    func token() throws(AppStoreConnectError) -> String {
        let now = self.now()
        return try cached.withLock { cached throws(AppStoreConnectError) -> String in
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

    private func sign(issuedAt now: Date) throws(AppStoreConnectError) -> Token {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = issuedAt + Int64(Self.lifetime)
        let header = JSONValue.object([("alg", .string("ES256")), ("kid", .string(credentials.keyId)), ("typ", .string("JWT"))])
        let claims = JSONValue.object([
            ("iss", .string(credentials.issuerId)),
            ("iat", .int(Int(issuedAt))),
            ("exp", .int(Int(expires))),
            ("aud", .string(Self.audience)),
        ])
        let signingInput = Base64URL.encode(header.utf8) + "." + Base64URL.encode(claims.utf8)
        let raw: [UInt8]
        do {
            raw = try credentials.privateKey.rawSignature(Array(signingInput.utf8))
        } catch {
            throw AppStoreConnectError.tokenSigningFailed(error.description)
        }
        return Token(compact: signingInput + "." + Base64URL.encode(raw), expires: Date(timeIntervalSince1970: TimeInterval(expires)))
    }
}
