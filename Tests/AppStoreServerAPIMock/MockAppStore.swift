import Foundation
import OfferSignerCore
import Synchronization

/// A customer of the mock App Store: the transaction IDs that name them, their signed
/// transactions in modification order, and their subscriptions' statuses.
public struct MockCustomer: Sendable {
    public var transactionIds: Set<String>
    public var signedTransactions: [String]
    public var statuses: [MockStatus]
    /// The customer's app transaction ID: Get Transaction History and Get App Transaction Info
    /// accept it, Get All Subscription Statuses does not.
    public var appTransactionId: String?
    /// What Get App Transaction Info answers for the customer.
    public var signedAppTransactionInfo: String?
    /// A broken or hostile App Store: every history page says `hasMore` with a new revision and
    /// repeats the customer's transactions, for ever.
    public var endlessHistory = false

    public init(transactionIds: Set<String>, signedTransactions: [String], statuses: [MockStatus] = [],
                appTransactionId: String? = nil, signedAppTransactionInfo: String? = nil, endlessHistory: Bool = false) {
        self.endlessHistory = endlessHistory
        self.transactionIds = transactionIds
        self.signedTransactions = signedTransactions
        self.statuses = statuses
        self.appTransactionId = appTransactionId
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}

/// One `lastTransactions` item of Get All Subscription Statuses.
public struct MockStatus: Sendable {
    public var group: String
    public var status: Int
    public var originalTransactionId: String
    public var signedTransactionInfo: String
    public var signedRenewalInfo: String

    public init(group: String, status: Int, originalTransactionId: String, signedTransactionInfo: String, signedRenewalInfo: String) {
        self.group = group
        self.status = status
        self.originalTransactionId = originalTransactionId
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}

/// A notification in the mock's Notification History.
public struct MockNotification: Sendable {
    public var signedDate: Int64
    public var transactionId: String
    public var notificationType: String
    public var signedPayload: String
    /// Delivery attempts: when (ms) and Apple's `sendAttemptResult`.
    public var attempts: [(date: Int64, result: String)]

    public init(signedDate: Int64, transactionId: String, notificationType: String, signedPayload: String,
                attempts: [(date: Int64, result: String)]) {
        self.signedDate = signedDate
        self.transactionId = transactionId
        self.notificationType = notificationType
        self.signedPayload = signedPayload
        self.attempts = attempts
    }
}

/// The mock's endpoints.
public enum MockEndpoint: Hashable, Sendable {
    case history(transactionId: String)
    case statuses(transactionId: String)
    case appTransactionInfo(transactionId: String)
    case notifications

    /// "history", "statuses" or "notifications": the kind faults are queued for.
    public var kind: String {
        switch self {
        case .history: "history"
        case .statuses: "statuses"
        case .appTransactionInfo: "appTransactionInfo"
        case .notifications: "notifications"
        }
    }

    /// The transaction the request is about, for the history and statuses endpoints.
    public var transactionId: String? {
        switch self {
        case .history(let id), .statuses(let id), .appTransactionInfo(let id): id
        case .notifications: nil
        }
    }
}

/// A failure the mock answers with.
public enum MockFault: Sendable {
    /// A 5xx with Apple's error body (5000001 by default: "try again").
    case serverError(status: Int = 500, code: Int64 = 5000001)
    /// 429 4290000 with `Retry-After` set to now plus `after`, in UNIX milliseconds.
    case rateLimited(after: Duration)
    /// 429 4290000 with this exact `Retry-After` value, or none.
    case rateLimitedHeader(String?)
    /// The normal answer, after this long.
    case slow(Duration)
    /// The normal answer, held back until the test opens the gate.
    case held(MockGate)
    /// A 200 with this body.
    case body(String)
    /// Another status with Apple's error body.
    case status(Int, code: Int64, message: String)
}

/// A request the mock received.
public struct MockRecordedRequest: Sendable {
    public var endpoint: MockEndpoint?
    public var request: MockHTTPRequest
    public var claims: MockAppStoreJWT.Claims?
    public var at: ContinuousClock.Instant
}

/// Apple's App Store Server API for one app, in memory, as Apple documents it: JWT checks,
/// 20-item pages (configurable) with `revision` and `paginationToken` bound to the query that
/// started them, 404 4040010 for unknown transactions, and injected faults: queued ones,
/// answered once each in order, and standing ones for one transaction ID, answered every time.
public final class MockAppStore: Sendable {
    private struct State {
        var customers: [MockCustomer] = []
        /// Customer index by each of their transaction IDs.
        var customerByTransaction: [String: Int] = [:]
        var customerByAppTransaction: [String: Int] = [:]
        var notifications: [MockNotification] = []
        var faults: [String: [MockFault]] = [:]
        var standingFaults: [String: MockFault] = [:]
        var requests: [MockRecordedRequest] = []
        var revisions: [String: (customer: Int, offset: Int, query: String)] = [:]
        var paginationTokens: [String: (offset: Int, body: Data)] = [:]
        /// A broken or hostile App Store: every notification history page says `hasMore`, for ever.
        var endlessNotificationHistory = false
    }

    public let jwt: MockAppStoreJWT
    public let pageSize: Int
    /// The environment every response names (`Production` or `Sandbox`).
    public let environment: String
    /// Set App Account Token and Get Transaction Info, with their own purchases and faults.
    public let appAccountTokens: MockAppAccountTokens
    private let state = Mutex(State())
    /// Apple's Retention Messaging API (`/inApps/v1/messaging/…`) of this app and environment.
    public let messaging: MockRetentionMessaging

    public init(jwt: MockAppStoreJWT, pageSize: Int = 20, environment: String = "Production") {
        self.jwt = jwt
        self.pageSize = pageSize
        self.environment = environment
        appAccountTokens = MockAppAccountTokens(jwt: jwt)
        messaging = MockRetentionMessaging(environment: environment)
    }

    /// Makes Get Notification History page for ever (each page `hasMore`, with a new token).
    public func makeNotificationHistoryEndless() {
        state.withLock { $0.endlessNotificationHistory = true }
    }

    public func add(_ customer: MockCustomer) {
        state.withLock { state in
            for id in customer.transactionIds { state.customerByTransaction[id] = state.customers.count }
            if let id = customer.appTransactionId { state.customerByAppTransaction[id] = state.customers.count }
            state.customers.append(customer)
        }
    }

    public func add(_ notification: MockNotification) { state.withLock { $0.notifications.append(notification) } }
    /// Queues faults for an endpoint kind ("history", "statuses", "notifications"), answered in order.
    public func inject(_ faults: [MockFault], into kind: String) { state.withLock { $0.faults[kind, default: []] += faults } }
    /// Answers every history and statuses request about `transactionId` with `fault`.
    public func failAlways(transactionId: String, with fault: MockFault) { state.withLock { $0.standingFaults[transactionId] = fault } }
    /// Answers normally again for every transaction `failAlways` named.
    public func clearStandingFaults() { state.withLock { $0.standingFaults.removeAll() } }
    /// Every request received so far, in arrival order.
    public var requests: [MockRecordedRequest] { state.withLock { $0.requests } }
    /// Forgets the requests received so far.
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// Starts a real HTTP server on 127.0.0.1 answering as this mock.
    public func start() throws -> MockHTTPServer {
        try MockHTTPServer { [self] request in respond(to: request) }
    }

    public func respond(to request: MockHTTPRequest) -> MockHTTPResponse {
        if let answer = appAccountTokens.respond(to: request) { return answer }
        let endpoint = Self.endpoint(request)
        let checked = jwt.check(authorization: request.authorization, now: Date())
        let claims = try? checked.get()
        let fault: MockFault? = state.withLock { state in
            state.requests.append(MockRecordedRequest(endpoint: endpoint, request: request, claims: claims, at: .now))
            guard claims != nil else { return nil }
            if let id = endpoint?.transactionId, let standing = state.standingFaults[id] { return standing }
            guard let kind = endpoint?.kind, var queued = state.faults[kind], !queued.isEmpty else { return nil }
            defer { state.faults[kind] = queued }
            return queued.removeFirst()
        }
        guard claims != nil else { return MockHTTPResponse(status: 401) }  // Apple's 401 has no body
        if let answer = messaging.respond(to: request) { return answer }
        guard let endpoint else { return MockHTTPResponse(status: 404) }
        switch fault {
        case .serverError(let status, let code)?:
            return .error(status, code: code, message: "An unknown error occurred. Please try again.")
        case .rateLimited(let after)?:
            let (seconds, attoseconds) = after.components
            let retryAfter = Int64((Date().timeIntervalSince1970 + Double(seconds) + Double(attoseconds) / 1e18) * 1000)
            return .error(429, code: 4290000, message: "Rate limit exceeded.", headers: [("Retry-After", String(retryAfter))])
        case .rateLimitedHeader(let value)?:
            return .error(429, code: 4290000, message: "Rate limit exceeded.", headers: value.map { [("Retry-After", $0)] } ?? [])
        case .body(let text)?:
            return MockHTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
        case .status(let status, let code, let message)?:
            return .error(status, code: code, message: message)
        case .slow(let delay)?:
            var response = answer(endpoint, request)
            response.delay = delay
            return response
        case .held(let gate)?:
            var response = answer(endpoint, request)
            response.gate = gate
            return response
        case nil:
            return answer(endpoint, request)
        }
    }

    private static func endpoint(_ request: MockHTTPRequest) -> MockEndpoint? {
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts.count) {
        case ("GET", 4) where parts[0] == "inApps" && parts[1] == "v2" && parts[2] == "history": return .history(transactionId: parts[3])
        case ("GET", 4) where parts[0] == "inApps" && parts[1] == "v1" && parts[2] == "subscriptions": return .statuses(transactionId: parts[3])
        case ("GET", 5) where parts[0...3] == ["inApps", "v1", "transactions", "appTransactions"]:
            return .appTransactionInfo(transactionId: parts[4])
        case ("POST", 4) where parts == ["inApps", "v1", "notifications", "history"]: return .notifications
        default: return nil
        }
    }

    private func answer(_ endpoint: MockEndpoint, _ request: MockHTTPRequest) -> MockHTTPResponse {
        switch endpoint {
        case .history(let transactionId): history(transactionId, request)
        case .statuses(let transactionId): statuses(transactionId, request)
        case .appTransactionInfo(let transactionId): appTransactionInfo(transactionId)
        case .notifications: notifications(request)
        }
    }

    private static let notFound = MockHTTPResponse.error(404, code: 4040010, message: "Transaction id not found.")

    private func history(_ transactionId: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        state.withLock { state in
            guard let index = state.customerByTransaction[transactionId] ?? state.customerByAppTransaction[transactionId] else {
                return Self.notFound
            }
            let query = request.query.filter { $0.name != "revision" }.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            var offset = 0
            if let revision = request.queryValue("revision") {
                guard let known = state.revisions[revision], known.customer == index, known.query == query else {
                    return .error(400, code: 4000005, message: "Invalid request revision.")
                }
                offset = known.offset
            }
            if state.customers[index].endlessHistory {
                let revision = UUID().uuidString
                state.revisions[revision] = (index, 0, query)
                return .json(200, [
                    "revision": revision, "hasMore": true, "bundleId": jwt.bundleId, "appAppleId": TestSignedData.appAppleId,
                    "environment": environment, "signedTransactions": state.customers[index].signedTransactions,
                ])
            }
            var transactions = state.customers[index].signedTransactions
            let products = Set(request.queryValues("productId"))
            if !products.isEmpty {
                transactions = transactions.filter { products.contains(TestSignedData.unverifiedPayload($0)["productId"] as? String ?? "") }
            }
            if request.queryValue("sort") == "DESCENDING" { transactions.reverse() }
            let end = min(offset + pageSize, transactions.count)
            let revision = UUID().uuidString
            state.revisions[revision] = (index, end, query)
            return .json(200, [
                "revision": revision, "hasMore": end < transactions.count, "bundleId": jwt.bundleId,
                "appAppleId": TestSignedData.appAppleId, "environment": environment,
                "signedTransactions": Array(transactions[min(offset, end)..<end]),
            ])
        }
    }

    private func statuses(_ transactionId: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        state.withLock { state in
            guard let index = state.customerByTransaction[transactionId] else { return Self.notFound }
            let customer = state.customers[index]
            let wanted = Set(request.queryValues("status").compactMap(Int.init))
            let kept = customer.statuses.filter { wanted.isEmpty || wanted.contains($0.status) }
            var groups: [String] = []
            for status in kept where !groups.contains(status.group) { groups.append(status.group) }
            let data: [[String: Any]] = groups.map { group in
                ["subscriptionGroupIdentifier": group,
                 "lastTransactions": kept.filter { $0.group == group }.map {
                     ["status": $0.status, "originalTransactionId": $0.originalTransactionId,
                      "signedTransactionInfo": $0.signedTransactionInfo, "signedRenewalInfo": $0.signedRenewalInfo] as [String: Any]
                 }]
            }
            return .json(200, ["environment": environment, "bundleId": jwt.bundleId,
                               "appAppleId": TestSignedData.appAppleId, "data": data])
        }
    }

    private func appTransactionInfo(_ transactionId: String) -> MockHTTPResponse {
        state.withLock { state in
            guard let index = state.customerByTransaction[transactionId] ?? state.customerByAppTransaction[transactionId],
                  let signed = state.customers[index].signedAppTransactionInfo else { return Self.notFound }
            return .json(200, ["signedAppTransactionInfo": signed])
        }
    }

    private func notifications(_ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
            return .error(400, code: 4000000, message: "Invalid request.")
        }
        guard let start = (body["startDate"] as? NSNumber)?.int64Value else { return .error(400, code: 4000015, message: "Invalid start date.") }
        guard let end = (body["endDate"] as? NSNumber)?.int64Value else { return .error(400, code: 4000016, message: "Invalid end date.") }
        guard start < end else { return .error(400, code: 4000013, message: "Start date after end date.") }
        let transactionId = body["transactionId"] as? String
        let type = body["notificationType"] as? String
        guard transactionId == nil || type == nil else { return .error(400, code: 4000019, message: "Multiple filters supplied.") }
        let onlyFailures = body["onlyFailures"] as? Bool ?? false
        return state.withLock { state in
            var offset = 0
            if let token = request.queryValue("paginationToken") {
                guard let known = state.paginationTokens[token],
                      let first = try? JSONSerialization.jsonObject(with: known.body) as? NSDictionary, first == body as NSDictionary else {
                    return .error(400, code: 4000014, message: "Invalid pagination token.")
                }
                offset = known.offset
            }
            var customerIds: Set<String>?
            if let transactionId {
                guard let index = state.customerByTransaction[transactionId] else { return Self.notFound }
                customerIds = state.customers[index].transactionIds
            }
            let matching = state.notifications
                .filter { (start...end).contains($0.signedDate) }
                .filter { customerIds?.contains($0.transactionId) ?? true }
                .filter { type == nil || $0.notificationType == type }
                .filter { !onlyFailures || $0.attempts.last?.result != "SUCCESS" }
                .sorted { $0.signedDate < $1.signedDate }
            if state.endlessNotificationHistory {
                let token = UUID().uuidString.lowercased()
                state.paginationTokens[token] = (offset, request.body)
                return .json(200, ["hasMore": true, "paginationToken": token, "notificationHistory": [] as [Any]])
            }
            let last = min(offset + pageSize, matching.count)
            var object: [String: Any] = [
                "hasMore": last < matching.count,
                "notificationHistory": matching[min(offset, last)..<last].map { notification in
                    ["signedPayload": notification.signedPayload,
                     "sendAttempts": notification.attempts.map { ["attemptDate": $0.date, "sendAttemptResult": $0.result] as [String: Any] }]
                        as [String: Any]
                },
            ]
            if last < matching.count {
                let token = UUID().uuidString.lowercased()
                state.paginationTokens[token] = (last, request.body)
                object["paginationToken"] = token
            }
            return .json(200, object)
        }
    }
}
