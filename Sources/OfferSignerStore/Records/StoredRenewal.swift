import OfferSignerCore

/// A verified renewal info and the signed JWS it came from. It is stored under its
/// environment and `originalTransactionId`.
public struct StoredRenewal: Sendable, Hashable {
    public var renewal: SubscriptionRenewalState
    public var signedRenewalInfo: String

    public init(renewal: SubscriptionRenewalState, signedRenewalInfo: String) {
        self.renewal = renewal
        self.signedRenewalInfo = signedRenewalInfo
    }
}
