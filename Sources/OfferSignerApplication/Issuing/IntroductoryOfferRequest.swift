import OfferSignerCore

/// What a caller asks `IntroductoryOfferIssuer` for: whether one user gets a product's
/// introductory offer, signed for StoreKit.
public struct IntroductoryOfferRequest: Sendable {
    /// The app; nil when exactly one app is configured.
    public var bundleId: String?
    public var productId: String
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

    public init(bundleId: String?, productId: String, userId: String, transactionId: String,
                environment: AppStoreEnvironment = .production, requestedBy: String, requestId: String,
                proof: CustomerProof = CustomerProof(), callerTrust: CallerTrust = .backend) {
        self.bundleId = bundleId
        self.productId = productId
        self.userId = userId
        self.transactionId = transactionId
        self.environment = environment
        self.requestedBy = requestedBy
        self.requestId = requestId
        self.proof = proof
        self.callerTrust = callerTrust
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

/// What a caller asks for a store page: whether one user gets the introductory offer of each
/// of several products of one app (SwiftUI's `subscriptionIntroductoryOffer` asks per
/// product as the view draws), each answer signed for StoreKit.
public struct IntroductoryOfferPageRequest: Sendable {
    /// The app; nil when exactly one app is configured.
    public var bundleId: String?
    /// The products, in the order the answers come back; distinct.
    public var productIds: [String]
    /// The app account token, as for a single product (``IntroductoryOfferRequest/userId``).
    public var userId: String
    /// Any transaction of the customer: every JWS's `transactionId`.
    public var transactionId: String
    public var environment: AppStoreEnvironment
    public var requestedBy: String
    public var requestId: String
    public var proof: CustomerProof
    public var callerTrust: CallerTrust

    public init(bundleId: String?, productIds: [String], userId: String, transactionId: String,
                environment: AppStoreEnvironment = .production, requestedBy: String, requestId: String,
                proof: CustomerProof = CustomerProof(), callerTrust: CallerTrust = .backend) {
        self.bundleId = bundleId
        self.productIds = productIds
        self.userId = userId
        self.transactionId = transactionId
        self.environment = environment
        self.requestedBy = requestedBy
        self.requestId = requestId
        self.proof = proof
        self.callerTrust = callerTrust
    }
}
