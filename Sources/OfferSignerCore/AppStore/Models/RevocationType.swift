/// What kind of refund or revocation applies to a revoked transaction.
///
/// [revocationType](https://developer.apple.com/documentation/appstoreserverapi/revocationtype)
public enum RevocationType: String, Codable, Hashable, Sendable, CaseIterable {
    /// The App Store refunded the whole transaction.
    case refundFull = "REFUND_FULL"
    /// The App Store refunded part of the transaction; see `revocationPercentage`.
    case refundProrated = "REFUND_PRORATED"
    /// The purchaser stopped sharing, or the customer left the family group.
    case familyRevoke = "FAMILY_REVOKE"
}
