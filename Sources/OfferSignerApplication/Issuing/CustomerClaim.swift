import OfferSignerCore

/// Who a request says the customer is, before anything of it is believed: what the issuing
/// pipeline's first step (``CustomerBinder``) checks and binds.
struct CustomerClaim: Sendable {
    /// The app; nil when exactly one app is configured.
    var bundleId: String?
    /// The app account token as sent (the binder lowercases it).
    var userId: String
    var environment: AppStoreEnvironment
    /// The transaction the request names, which a verified proof must be (or be the original of).
    var transactionId: String?
    var proof: CustomerProof
    var callerTrust: CallerTrust
    /// The subscription the App Store itself named in a signed Retention Messaging request:
    /// proven as a verified transaction proves one, with no proof from the caller.
    var appStoreSubscription: String?
    /// Whether `transactionId` may instead be the customer's `appTransactionId`, as Apple
    /// accepts in an introductory-offer eligibility JWS.
    var transactionMayBeAppDownload = false
}

extension CustomerClaim {
    /// The claim of a promotional-offer request (from the API or the App Store's retention request).
    init(_ request: IssueRequest) {
        self.init(bundleId: request.bundleId, userId: request.userId, environment: request.environment,
                  transactionId: request.transactionId, proof: request.proof, callerTrust: request.callerTrust,
                  appStoreSubscription: request.appStoreSubscription)
    }

    /// The claim of an introductory-offer eligibility request.
    init(_ request: IntroductoryOfferRequest) {
        self.init(bundleId: request.bundleId, userId: request.userId, environment: request.environment,
                  transactionId: request.transactionId, proof: request.proof, callerTrust: request.callerTrust,
                  appStoreSubscription: nil, transactionMayBeAppDownload: true)
    }

    /// The claim of an introductory-offer store page: the same customer as a single request's.
    init(_ page: IntroductoryOfferPageRequest) {
        self.init(bundleId: page.bundleId, userId: page.userId, environment: page.environment,
                  transactionId: page.transactionId, proof: page.proof, callerTrust: page.callerTrust,
                  appStoreSubscription: nil, transactionMayBeAppDownload: true)
    }
}
