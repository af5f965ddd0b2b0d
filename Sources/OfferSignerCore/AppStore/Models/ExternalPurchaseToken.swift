/// An external purchase token (`EXTERNAL_PURCHASE_TOKEN` notifications).
///
/// [externalPurchaseToken](https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken)
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// The token's identifier; sandbox tokens start with `SANDBOX`.
    public var externalPurchaseId: String?
    /// When the token was created, in milliseconds since 1970.
    public var tokenCreationDate: Int64?
    /// The app's App Store identifier.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?

    /// The environment Apple's verifier infers: sandbox tokens carry an identifier starting
    /// with `SANDBOX`, all others are production.
    public var environment: AppStoreEnvironment {
        externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
    }
}
