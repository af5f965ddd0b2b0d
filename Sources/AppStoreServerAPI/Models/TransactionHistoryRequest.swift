import Foundation
import OfferSignerCore

/// The filters and order of a Get Transaction History request; the same on every page.
///
/// [Get Transaction History](https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history)
public struct TransactionHistoryRequest: Hashable, Sendable {
    /// The product types Apple's `productType` query parameter takes.
    public enum ProductType: String, Hashable, Sendable, CaseIterable {
        case autoRenewable = "AUTO_RENEWABLE"
        case nonRenewable = "NON_RENEWABLE"
        case consumable = "CONSUMABLE"
        case nonConsumable = "NON_CONSUMABLE"
    }

    /// The order of transactions by modification date.
    public enum Order: String, Hashable, Sendable, CaseIterable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
    }

    /// Only transactions from this date on.
    public var startDate: Date?
    /// Only transactions before this date.
    public var endDate: Date?
    /// Only these products.
    public var productIds: [String]
    /// Only these product types.
    public var productTypes: [ProductType]
    /// The order; Apple's default is ascending.
    public var sort: Order?
    /// Only these subscription groups.
    public var subscriptionGroupIdentifiers: [String]
    /// Only purchased, or only family-shared, transactions.
    public var inAppOwnershipType: InAppOwnershipType?
    /// Only revoked (true) or only unrevoked (false) transactions.
    public var revoked: Bool?

    public init(startDate: Date? = nil, endDate: Date? = nil, productIds: [String] = [], productTypes: [ProductType] = [],
                sort: Order? = nil, subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: InAppOwnershipType? = nil,
                revoked: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.productIds = productIds
        self.productTypes = productTypes
        self.sort = sort
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query parameters, in a fixed order (repeated parameters for lists, dates in milliseconds).
    var queryItems: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        if let startDate { items.append(("startDate", String(startDate.milliseconds))) }
        if let endDate { items.append(("endDate", String(endDate.milliseconds))) }
        items += productIds.map { ("productId", $0) }
        items += productTypes.map { ("productType", $0.rawValue) }
        if let sort { items.append(("sort", sort.rawValue)) }
        items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType.rawValue)) }
        if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
        return items
    }
}
