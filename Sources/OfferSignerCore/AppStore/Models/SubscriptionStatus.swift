/// The status of an auto-renewable subscription (Apple's `status`).
///
/// [status](https://developer.apple.com/documentation/appstoreservernotifications/status)
public enum SubscriptionStatus: Int32, Codable, Hashable, Sendable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    case revoked = 5
}
