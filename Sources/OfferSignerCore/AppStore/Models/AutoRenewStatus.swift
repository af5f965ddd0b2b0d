/// Whether an auto-renewable subscription renews at the end of its period.
///
/// [autoRenewStatus](https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus)
public enum AutoRenewStatus: Int32, Codable, Hashable, Sendable, CaseIterable {
    case off = 0
    case on = 1
}
