import Foundation

/// A promotional offer to create at Apple for one subscription: StoreKit's identifier
/// (`offerCode`, an offer rule's `offerId`), a reference name, what it gives (`duration`,
/// `offerMode`, `numberOfPeriods`) and its pricing.
public struct PromotionalOfferDraft: Codable, Hashable, Sendable {
    /// The app; nil: the only configured app.
    public var bundleId: String?
    public var productId: String
    public var offerCode: String
    public var name: String
    public var duration: String
    public var offerMode: String
    public var numberOfPeriods: Int
    public var prices: [PromotionalOfferPricing.TerritoryPrice]?
    public var equalizeFrom: PromotionalOfferPricing.EqualizedPrice?
    public var territories: [String]?

    public init(bundleId: String?, productId: String, offerCode: String, name: String, duration: String, offerMode: String,
                numberOfPeriods: Int, pricing: PromotionalOfferPricing) {
        self.bundleId = bundleId
        self.productId = productId
        self.offerCode = offerCode
        self.name = name
        self.duration = duration
        self.offerMode = offerMode
        self.numberOfPeriods = numberOfPeriods
        prices = pricing.prices
        equalizeFrom = pricing.equalizeFrom
        territories = pricing.territories
    }

    /// The pricing fields together.
    public var pricing: PromotionalOfferPricing {
        PromotionalOfferPricing(prices: prices, equalizeFrom: equalizeFrom, territories: territories)
    }

    /// Apple's `SubscriptionOfferDuration`.
    public static let durations = ["THREE_DAYS", "ONE_WEEK", "TWO_WEEKS", "ONE_MONTH", "TWO_MONTHS", "THREE_MONTHS", "SIX_MONTHS", "ONE_YEAR"]
    /// Apple's `SubscriptionOfferMode`.
    public static let offerModes = ["PAY_AS_YOU_GO", "PAY_UP_FRONT", "FREE_TRIAL"]
    /// Apple allows at most this many promotional offers per subscription.
    public static let maxOffersPerSubscription = 10
    /// The longest reference name the service sends: its own bound on free text. Apple publishes
    /// no limit for a promotional offer's reference name (the 64 characters of App Store Connect
    /// Help are an in-app purchase's), so a longer name Apple refuses comes back as its refusal.
    public static let maxNameLength = 1_000
    /// What an `offerCode` may hold: what an offer rule's `offerId` may hold (the service's own
    /// rule, ``Identifier/isValidRuleId(_:)``: it names the rule and a URL path segment). Apple
    /// documents the identifier only as alphanumeric (StoreKit's `Product.SubscriptionOffer.id`)
    /// and its API as a plain string, so nothing stricter is assumed here.
    public static let offerCodeRequirement = Identifier.ruleIdRequirement

    /// Whether `code` meets ``offerCodeRequirement``.
    public static func isOfferCode(_ code: String) -> Bool {
        Identifier.isValidRuleId(code)
    }

    /// Every reason the draft cannot be sent to Apple, naming the field; empty when it can.
    public func problems() -> [String] {
        var problems: [String] = []
        if !Identifier.isValid(productId) { problems.append("'productId' must be 1–256 visible ASCII characters") }
        if !Self.isOfferCode(offerCode) { problems.append("'offerCode' must be \(Self.offerCodeRequirement)") }
        if name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > Self.maxNameLength {
            problems.append("'name' must be 1–\(Self.maxNameLength) characters, not only spaces")
        } else if let scalar = FreeText.refusedCharacter(in: name) {
            problems.append("'name' may not hold \(FreeText.name(scalar))")
        }
        if !Self.durations.contains(duration) { problems.append("'duration' must be one of \(Self.durations.joined(separator: ", "))") }
        if !Self.offerModes.contains(offerMode) {
            problems.append("'offerMode' must be one of \(Self.offerModes.joined(separator: ", "))")
            return problems
        }
        // Confirmed in Apple's documentation: "The period count is 1 for offers with payment modes
        // freeTrial and payUpFront" (StoreKit, Product.SubscriptionOffer.periodCount).
        if !(1...12).contains(numberOfPeriods) {
            problems.append("'numberOfPeriods' must be 1 to 12")
        } else if offerMode != "PAY_AS_YOU_GO" && numberOfPeriods != 1 {
            problems.append("'numberOfPeriods' must be 1 for a \(offerMode) offer (its duration is the whole offer)")
        }
        problems += pricing.problems(offerMode: offerMode)
        return problems
    }
}
