import Foundation

/// How a promotional offer created or re-priced at Apple is priced: a customer price per
/// territory (`prices`), one price equalized to other territories the way Apple equalizes it
/// (`equalizeFrom`), or, for a free trial, the territories it is offered in (`territories`).
/// Exactly one of them.
public struct PromotionalOfferPricing: Codable, Hashable, Sendable {
    public var prices: [TerritoryPrice]?
    public var equalizeFrom: EqualizedPrice?
    public var territories: [String]?

    public init(prices: [TerritoryPrice]? = nil, equalizeFrom: EqualizedPrice? = nil, territories: [String]? = nil) {
        self.prices = prices
        self.equalizeFrom = equalizeFrom
        self.territories = territories
    }

    /// A customer price in one territory, as Apple writes a price point's (`"4.99"`).
    public struct TerritoryPrice: Codable, Hashable, Sendable {
        public var territory: String
        public var customerPrice: String

        public init(territory: String, customerPrice: String) {
            self.territory = territory
            self.customerPrice = customerPrice
        }
    }

    /// A customer price in one territory, and the price points Apple equalizes it to in other
    /// territories (`territories` of them, or every one Apple has when nil).
    public struct EqualizedPrice: Codable, Hashable, Sendable {
        public var territory: String
        public var customerPrice: String
        public var territories: [String]?

        public init(territory: String, customerPrice: String, territories: [String]? = nil) {
            self.territory = territory
            self.customerPrice = customerPrice
            self.territories = territories
        }
    }

    /// The most territories one offer names (Apple has 175).
    public static let maxTerritories = 200

    /// Every reason the pricing cannot be sent for an offer in `offerMode`, naming the field.
    public func problems(offerMode: String) -> [String] {
        var problems: [String] = []
        let given = [prices != nil, equalizeFrom != nil, territories != nil].filter { $0 }.count
        if offerMode == "FREE_TRIAL" {
            if prices != nil || equalizeFrom != nil {
                problems.append("a FREE_TRIAL offer has no prices: give 'territories' (the territories it is offered in), not 'prices' or 'equalizeFrom'")
            }
            guard let territories else {
                problems.append("'territories' is required for a FREE_TRIAL offer")
                return problems
            }
            problems += Self.territoryProblems(territories, field: "territories", allowEmpty: false)
            return problems
        }
        if territories != nil {
            problems.append("'territories' is only for a FREE_TRIAL offer: give 'prices' or 'equalizeFrom' for \(offerMode)")
        }
        if given == 0 || (prices == nil && equalizeFrom == nil) {
            problems.append("give 'prices' (a customer price per territory) or 'equalizeFrom' (one price Apple equalizes to other territories)")
        } else if prices != nil && equalizeFrom != nil {
            problems.append("give 'prices' or 'equalizeFrom', not both")
        }
        if let prices {
            if prices.isEmpty { problems.append("'prices' must name at least one territory") }
            if prices.count > Self.maxTerritories { problems.append("'prices' may name at most \(Self.maxTerritories) territories") }
            for (index, price) in prices.enumerated() {
                problems += Self.priceProblems(price.territory, price.customerPrice, field: "prices[\(index)]")
            }
            let territories = prices.map(\.territory)
            if Set(territories).count != territories.count { problems.append("'prices' names a territory twice") }
        }
        if let equalizeFrom {
            problems += Self.priceProblems(equalizeFrom.territory, equalizeFrom.customerPrice, field: "equalizeFrom")
            if let territories = equalizeFrom.territories {
                problems += Self.territoryProblems(territories, field: "equalizeFrom.territories", allowEmpty: false)
            }
        }
        return problems
    }

    /// Whether `text` is a territory ID as Apple writes it: ISO 3166-1 alpha-3 in capitals.
    public static func isTerritory(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// Whether `text` is a customer price as Apple writes one: digits, at most three decimals, no sign or exponent.
    public static func isCustomerPrice(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits: (Substring) -> Bool = { $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        guard let whole = parts.first, (1...9).contains(whole.count), digits(whole), whole == "0" || !whole.hasPrefix("0") else {
            return false
        }
        guard parts.count == 2 else { return true }
        return (1...3).contains(parts[1].count) && digits(parts[1])
    }

    /// Whether two customer prices are the same amount (`"4.9"` and `"4.90"`, `"480"` and `"480.0"`).
    public static func samePrice(_ a: String, _ b: String) -> Bool {
        guard let x = Decimal(string: a, locale: Locale(identifier: "en_US_POSIX")),
              let y = Decimal(string: b, locale: Locale(identifier: "en_US_POSIX")) else { return a == b }
        return x == y
    }

    public static func priceProblems(_ territory: String, _ customerPrice: String, field: String) -> [String] {
        var problems: [String] = []
        if !isTerritory(territory) {
            problems.append("'\(field).territory' must be a territory as Apple names it, three capital letters (USA, FRA), not '\(territory.prefix(20))'")
        }
        if !isCustomerPrice(customerPrice) {
            problems.append("'\(field).customerPrice' must be a price as Apple writes it (\"4.99\", \"480\"), not '\(customerPrice.prefix(20))'")
        }
        return problems
    }

    public static func territoryProblems(_ territories: [String], field: String, allowEmpty: Bool) -> [String] {
        var problems: [String] = []
        if territories.isEmpty && !allowEmpty { problems.append("'\(field)' must name at least one territory") }
        if territories.count > maxTerritories { problems.append("'\(field)' may name at most \(maxTerritories) territories") }
        if let bad = territories.first(where: { !isTerritory($0) }) {
            problems.append("'\(field)' must hold territories as Apple names them, three capital letters (USA, FRA), not '\(bad.prefix(20))'")
        }
        if Set(territories).count != territories.count { problems.append("'\(field)' names a territory twice") }
        return problems
    }
}
