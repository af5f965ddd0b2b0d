import Foundation

/// Makes the ES256 JWT the App Store Server API requires (with the app's `bid`), and reuses it
/// until a minute before it expires; `exp` is five minutes after `iat`, as Apple's libraries
/// do (Apple accepts at most 60).
///
/// [Generating JSON Web Tokens for API requests](https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests)
final class AppStoreServerAPITokenIssuer: Sendable {
    static let lifetime: TimeInterval = 5 * 60
    private let issuer: AppleAPITokenIssuer

    init(credentials: AppStoreServerAPICredentials, now: @escaping @Sendable () -> Date) {
        issuer = AppleAPITokenIssuer(keyId: credentials.keyId, issuerId: credentials.issuerId, bundleId: credentials.bundleId,
                                     privateKey: credentials.privateKey, lifetime: Self.lifetime, now: now)
    }

    /// The current token, signing a new one when the last is missing or about to expire.
    func token() throws(AppStoreServerAPIError) -> String {
        do {
            return try issuer.token()
        } catch {
            throw .tokenSigningFailed(error.description)
        }
    }

    /// Forgets the cached token, so the next request signs a new one.
    func discard() { issuer.discard() }
}
