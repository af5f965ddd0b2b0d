import Foundation

/// The offer a user took last, of any type but introductory: what the wait between offers
/// counts from, shown with the facts.
public struct LastOffer: Codable, Hashable, Sendable {
    /// Apple's `offerType`: 2 promotional, 3 offer code, 4 win-back, 5 App Store retention
    /// offer, or a type Apple adds later.
    public var offerType: Int
    /// Apple's `offerIdentifier`, when it gave one.
    public var offerIdentifier: String?
    /// The start of the redemption: its first period's purchase date.
    public var date: Date

    /// The kind of offer in words ("an offer code"), for refusal messages.
    public static func kind(of offerType: Int) -> String {
        switch Int32(exactly: offerType).flatMap(OfferType.init(rawValue:)) {
        case .introductoryOffer: "an introductory offer"
        case .promotionalOffer: "a promotional offer"
        case .subscriptionOfferCode: "an offer code"
        case .winBackOffer: "a win-back offer"
        case .retentionOffer: "an App Store retention offer"
        case nil: "an offer of type \(offerType)"
        }
    }

    enum CodingKeys: String, CodingKey {
        case offerType, offerIdentifier, date
    }

    /// Encodes every field, an absent identifier as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(offerType, forKey: .offerType)
        try container.encode(offerIdentifier, forKey: .offerIdentifier)
        try container.encode(date, forKey: .date)
    }
}
