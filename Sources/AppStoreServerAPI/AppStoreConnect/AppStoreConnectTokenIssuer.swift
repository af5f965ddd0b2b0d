import Foundation

/// Makes the ES256 JWT the App Store Connect API requires (no `bid`: a Team key speaks for the
/// team), and reuses it until a minute before it expires; `exp` is twenty minutes after `iat`,
/// App Store Connect's longest token life.
///
/// [Generating tokens for API requests](https://developer.apple.com/documentation/appstoreconnectapi/generating-tokens-for-api-requests)
final class AppStoreConnectTokenIssuer: Sendable {
    /// App Store Connect's longest token life.
    static let lifetime: TimeInterval = 20 * 60
    private let issuer: AppleAPITokenIssuer

    init(credentials: AppStoreConnectCredentials, now: @escaping @Sendable () -> Date) {
        issuer = AppleAPITokenIssuer(keyId: credentials.keyId, issuerId: credentials.issuerId, bundleId: nil,
                                     privateKey: credentials.privateKey, lifetime: Self.lifetime, now: now)
    }

    /// The current token, signing a new one when the last is missing or has a minute or less to live.
    func token() throws(AppStoreConnectError) -> String {
        do {
            return try issuer.token()
        } catch {
            throw .tokenSigningFailed(error.description)
        }
    }

    /// Forgets the cached token, so the next request signs a new one.
    func discard() { issuer.discard() }
}
