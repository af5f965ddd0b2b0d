import Foundation
import OfferSignerCore

/// A client of Apple's App Store Server API for one app: ES256 JWT authentication, paging,
/// retries with backoff, Apple's `Retry-After`, and a request-rate limit shared by every thread
/// that uses the client.
///
/// Calls are synchronous and safe from any number of threads at once; each call returns or
/// throws within the configured timeout per attempt, plus the retries' waits. Everything signed
/// in a response comes back as JWS strings: verify them (see `AppStoreServerAPIVerification`)
/// before trusting them.
public final class AppStoreServerAPIClient: Sendable {
    /// The app and key requests are made for.
    public let credentials: AppStoreServerAPICredentials
    /// Where requests go and how failures are handled.
    public let configuration: AppStoreServerAPIConfiguration

    let baseURL: String
    let tokens: AppStoreServerAPITokenIssuer
    let limiter: RequestRateLimiter
    let http: CurlHTTPClient
    let now: @Sendable () -> Date
    let userAgent = "offer-signer " + (CurlHTTPClient.libcurlVersion.split(separator: " ").first.map(String.init) ?? "libcurl")

    /// - Throws: when a credential is empty or a setting is out of range.
    public convenience init(credentials: AppStoreServerAPICredentials,
                            configuration: AppStoreServerAPIConfiguration) throws(AppStoreServerAPIConfigurationError) {
        try self.init(credentials: credentials, configuration: configuration, now: { Date() })
    }

    /// Like ``init(credentials:configuration:)``, reading the wall clock (JWT times,
    /// `Retry-After`) from `now`.
    init(credentials: AppStoreServerAPICredentials, configuration: AppStoreServerAPIConfiguration,
         now: @escaping @Sendable () -> Date) throws(AppStoreServerAPIConfigurationError) {
        for (name, value) in [("key ID", credentials.keyId), ("issuer ID", credentials.issuerId), ("bundle ID", credentials.bundleId)]
        where value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw AppStoreServerAPIConfigurationError.missingCredential(name)
        }
        try configuration.validate()
        self.credentials = credentials
        self.configuration = configuration
        self.baseURL = configuration.effectiveBaseURL
        self.tokens = AppStoreServerAPITokenIssuer(credentials: credentials, now: now)
        self.limiter = RequestRateLimiter(requestsPerSecond: configuration.requestsPerSecond)
        self.http = CurlHTTPClient()
        self.now = now
    }

    private init(sharingWith client: AppStoreServerAPIClient, configuration: AppStoreServerAPIConfiguration) {
        credentials = client.credentials
        self.configuration = configuration
        baseURL = client.baseURL
        tokens = client.tokens
        limiter = client.limiter
        http = client.http
        now = client.now
    }

    /// A client of the same app, key and base URL with another timeout and retry policy, sharing
    /// this one's request-rate limit (and Apple's `Retry-After` pauses), token and connections:
    /// e.g. one that must answer within a request's deadline, beside one that may wait.
    ///
    /// - Throws: when the timeout or the policy is out of range.
    public func with(timeout: Duration, retry: AppStoreServerAPIRetryPolicy) throws(AppStoreServerAPIConfigurationError) -> AppStoreServerAPIClient {
        var configuration = self.configuration
        configuration.timeout = timeout
        configuration.connectTimeout = min(configuration.connectTimeout, timeout)
        configuration.retry = retry
        try configuration.validate()
        return AppStoreServerAPIClient(sharingWith: self, configuration: configuration)
    }

    // MARK: Get Transaction History v2

    /// One page of a customer's transaction history: `GET /inApps/v2/history/{transactionId}`.
    ///
    /// - Parameters:
    ///   - transactionId: any transaction of the customer (an original transaction ID or not),
    ///     or their app transaction ID.
    ///   - request: filters and order; pass the same on every page.
    ///   - revision: nil for the first page, then the previous page's `revision`.
    public func transactionHistoryPage(transactionId: String, request: TransactionHistoryRequest = TransactionHistoryRequest(),
                                       revision: String? = nil) throws(AppStoreServerAPIError) -> HistoryResponse {
        try Self.checkTransactionId(transactionId)
        var query = revision.map { [("revision", $0)] } ?? []
        query += request.queryItems
        let page = try send(APIRequest(method: "GET", path: "/inApps/v2/history/" + transactionId, query: query),
                            transactionId: transactionId, as: HistoryResponse.self)
        try checkBundleId(page.bundleId)
        if page.hasMore && page.revision.isEmpty {
            throw AppStoreServerAPIError.malformedResponse("a history page says hasMore but carries no revision")
        }
        return page
    }

    /// Reads a customer's transaction history page after page, following `revision` with the
    /// same query parameters, handing each page to `onPage`, until `hasMore` is false or
    /// `onPage` returns false. Returns the number of pages read. Only one page is held at a
    /// time: what `onPage` keeps is the caller's to bound.
    @discardableResult
    public func transactionHistory(transactionId: String, request: TransactionHistoryRequest = TransactionHistoryRequest(),
                                   onPage: (HistoryResponse) throws(AppStoreServerAPIError) -> Bool) throws(AppStoreServerAPIError) -> Int {
        var revision: String?
        var seen: Set<String> = []
        var pages = 0
        while true {
            let page = try transactionHistoryPage(transactionId: transactionId, request: request, revision: revision)
            pages += 1
            guard try onPage(page), page.hasMore else { return pages }
            guard seen.insert(page.revision).inserted else {
                throw AppStoreServerAPIError.malformedResponse("the history of \(transactionId) repeats revision '\(page.revision)'")
            }
            guard pages < configuration.maxPages else {
                throw AppStoreServerAPIError.malformedResponse("the history of \(transactionId) has more than \(configuration.maxPages) pages")
            }
            revision = page.revision
        }
    }

    /// A customer's whole transaction history: every page, following `revision` until `hasMore`
    /// is false, with the same query parameters on every page.
    public func transactionHistory(transactionId: String, request: TransactionHistoryRequest = TransactionHistoryRequest())
        throws(AppStoreServerAPIError) -> TransactionHistory {
        var history = TransactionHistory(transactionId: transactionId, signedTransactions: [], bundleId: nil, rawEnvironment: nil, pages: 0)
        history.pages = try transactionHistory(transactionId: transactionId, request: request) { page in
            if history.signedTransactions.isEmpty && history.bundleId == nil {
                (history.bundleId, history.rawEnvironment) = (page.bundleId, page.rawEnvironment)
            }
            history.signedTransactions += page.signedTransactions
            return true
        }
        return history
    }

    // MARK: Get All Subscription Statuses

    /// The status, latest transaction and renewal information of each of a customer's
    /// subscriptions: `GET /inApps/v1/subscriptions/{transactionId}`.
    ///
    /// - Parameter statuses: only subscriptions in these statuses; empty for all.
    public func allSubscriptionStatuses(transactionId: String, statuses: [SubscriptionStatus] = [])
        throws(AppStoreServerAPIError) -> StatusResponse {
        try Self.checkTransactionId(transactionId)
        let response = try send(APIRequest(method: "GET", path: "/inApps/v1/subscriptions/" + transactionId,
                                           query: statuses.map { ("status", String($0.rawValue)) }),
                                transactionId: transactionId, as: StatusResponse.self)
        try checkBundleId(response.bundleId)
        return response
    }

    // MARK: Get App Transaction Info

    /// The customer's app transaction: `GET /inApps/v1/transactions/appTransactions/{transactionId}`.
    ///
    /// - Parameter transactionId: any transaction ID of the customer, or their app transaction ID.
    public func appTransactionInfo(transactionId: String) throws(AppStoreServerAPIError) -> AppTransactionInfoResponse {
        try Self.checkTransactionId(transactionId)
        return try send(APIRequest(method: "GET", path: "/inApps/v1/transactions/appTransactions/" + transactionId, query: []),
                        transactionId: transactionId, as: AppTransactionInfoResponse.self)
    }

    // MARK: Get Notification History

    /// One page of notification history: `POST /inApps/v1/notifications/history`.
    ///
    /// - Parameter paginationToken: nil for the first page, then the previous page's token.
    public func notificationHistoryPage(_ request: NotificationHistoryRequest, paginationToken: String? = nil)
        throws(AppStoreServerAPIError) -> NotificationHistoryResponse {
        try Self.check(request)
        let body: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys  // the same bytes on every page
            body = Array(try encoder.encode(request))
        } catch {
            throw AppStoreServerAPIError.invalidArgument("the notification history request does not encode as JSON")
        }
        let page = try send(APIRequest(method: "POST", path: "/inApps/v1/notifications/history",
                                       query: paginationToken.map { [("paginationToken", $0)] } ?? [], body: body),
                            transactionId: request.transactionId, as: NotificationHistoryResponse.self)
        if page.hasMore && (page.paginationToken ?? "").isEmpty {
            throw AppStoreServerAPIError.malformedResponse("a notification history page says hasMore but carries no paginationToken")
        }
        return page
    }

    /// Reads notification history page after page, handing each to `onPage`, until Apple has
    /// no more or `onPage` returns false. Returns the number of pages read.
    @discardableResult
    public func notificationHistory(_ request: NotificationHistoryRequest,
                                    onPage: (NotificationHistoryResponse) -> Bool) throws(AppStoreServerAPIError) -> Int {
        var token: String?
        var seen: Set<String> = []
        var pages = 0
        while true {
            let page = try notificationHistoryPage(request, paginationToken: token)
            pages += 1
            guard onPage(page), page.hasMore, let next = page.paginationToken else { return pages }
            guard seen.insert(next).inserted else {
                throw AppStoreServerAPIError.malformedResponse("the notification history repeats paginationToken '\(next)'")
            }
            guard pages < configuration.maxPages else {
                throw AppStoreServerAPIError.malformedResponse("the notification history has more than \(configuration.maxPages) pages")
            }
            token = next
        }
    }

    /// Every notification of the window, all pages read.
    public func notificationHistory(_ request: NotificationHistoryRequest) throws(AppStoreServerAPIError) -> [NotificationHistoryResponseItem] {
        var items: [NotificationHistoryResponseItem] = []
        try notificationHistory(request) { page in
            items += page.notificationHistory
            return true
        }
        return items
    }

    // MARK: Checks

    /// Apple's transaction IDs are decimal numbers; anything else is refused before it reaches a URL.
    static func checkTransactionId(_ transactionId: String) throws(AppStoreServerAPIError) {
        guard (1...64).contains(transactionId.utf8.count),
              transactionId.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw AppStoreServerAPIError.invalidArgument("a transaction ID is 1 to 64 decimal digits")
        }
    }

    static func check(_ request: NotificationHistoryRequest) throws(AppStoreServerAPIError) {
        guard request.startDate < request.endDate else {
            throw AppStoreServerAPIError.invalidArgument("the notification history window must start before it ends")
        }
        if let transactionId = request.transactionId {
            try checkTransactionId(transactionId)
            guard request.notificationType == nil else {
                throw AppStoreServerAPIError.invalidArgument("give a transaction ID or a notification type, not both")
            }
        }
        if request.notificationSubtype != nil && request.notificationType == nil {
            throw AppStoreServerAPIError.invalidArgument("a notification subtype needs its notification type")
        }
    }

    private func checkBundleId(_ bundleId: String?) throws(AppStoreServerAPIError) {
        if let bundleId, bundleId != credentials.bundleId {
            throw AppStoreServerAPIError.malformedResponse("the response is about bundle '\(bundleId)', not '\(credentials.bundleId)'")
        }
    }
}
