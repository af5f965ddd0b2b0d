/// The offers of the customer's app with the service's verdict for each, best priority first
/// (`GET /v1/users/{userId}/offers`): what a paywall shows before asking for a signature.
public struct CustomerOffers: Sendable, Equatable, Decodable {
    /// One offer and whether the customer is eligible for it.
    public struct Offer: Sendable, Equatable, Decodable {
        /// The offer's identifier in App Store Connect.
        public let offerID: String
        /// The subscription products it applies to.
        public let productIDs: [String]
        /// Its priority (higher first).
        public let priority: Int
        /// Whether the customer is eligible now.
        public let eligible: Bool
        /// Why not, one per failed criterion; empty when eligible.
        public let reasons: [EligibilityReason]

        enum CodingKeys: String, CodingKey {
            case offerID = "offerId", productIDs = "productIds", priority, eligible, reasons
        }
    }

    /// The user ID asked about, as the service compares it (lowercased).
    public let userID: String
    /// Whose history decided.
    public let environment: AppStoreEnvironment
    /// The offers, best priority first.
    public let offers: [Offer]

    /// The offers the customer is eligible for, best first.
    public var eligibleOffers: [Offer] { offers.filter(\.eligible) }

    enum CodingKeys: String, CodingKey {
        case userID = "userId", environment, offers
    }
}
