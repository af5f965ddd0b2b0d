/// One verified thing to store.
public enum HistoryItem: Sendable, Hashable {
    /// A notification as received, with the transaction and renewal info it carried.
    case notification(StoredNotification, StoredTransaction?, StoredRenewal?)
    case transaction(StoredTransaction)
    case renewal(StoredRenewal)
}
