import Foundation

/// The JSON:API bodies that create a subscription's promotional offer and replace its prices,
/// as Apple's OpenAPI specification defines them (`SubscriptionPromotionalOfferCreateRequest`,
/// `SubscriptionPromotionalOfferUpdateRequest`, each price a
/// `SubscriptionPromotionalOfferPriceInlineCreate` in `included`, named from
/// `relationships.prices.data` by a local ID `${price-N}`). Written with sorted keys, so the same
/// offer is always the same bytes.
public enum PromotionalOfferRequestBody {
    /// One price of the offer: a territory and, except in a free trial, the price point it costs.
    public struct Price: Sendable, Hashable {
        /// ISO 3166-1 alpha-3, Apple's `territories` ID.
        public var territory: String
        /// A `subscriptionPricePoints` ID of the subscription in that territory; nil in a free trial.
        public var pricePointId: String?

        public init(territory: String, pricePointId: String?) {
            self.territory = territory
            self.pricePointId = pricePointId
        }
    }

    /// `POST /v1/subscriptionPromotionalOffers`.
    public static func create(subscriptionId: String, name: String, offerCode: String, duration: String, offerMode: String,
                              numberOfPeriods: Int, prices: [Price]) -> [UInt8] {
        encode(CreateRequest(data: .init(
            type: "subscriptionPromotionalOffers",
            attributes: .init(name: name, offerCode: offerCode, duration: duration, offerMode: offerMode, numberOfPeriods: numberOfPeriods),
            relationships: .init(subscription: .init(data: .init(type: "subscriptions", id: subscriptionId)),
                                 prices: .init(data: localIDs(prices.count))),
        ), included: inline(prices)))
    }

    /// `PATCH /v1/subscriptionPromotionalOffers/{id}`: the offer's prices replaced by `prices`.
    public static func updatePrices(offerId: String, prices: [Price]) -> [UInt8] {
        encode(UpdateRequest(data: .init(type: "subscriptionPromotionalOffers", id: offerId,
                                         relationships: .init(prices: .init(data: localIDs(prices.count)))),
                             included: inline(prices)))
    }

    // MARK: Shapes

    struct Identifier: Encodable {
        let type: String
        let id: String
    }

    struct ToOne: Encodable { let data: Identifier }
    struct ToMany: Encodable { let data: [Identifier] }

    struct CreateRequest: Encodable {
        struct Data: Encodable {
            struct Attributes: Encodable {
                let name: String
                let offerCode: String
                let duration: String
                let offerMode: String
                let numberOfPeriods: Int
            }
            struct Relationships: Encodable {
                let subscription: ToOne
                let prices: ToMany
            }
            let type: String
            let attributes: Attributes
            let relationships: Relationships
        }
        let data: Data
        let included: [InlinePrice]
    }

    struct UpdateRequest: Encodable {
        struct Data: Encodable {
            struct Relationships: Encodable { let prices: ToMany }
            let type: String
            let id: String
            let relationships: Relationships
        }
        let data: Data
        let included: [InlinePrice]
    }

    struct InlinePrice: Encodable {
        struct Relationships: Encodable {
            let territory: ToOne
            let subscriptionPricePoint: ToOne?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(territory, forKey: .territory)
                try container.encodeIfPresent(subscriptionPricePoint, forKey: .subscriptionPricePoint)
            }

            enum CodingKeys: String, CodingKey { case territory, subscriptionPricePoint }
        }
        let type: String
        let id: String
        let relationships: Relationships
    }

    static func localID(_ index: Int) -> String { "${price-\(index)}" }

    static func localIDs(_ count: Int) -> [Identifier] {
        (0..<count).map { Identifier(type: "subscriptionPromotionalOfferPrices", id: localID($0)) }
    }

    static func inline(_ prices: [Price]) -> [InlinePrice] {
        prices.enumerated().map { index, price in
            InlinePrice(type: "subscriptionPromotionalOfferPrices", id: localID(index), relationships: .init(
                territory: .init(data: .init(type: "territories", id: price.territory)),
                subscriptionPricePoint: price.pricePointId.map { .init(data: .init(type: "subscriptionPricePoints", id: $0)) }))
        }
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The shapes hold only strings and integers: encoding cannot fail.
        return Array((try? encoder.encode(value)) ?? Data())
    }
}
