import Foundation

/// An app's products and offers as App Store Connect has them, read by a complete sync: its
/// subscription groups, and each auto-renewable subscription with its promotional,
/// introductory and win-back offers and offer codes.
public struct AppStoreCatalog: Codable, Hashable, Sendable {
    /// The app's Apple ID (App Store Connect's `apps` resource ID).
    public var appAppleId: String
    public var subscriptionGroups: [CatalogGroup]
    public var subscriptions: [CatalogSubscription]

    public init(appAppleId: String, subscriptionGroups: [CatalogGroup], subscriptions: [CatalogSubscription]) {
        self.appAppleId = appAppleId
        self.subscriptionGroups = subscriptionGroups
        self.subscriptions = subscriptions
    }

    /// The subscription whose product ID is `productId`.
    public func subscription(productId: String) -> CatalogSubscription? {
        subscriptions.first { $0.productId == productId }
    }

    /// Promotional offers of every subscription.
    public var promotionalOfferCount: Int { subscriptions.reduce(0) { $0 + $1.promotionalOffers.count } }
}

/// A subscription group: its ID is the `subscriptionGroupIdentifier` of the group's transactions.
public struct CatalogGroup: Codable, Hashable, Sendable {
    public var id: String
    public var referenceName: String

    public init(id: String, referenceName: String) {
        self.id = id
        self.referenceName = referenceName
    }
}
