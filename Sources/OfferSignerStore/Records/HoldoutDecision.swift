import OfferSignerCore

/// A user held out of an offer, at the first request that found them eligible.
public struct HoldoutDecision: Sendable, Hashable {
    public var bundleId: String
    public var offerId: String
    /// The app account token, or `transaction:` and the proven original transaction ID.
    public var userKey: String
    public var environment: AppStoreEnvironment
    /// ms since 1970.
    public var decidedAt: Int64
    public var percent: Int

    public init(bundleId: String, offerId: String, userKey: String, environment: AppStoreEnvironment, decidedAt: Int64, percent: Int) {
        self.bundleId = bundleId
        self.offerId = offerId
        self.userKey = userKey
        self.environment = environment
        self.decidedAt = decidedAt
        self.percent = percent
    }
}
