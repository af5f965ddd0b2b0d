/// The app metadata and signed transaction / renewal information of a notification
/// (Apple's `data`).
///
/// [data](https://developer.apple.com/documentation/appstoreservernotifications/data)
public struct NotificationData: Codable, Hashable, Sendable {
    /// The app's App Store identifier; Apple omits it in the sandbox.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's build version.
    public var bundleVersion: String?
    /// The environment as Apple sent it, e.g. `"Sandbox"`; see ``environment``.
    public var rawEnvironment: String?
    /// The transaction, a JWS signed by the App Store.
    public var signedTransactionInfo: String?
    /// The subscription renewal information, a JWS signed by the App Store.
    public var signedRenewalInfo: String?
    /// The subscription status as Apple sent it; see ``status``.
    public var rawStatus: Int32?
    /// Why the customer asked for a refund (`CONSUMPTION_REQUEST` notifications).
    public var consumptionRequestReason: String?

    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }
    /// The subscription status, or nil when absent or not known yet.
    public var status: SubscriptionStatus? { rawStatus.flatMap(SubscriptionStatus.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case rawStatus = "status"
        case appAppleId, bundleId, bundleVersion, signedTransactionInfo, signedRenewalInfo
        case consumptionRequestReason
    }
}
