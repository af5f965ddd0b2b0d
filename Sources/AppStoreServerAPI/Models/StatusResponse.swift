import OfferSignerCore

/// The status of every auto-renewable subscription of a customer in the app.
///
/// [StatusResponse](https://developer.apple.com/documentation/appstoreserverapi/statusresponse)
public struct StatusResponse: Decodable, Hashable, Sendable {
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String?
    /// The app's bundle ID.
    public var bundleId: String?
    /// The app's App Store ID (absent in the sandbox).
    public var appAppleId: Int64?
    /// One item per subscription group.
    public var data: [SubscriptionGroupIdentifierItem]

    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case bundleId, appAppleId, data
    }
}

/// The latest transactions of one subscription group.
///
/// [SubscriptionGroupIdentifierItem](https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifieritem)
public struct SubscriptionGroupIdentifierItem: Decodable, Hashable, Sendable {
    /// The subscription group.
    public var subscriptionGroupIdentifier: String
    /// The most recent transaction of each subscription the customer has in the group.
    public var lastTransactions: [LastTransactionsItem]
}

/// A subscription's status with its latest signed transaction and renewal information.
///
/// [lastTransactionsItem](https://developer.apple.com/documentation/appstoreserverapi/lasttransactionsitem)
public struct LastTransactionsItem: Decodable, Hashable, Sendable {
    /// The status as Apple sent it; see ``status``.
    public var rawStatus: Int32
    /// The subscription's original transaction ID.
    public var originalTransactionId: String
    /// The latest transaction (JWS), to verify before use.
    public var signedTransactionInfo: String
    /// The renewal information (JWS), to verify before use.
    public var signedRenewalInfo: String

    /// The status, or nil for a value this code does not know yet.
    public var status: SubscriptionStatus? { SubscriptionStatus(rawValue: rawStatus) }

    enum CodingKeys: String, CodingKey {
        case rawStatus = "status"
        case originalTransactionId, signedTransactionInfo, signedRenewalInfo
    }
}
