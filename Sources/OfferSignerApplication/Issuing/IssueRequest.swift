import OfferSignerCore

/// What a caller asks `OfferIssuer` for: a signature of one offer on one product for one user.
public struct IssueRequest: Sendable {
    /// The app; nil when exactly one app is configured.
    public var bundleId: String?
    public var productId: String
    public var offerId: String
    /// The app account token; the issuer lowercases it, as Apple does. Empty only with a
    /// verified `proof.signedTransaction` (the customer set no token: Apple's payload then
    /// carries an empty one).
    public var userId: String
    public var format: PromotionalOfferFormat
    /// For the JWS format: the transaction the offer is bound to. With a verified
    /// `proof.signedTransaction` the proven `originalTransactionId` is bound instead, and this
    /// must be that transaction's ID or its original's, if given.
    public var transactionId: String?
    /// The App Store environment whose history decides eligibility: Production for apps from
    /// the App Store, Sandbox for TestFlight and development builds. It must be one this
    /// service accepts signed data from; the other's history never counts.
    public var environment: AppStoreEnvironment
    /// Who asked, for the log record: the API key's name (or the caller's name for offline uses).
    public var requestedBy: String
    /// The request ID the log record keeps.
    public var requestId: String
    /// The customer's Apple-signed transaction and app transaction, when the caller sent them.
    /// A verified transaction binds the signature to its subscription and lets an empty
    /// `userId` (a customer without an app account token) be signed.
    public var proof: CustomerProof
    /// How far the caller's word is believed: a key shipped in apps must send proof.
    public var callerTrust: CallerTrust
    /// Who asks: an API caller, or the App Store's retention request (made only by
    /// ``init(retentionOfferFor:productId:offerId:userId:originalTransactionId:environment:requestIdentifier:)``,
    /// which binds the offer to the subscription).
    public private(set) var source: SignatureSource = .api
    /// The subscription (`originalTransactionId`) the App Store itself named in a signed
    /// Retention Messaging request: proven as a verified `proof.signedTransaction` proves one,
    /// so its history counts and it is bound even when the customer set no app account token.
    public private(set) var appStoreSubscription: String?

    public init(bundleId: String?, productId: String, offerId: String, userId: String, format: PromotionalOfferFormat,
                transactionId: String? = nil, environment: AppStoreEnvironment = .production, requestedBy: String,
                requestId: String, proof: CustomerProof = CustomerProof(), callerTrust: CallerTrust = .backend) {
        self.bundleId = bundleId
        self.productId = productId
        self.offerId = offerId
        self.userId = userId
        self.format = format
        self.transactionId = transactionId
        self.environment = environment
        self.requestedBy = requestedBy
        self.requestId = requestId
        self.proof = proof
        self.callerTrust = callerTrust
    }

    /// A retention offer: a JWS (Apple's Retention Messaging takes only
    /// `promotionalOfferSignatureV2`) whose `transactionId` is the subscription's
    /// `originalTransactionId`, as Apple requires, logged with source `retention` under the App
    /// Store's `requestIdentifier`. `userId` is the subscription's app account token, or empty
    /// when its transactions carry none (the subscription's own history then decides, and the
    /// quota counts per subscription).
    public init(retentionOfferFor bundleId: String, productId: String, offerId: String, userId: String,
                originalTransactionId: String, environment: AppStoreEnvironment, requestIdentifier: String) {
        self.init(bundleId: bundleId, productId: productId, offerId: offerId, userId: userId, format: .jws,
                  transactionId: originalTransactionId, environment: environment, requestedBy: Self.appStoreCaller,
                  requestId: requestIdentifier)
        source = .retention
        appStoreSubscription = originalTransactionId
    }

    /// The name the log keeps as the requester of retention offers (no API key asks for them).
    public static let appStoreCaller = "app-store"
}
