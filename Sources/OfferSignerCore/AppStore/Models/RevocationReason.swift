/// Why the App Store refunded a transaction or revoked it from Family Sharing.
///
/// [revocationReason](https://developer.apple.com/documentation/appstoreserverapi/revocationreason)
public enum RevocationReason: Int32, Codable, Hashable, Sendable, CaseIterable {
    case refundedForOtherReason = 0
    case refundedDueToIssue = 1
}
