/// Whether a transaction is a customer's purchase or a system-initiated renewal.
///
/// [transactionReason](https://developer.apple.com/documentation/appstoreserverapi/transactionreason)
public enum TransactionReason: String, Codable, Hashable, Sendable, CaseIterable {
    case purchase = "PURCHASE"
    case renewal = "RENEWAL"
}
