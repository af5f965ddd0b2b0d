import OfferSignerCore

/// One subscription: its app, environment and original transaction.
public struct SubscriptionRef: Sendable, Hashable {
    public var bundleId: String
    public var environment: AppStoreEnvironment
    public var originalTransactionId: String
}
