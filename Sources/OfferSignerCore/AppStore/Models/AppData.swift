/// The app a notification without a transaction is about, and its signed app transaction
/// (Apple's `appData`, in `RESCIND_CONSENT` notifications).
///
/// [appData](https://developer.apple.com/documentation/appstoreservernotifications/appdata)
public struct AppData: Codable, Hashable, Sendable {
    /// The app's App Store identifier.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String?
    /// The app transaction (the customer's download of the app), signed by the App Store.
    public var signedAppTransactionInfo: String?

    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case appAppleId, bundleId, signedAppTransactionInfo
    }
}
