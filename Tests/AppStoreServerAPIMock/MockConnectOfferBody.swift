import Foundation
import OfferSignerCore

/// A promotional offer's create or update body as the mock App Store Connect reads it, checked
/// member by member against Apple's OpenAPI specification (App Store Connect API; the schemas
/// `SubscriptionPromotionalOfferCreateRequest`, `SubscriptionPromotionalOfferUpdateRequest` and
/// `SubscriptionPromotionalOfferPriceInlineCreate`): no member the schema lacks, every required
/// one present with its type and enum, each `relationships.prices.data` entry matched by exactly
/// one `included` price of the same local ID and the other way round.
public struct MockConnectOfferBody: Sendable {
    public struct Price: Sendable, Hashable {
        public var territory: String
        public var pricePointId: String?

        public init(territory: String, pricePointId: String? = nil) {
            self.territory = territory
            self.pricePointId = pricePointId
        }
    }

    /// Create only: the attributes and the subscription.
    public var name: String?
    public var offerCode: String?
    public var duration: String?
    public var offerMode: String?
    public var numberOfPeriods: Int?
    public var subscriptionId: String?
    /// Update only: the offer's ID.
    public var id: String?
    public var prices: [Price] = []

    static let durations: Set<String> = ["THREE_DAYS", "ONE_WEEK", "TWO_WEEKS", "ONE_MONTH", "TWO_MONTHS", "THREE_MONTHS", "SIX_MONTHS",
                                         "ONE_YEAR"]
    static let modes: Set<String> = ["PAY_AS_YOU_GO", "PAY_UP_FRONT", "FREE_TRIAL"]

    /// Reads a `SubscriptionPromotionalOfferCreateRequest`; the error is the detail of Apple's 400/409.
    public static func create(_ body: Data) -> Result<MockConnectOfferBody, BodyError> {
        Result { try read(body, create: true) }.mapError { $0 as? BodyError ?? BodyError("the body is not JSON") }
    }

    /// Reads a `SubscriptionPromotionalOfferUpdateRequest`.
    public static func update(_ body: Data) -> Result<MockConnectOfferBody, BodyError> {
        Result { try read(body, create: false) }.mapError { $0 as? BodyError ?? BodyError("the body is not JSON") }
    }

    public struct BodyError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    private static func read(_ body: Data, create: Bool) throws -> MockConnectOfferBody {
        guard case .dictionary(let root) = try JSONDecoder().decode(JSONValue.self, from: body) else {
            throw BodyError("the body is not a JSON object")
        }
        try only(root, ["data", "included"], "the document")
        let data = try object(root["data"], "data")
        var result = MockConnectOfferBody()
        if create {
            try only(data, ["type", "attributes", "relationships"], "data")
        } else {
            try only(data, ["type", "id", "relationships"], "data")
            result.id = try string(data["id"], "data.id")
        }
        guard try string(data["type"], "data.type") == "subscriptionPromotionalOffers" else {
            throw BodyError("data.type must be subscriptionPromotionalOffers")
        }
        var priceIds: [String] = []
        if create {
            let attributes = try object(data["attributes"], "data.attributes")
            try only(attributes, ["name", "offerCode", "duration", "offerMode", "numberOfPeriods"], "data.attributes")
            result.name = try string(attributes["name"], "data.attributes.name")
            result.offerCode = try string(attributes["offerCode"], "data.attributes.offerCode")
            result.duration = try string(attributes["duration"], "data.attributes.duration")
            result.offerMode = try string(attributes["offerMode"], "data.attributes.offerMode")
            guard case .int(let periods)? = attributes["numberOfPeriods"] else {
                throw BodyError("data.attributes.numberOfPeriods must be an integer")
            }
            result.numberOfPeriods = periods
            guard durations.contains(result.duration!) else { throw BodyError("data.attributes.duration '\(result.duration!)' is not a SubscriptionOfferDuration") }
            guard modes.contains(result.offerMode!) else { throw BodyError("data.attributes.offerMode '\(result.offerMode!)' is not a SubscriptionOfferMode") }
            let relationships = try object(data["relationships"], "data.relationships")
            try only(relationships, ["subscription", "prices"], "data.relationships")
            let subscription = try object(relationships["subscription"], "data.relationships.subscription")
            try only(subscription, ["data"], "data.relationships.subscription")
            result.subscriptionId = try identifier(subscription["data"], type: "subscriptions", "data.relationships.subscription.data")
            priceIds = try prices(relationships["prices"], required: true)
        } else if let relationships = data["relationships"] {
            let relationships = try object(relationships, "data.relationships")
            try only(relationships, ["prices"], "data.relationships")
            priceIds = try prices(relationships["prices"], required: false)
        }
        var included: [String: Price] = [:]
        if let list = root["included"] {
            guard case .array(let list) = list else { throw BodyError("included must be an array") }
            for (index, item) in list.enumerated() {
                let field = "included[\(index)]"
                let price = try object(item, field)
                try only(price, ["type", "id", "relationships"], field)
                guard try string(price["type"], "\(field).type") == "subscriptionPromotionalOfferPrices" else {
                    throw BodyError("\(field).type must be subscriptionPromotionalOfferPrices")
                }
                let id = try string(price["id"], "\(field).id")
                let relationships = try object(price["relationships"], "\(field).relationships")
                try only(relationships, ["territory", "subscriptionPricePoint"], "\(field).relationships")
                let territory = try object(relationships["territory"], "\(field).relationships.territory")
                try only(territory, ["data"], "\(field).relationships.territory")
                var parsed = Price(territory: try identifier(territory["data"], type: "territories", "\(field).relationships.territory.data"))
                if let point = relationships["subscriptionPricePoint"] {
                    let point = try object(point, "\(field).relationships.subscriptionPricePoint")
                    try only(point, ["data"], "\(field).relationships.subscriptionPricePoint")
                    parsed.pricePointId = try identifier(point["data"], type: "subscriptionPricePoints",
                                                         "\(field).relationships.subscriptionPricePoint.data")
                }
                guard included.updateValue(parsed, forKey: id) == nil else { throw BodyError("\(field).id '\(id)' is used twice") }
            }
        }
        guard Set(priceIds) == Set(included.keys), priceIds.count == included.count else {
            throw BodyError("relationships.prices.data and included name different prices")
        }
        result.prices = priceIds.map { included[$0]! }
        return result
    }

    private static func prices(_ value: JSONValue?, required: Bool) throws -> [String] {
        guard let value else {
            if required { throw BodyError("data.relationships.prices is required") }
            return []
        }
        let prices = try object(value, "data.relationships.prices")
        try only(prices, ["data"], "data.relationships.prices")
        guard case .array(let list)? = prices["data"] else { throw BodyError("data.relationships.prices.data must be an array") }
        let ids = try list.enumerated().map { index, item in
            try identifier(item, type: "subscriptionPromotionalOfferPrices", "data.relationships.prices.data[\(index)]")
        }
        guard Set(ids).count == ids.count else { throw BodyError("data.relationships.prices.data names a price twice") }
        return ids
    }

    private static func identifier(_ value: JSONValue?, type: String, _ field: String) throws -> String {
        let object = try object(value, field)
        try only(object, ["type", "id"], field)
        guard try string(object["type"], "\(field).type") == type else { throw BodyError("\(field).type must be \(type)") }
        return try string(object["id"], "\(field).id")
    }

    private static func object(_ value: JSONValue?, _ field: String) throws -> [String: JSONValue] {
        guard let value else { throw BodyError("\(field) is required") }
        guard case .dictionary(let object) = value else { throw BodyError("\(field) must be an object") }
        return object
    }

    private static func string(_ value: JSONValue?, _ field: String) throws -> String {
        guard let value else { throw BodyError("\(field) is required") }
        guard case .string(let text) = value else { throw BodyError("\(field) must be a string") }
        return text
    }

    private static func only(_ object: [String: JSONValue], _ allowed: Set<String>, _ field: String) throws {
        if let extra = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw BodyError("\(field) has '\(extra)', which the specification does not define there")
        }
    }
}
