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
    public var format: SignatureFormat
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

    public init(bundleId: String?, productId: String, offerId: String, userId: String, format: SignatureFormat,
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
}
