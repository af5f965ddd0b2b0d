import Foundation
import OfferSignerCore
import Synchronization

/// The mock App Store's Set App Account Token (`PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`)
/// and Get Transaction Info (`GET /inApps/v1/transactions/{transactionId}`), over purchases it
/// holds with the token each carries now, as Apple documents them: the same JWT check as every
/// endpoint, 400 4000006 for an ID that is not a number, 400 4000183 for a token that is not a
/// UUID, 400 4000185 for a Family Sharing purchase, 400 4000187 for a transaction that is not
/// the original, 404 4040005 for an unknown one; a token already set is replaced, as Apple does.
/// Queued faults (`fail`) are answered first, one a request, then the normal answer.
public final class MockAppAccountTokens: Sendable {
    /// A purchase the mock knows.
    public struct Purchase: Sendable {
        public var originalTransactionId: String
        /// Its later transactions (renewals): Apple refuses them with 4000187.
        public var renewalIds: [String]
        public var appAccountToken: String?
        public var familyShared: Bool
        public var environment: String
    }

    /// A Set App Account Token request received with an accepted JWT.
    public struct Update: Sendable, Equatable {
        public var originalTransactionId: String
        public var body: String
        public var status: Int
    }

    private struct State {
        var purchases: [String: Purchase] = [:]
        var faults: [MockFault] = []
        var updates: [Update] = []
        var refusedTokens = 0
    }

    private let jwt: MockAppStoreJWT
    private let state = Mutex(State())

    init(jwt: MockAppStoreJWT) {
        self.jwt = jwt
    }

    /// Adds a purchase (a subscription's original transaction and its renewals).
    public func add(originalTransactionId: String, renewalIds: [String] = [], appAccountToken: String? = nil,
                    familyShared: Bool = false, environment: String = "Production") {
        state.withLock {
            $0.purchases[originalTransactionId] = Purchase(originalTransactionId: originalTransactionId, renewalIds: renewalIds,
                                                           appAccountToken: appAccountToken, familyShared: familyShared,
                                                           environment: environment)
        }
    }

    /// Answers the next Set App Account Token requests with `faults`, one each, in order.
    public func fail(_ faults: [MockFault]) { state.withLock { $0.faults += faults } }

    /// The token the purchase carries now (nil: none, or no such purchase).
    public func token(of originalTransactionId: String) -> String? {
        state.withLock { $0.purchases[originalTransactionId]?.appAccountToken }
    }

    /// Every Set App Account Token request with an accepted JWT, in arrival order.
    public var updates: [Update] { state.withLock { $0.updates } }

    /// Requests whose JWT was refused (401).
    public var unauthorized: Int { state.withLock { $0.refusedTokens } }

    /// The answer to `request` when it is one of these endpoints; nil otherwise.
    func respond(to request: MockHTTPRequest) -> MockHTTPResponse? {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count >= 4, parts[0...2] == ["inApps", "v1", "transactions"] else { return nil }
        let isUpdate = request.method == "PUT" && parts.count == 5 && parts[4] == "appAccountToken"
        let isInfo = request.method == "GET" && parts.count == 4
        guard isUpdate || isInfo else { return nil }
        guard (try? jwt.check(authorization: request.authorization, now: Date()).get()) != nil else {
            state.withLock { $0.refusedTokens += 1 }
            return MockHTTPResponse(status: 401)
        }
        return isUpdate ? update(parts[3], request) : info(parts[3])
    }

    private func update(_ id: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        state.withLock { state in
            let response = Self.answer(id, request, &state)
            state.updates.append(Update(originalTransactionId: id, body: String(decoding: request.body, as: UTF8.self),
                                        status: response.status))
            return response
        }
    }

    private static func answer(_ id: String, _ request: MockHTTPRequest, _ state: inout State) -> MockHTTPResponse {
        if !state.faults.isEmpty {
            switch state.faults.removeFirst() {
            case .serverError(let status, let code): return .error(status, code: code, message: "An unknown error occurred. Please try again.")
            case .status(let status, let code, let message): return .error(status, code: code, message: message)
            case .rateLimited, .rateLimitedHeader: return .error(429, code: 4290000, message: "Rate limit exceeded.")
            case .slow(let delay):
                var response = normalAnswer(id, request, &state)
                response.delay = delay
                return response
            case .held(let gate):
                var response = normalAnswer(id, request, &state)
                response.gate = gate
                return response
            case .body: break
            }
        }
        return normalAnswer(id, request, &state)
    }

    private static func normalAnswer(_ id: String, _ request: MockHTTPRequest, _ state: inout State) -> MockHTTPResponse {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else { return .error(400, code: 4000006, message: "Invalid transaction id.") }
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
              let token = object["appAccountToken"] as? String, UUID(uuidString: token) != nil else {
            return .error(400, code: 4000183, message: "Invalid request. The app account token field must be a valid UUID.")
        }
        if state.purchases.values.contains(where: { $0.renewalIds.contains(id) }) {
            return .error(400, code: 4000187, message: "Invalid request. The transaction ID provided is not an original transaction ID.")
        }
        guard var purchase = state.purchases[id] else {
            return .error(404, code: 4040005, message: "Original transaction id not found.")
        }
        guard !purchase.familyShared else {
            return .error(400, code: 4000185, message: "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
        }
        purchase.appAccountToken = token.lowercased()
        state.purchases[id] = purchase
        return MockHTTPResponse(status: 200)
    }

    private func info(_ id: String) -> MockHTTPResponse {
        state.withLock { state in
            guard let purchase = state.purchases[id] else { return .error(404, code: 4040010, message: "Transaction id not found.") }
            let signed = TestSignedData.transaction(id: id, original: id, purchased: TestSignedData.signedDate.addingTimeInterval(-10 * 86_400),
                                                    appAccountToken: purchase.appAccountToken, environment: purchase.environment)
            return .json(200, ["signedTransactionInfo": signed])
        }
    }
}
