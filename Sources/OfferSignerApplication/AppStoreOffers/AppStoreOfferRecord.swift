import AppStoreServerAPI
import Foundation
import OfferSignerCore

/// What the service did to a promotional offer at App Store Connect, kept in the rule store's
/// log like a rule (kind `appstore-promotional-offer`, one record per product and offer code),
/// so every step is recorded with who and when (`managed_rule_changes`): the request about to
/// be sent (state `sending`, `repricing`, `deleting`, written before Apple is asked, so a crash
/// between the two leaves a trace a retry reconciles), then Apple's answer (`created`,
/// `repriced`, `deleted`, or `failed` with Apple's `errors[]`).
///
/// `enabled` is whether the offer is at Apple as far as the service knows.
public struct AppStoreOfferRecord: ManagedRule {
    public static let kind = "appstore-promotional-offer"

    /// `<productId>:<offerCode>` (an offer code holds no `:`).
    public var ruleId: String
    public var bundleId: String
    public var enabled: Bool
    public var priority: Int { 0 }
    public var productId: String
    public var offerCode: String
    /// App Store Connect's ID of the subscription, and of the offer once Apple gave one.
    public var subscriptionAppleId: String
    public var offerAppleId: String?
    /// The offer's terms (as sent, or as Apple has them).
    public var name: String?
    public var duration: String?
    public var offerMode: String?
    public var numberOfPeriods: Int?
    /// Its price per territory with the price point each was resolved to (none in a free trial's).
    public var prices: [CatalogPrice]
    public var state: State
    /// The request sent (or about to be): method, path and the JSON:API body.
    public var request: SentRequest?
    /// Apple's answer: its HTTP status (nil when none came) and `errors[]`.
    public var appleStatus: Int?
    public var appleErrors: [AppStoreConnectErrorItem]?

    /// Where the offer stands.
    public enum State: String, Codable, Hashable, Sendable {
        case sending, created, repricing, repriced, deleting, deleted, failed
    }

    /// A request to App Store Connect, as sent.
    public struct SentRequest: Codable, Hashable, Sendable {
        public var method: String
        public var path: String
        public var body: JSONValue?

        public init(method: String, path: String, body: [UInt8]?) {
            self.method = method
            self.path = path
            self.body = body.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0)) }
        }
    }

    public init(bundleId: String, productId: String, offerCode: String, subscriptionAppleId: String, state: State, enabled: Bool) {
        ruleId = Self.ruleId(productId: productId, offerCode: offerCode)
        self.bundleId = bundleId
        self.enabled = enabled
        self.productId = productId
        self.offerCode = offerCode
        self.subscriptionAppleId = subscriptionAppleId
        prices = []
        self.state = state
    }

    /// The record ID of `offerCode` on `productId`.
    public static func ruleId(productId: String, offerCode: String) -> String { "\(productId):\(offerCode)" }

    /// Checked where each is made; nothing more to say here.
    public func validationProblems() -> [String] { [] }
}
