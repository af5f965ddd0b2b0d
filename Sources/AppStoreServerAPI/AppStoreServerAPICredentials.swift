import OfferSignerCore

/// What authenticates requests for one app: its In-App Purchase key (the `.p8` that also signs
/// promotional offers), that key's ID, the team's issuer ID, and the app's bundle ID.
public struct AppStoreServerAPICredentials: Sendable {
    /// The key ID from App Store Connect (the JWT header's `kid`).
    public var keyId: String
    /// The issuer ID from App Store Connect's Keys page (the JWT's `iss`).
    public var issuerId: String
    /// The app's bundle ID (the JWT's `bid`); every request is about this app.
    public var bundleId: String
    /// The In-App Purchase private key: a `.p8` file's or a hardware module's.
    public var privateKey: any P256SigningKey

    public init(keyId: String, issuerId: String, bundleId: String, privateKey: any P256SigningKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
        self.privateKey = privateKey
    }
}
