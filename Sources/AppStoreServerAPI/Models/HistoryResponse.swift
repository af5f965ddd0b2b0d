import OfferSignerCore

/// One page of a customer's transaction history.
///
/// [HistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/historyresponse)
public struct HistoryResponse: Decodable, Hashable, Sendable {
    /// The token that asks for the next page.
    public var revision: String
    /// Whether more pages follow.
    public var hasMore: Bool
    /// The app's bundle ID.
    public var bundleId: String?
    /// The app's App Store ID (absent in the sandbox).
    public var appAppleId: Int64?
    /// The environment as Apple sent it; see ``environment``.
    public var rawEnvironment: String?
    /// Up to 20 signed transactions (JWS), to verify before use.
    public var signedTransactions: [String]

    /// The environment, or nil when absent or not known yet.
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case revision, hasMore, bundleId, appAppleId, signedTransactions
        case rawEnvironment = "environment"
    }
}
