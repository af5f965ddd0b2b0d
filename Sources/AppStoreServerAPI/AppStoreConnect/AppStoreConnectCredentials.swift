import OfferSignerCore

/// What authenticates requests to the App Store Connect API: a Team API key (App Store Connect
/// → Users and Access → Integrations → Team Keys), its key ID and the team's issuer ID. Not
/// the In-App Purchase key that signs offers: App Store Connect refuses that one.
public struct AppStoreConnectCredentials: Sendable {
    /// The Team key's ID (the JWT header's `kid`).
    public var keyId: String
    /// The issuer ID shown above the Team keys (the JWT's `iss`).
    public var issuerId: String
    /// The Team key: a `.p8` file's or a hardware module's.
    public var privateKey: any P256SigningKey

    public init(keyId: String, issuerId: String, privateKey: any P256SigningKey) {
        self.keyId = keyId
        self.issuerId = issuerId
        self.privateKey = privateKey
    }
}
