import OfferSignerCore

/// What a caller asks the issuer for: whether one user gets the introductory offer of one
/// product, or of each product of a store page (SwiftUI's `subscriptionIntroductoryOffer` asks
/// per product as the view draws), each answer signed for StoreKit.
public struct IntroductoryOfferRequest: Sendable {
    /// The app; nil when exactly one app is configured.
    public var bundleId: String?
    /// The products, in the order the answers come back; distinct. One for a single answer.
    public var productIds: [String]
    /// Whether a product the app does not know (named by no verified transaction of the
    /// environment and no rule of the app) refuses the whole request (a store page), rather
    /// than being answered by Apple's default (a single product, as it always was).
    public var refusesUnknownProducts: Bool
    /// The app account token; the issuer lowercases it, as Apple does. Empty only with a
    /// verified `proof.signedTransaction` (a customer without an app account token).
    public var userId: String
    /// Any transaction of the customer (their `appTransactionId` is accepted): the JWS's
    /// `transactionId`, which Apple requires.
    public var transactionId: String
    /// The App Store environment whose history decides (one this service accepts).
    public var environment: AppStoreEnvironment
    /// Who asked, for the log record: the API key's name.
    public var requestedBy: String
    /// The request ID the log record keeps.
    public var requestId: String
    /// The customer's Apple-signed transaction and app transaction, as for signing: a verified
    /// transaction binds the answer to its subscription and lets an empty `userId` be signed.
    public var proof: CustomerProof
    /// How far the caller's word is believed: a key shipped in apps must send proof.
    public var callerTrust: CallerTrust
}

extension IntroductoryOfferRequest {
    /// One product's answer.
    public init(bundleId: String?, productId: String, userId: String, transactionId: String,
                environment: AppStoreEnvironment = .production, requestedBy: String, requestId: String,
                proof: CustomerProof = CustomerProof(), callerTrust: CallerTrust = .backend) {
        self.init(bundleId: bundleId, productIds: [productId], refusesUnknownProducts: false, userId: userId,
                  transactionId: transactionId, environment: environment, requestedBy: requestedBy, requestId: requestId,
                  proof: proof, callerTrust: callerTrust)
    }

    /// A store page's answers: every product must be one the app knows.
    public init(bundleId: String?, productIds: [String], userId: String, transactionId: String,
                environment: AppStoreEnvironment = .production, requestedBy: String, requestId: String,
                proof: CustomerProof = CustomerProof(), callerTrust: CallerTrust = .backend) {
        self.init(bundleId: bundleId, productIds: productIds, refusesUnknownProducts: true, userId: userId,
                  transactionId: transactionId, environment: environment, requestedBy: requestedBy, requestId: requestId,
                  proof: proof, callerTrust: callerTrust)
    }
}

/// An introductory-offer eligibility decided, signed and durably logged.
public struct IssuedIntroductoryOffer: Sendable, Hashable {
    public let issued: IssuedIntroductoryOfferEligibility
    /// Why not, when the offer is withheld (one reason per failed criterion); empty when allowed.
    public let decision: EligibilityDecision
    /// The introductory-offer rule that decided; nil when Apple's default did.
    public let ruleId: String?
}
