import OfferSignerCore

/// What a caller asks `OfferIssuer` for: a signature of one offer on one product for one user.
public struct IssueRequest: Sendable {
    /// The app; nil when exactly one app is configured.
    public var bundleId: String?
    public var productId: String
    public var offerId: String
    /// The app account token; the issuer lowercases it, as Apple does.
    public var userId: String
    public var format: SignatureFormat
    /// For the JWS format: the transaction the offer is bound to.
    public var transactionId: String?
    /// The App Store environment whose history decides eligibility: Production for apps from
    /// the App Store, Sandbox for TestFlight and development builds. It must be one this
    /// service accepts signed data from; the other's history never counts.
    public var environment: AppStoreEnvironment
    /// Who asked, for the log record: the API key's name (or the caller's name for offline uses).
    public var requestedBy: String
    /// The request ID the log record keeps.
    public var requestId: String

    public init(bundleId: String?, productId: String, offerId: String, userId: String, format: SignatureFormat,
                transactionId: String? = nil, environment: AppStoreEnvironment = .production, requestedBy: String,
                requestId: String) {
        self.bundleId = bundleId
        self.productId = productId
        self.offerId = offerId
        self.userId = userId
        self.format = format
        self.transactionId = transactionId
        self.environment = environment
        self.requestedBy = requestedBy
        self.requestId = requestId
    }
}
