/// The type of an in-app purchase (Apple's `Type`).
///
/// [type](https://developer.apple.com/documentation/appstoreserverapi/type)
public enum ProductType: String, Codable, Hashable, Sendable, CaseIterable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}
