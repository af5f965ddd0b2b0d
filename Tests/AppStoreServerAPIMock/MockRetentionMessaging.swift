import Foundation
import Synchronization

/// Apple's Retention Messaging API (`/inApps/v1/messaging`) for one app and environment, in
/// memory, as Apple documents it: messages and images with their approval state (`PENDING`
/// after an upload in Production, `APPROVED` at once in Sandbox, as Apple's sandbox does),
/// default messages per product and locale (approved messages only), the real-time URL
/// (Production only after a passed performance test), performance tests, and Apple's error
/// bodies and codes for every refusal. `MockAppStore` checks the JWT before it asks this.
public final class MockRetentionMessaging: Sendable {
    struct Message: Sendable {
        /// The upload's body as sent.
        var json: Data
        var state: String
        var images: [String]
    }

    struct State {
        var messages: [String: Message] = [:]
        var images: [String: (size: String, state: String)] = [:]
        var defaults: [String: String] = [:]
        var realtimeURL: String?
        var passedTest = false
        var tests: [String: String] = [:]
        var testOutcome = "PASS"
        var faults: [MockFault] = []
    }

    /// The environment, which decides a new upload's state and the real-time URL's test rule.
    public let environment: String
    private let state = Mutex(State())

    init(environment: String) {
        self.environment = environment
    }

    /// The state of a message (nil: none).
    public func messageState(_ id: String) -> String? { state.withLock { $0.messages[id]?.state } }
    /// What Apple holds of a message as uploaded (its JSON object).
    public func messageBody(_ id: String) -> [String: Any]? {
        guard let json = state.withLock({ $0.messages[id]?.json }) else { return nil }
        return try? JSONSerialization.jsonObject(with: json) as? [String: Any]
    }
    /// Sets a message's state, as Apple's review does.
    public func setMessageState(_ id: String, _ value: String) { state.withLock { $0.messages[id]?.state = value } }
    /// Sets an image's state.
    public func setImageState(_ id: String, _ value: String) { state.withLock { $0.images[id]?.state = value } }
    /// A message uploaded another way (App Store Connect, a script).
    public func addMessage(_ id: String, state value: String) {
        state.withLock { $0.messages[id] = Message(json: Data("{}".utf8), state: value, images: []) }
    }
    /// An image uploaded another way, in `state`.
    public func addImage(_ id: String, state value: String, size: String = "FULL_SIZE") {
        state.withLock { $0.images[id] = (size: size, state: value) }
    }
    /// The size an image was uploaded as (nil: none).
    public func imageSize(_ id: String) -> String? { state.withLock { $0.images[id]?.size } }
    /// The default message of a product in a locale.
    public func defaultMessage(productId: String, locale: String) -> String? { state.withLock { $0.defaults[productId + "|" + locale] } }
    public var realtimeURL: String? { state.withLock { $0.realtimeURL } }
    /// What the next performance tests' results say (`PASS`, `FAIL`, `PENDING`).
    public func setPerformanceTestOutcome(_ outcome: String) { state.withLock { $0.testOutcome = outcome } }
    /// Answers the next messaging requests with these faults, one each, in order.
    public func inject(_ faults: [MockFault]) { state.withLock { $0.faults += faults } }

    /// The answer to a messaging request, or nil when `request` is not one.
    func respond(to request: MockHTTPRequest) -> MockHTTPResponse? {
        let prefix = "/inApps/v1/messaging/"
        guard request.path.hasPrefix(prefix) else { return nil }
        let parts = request.path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).removingPercentEncoding ?? String($0)
        }
        let fault: MockFault? = state.withLock { $0.faults.isEmpty ? nil : $0.faults.removeFirst() }
        switch fault {
        case .serverError(let status, let code)?:
            return .error(status, code: code, message: "An unknown error occurred. Please try again.")
        case .rateLimited(let after)?:
            let retryAfter = Int64((Date().timeIntervalSince1970 + Double(after.components.seconds)) * 1000)
            return .error(429, code: 4290000, message: "Rate limit exceeded.", headers: [("Retry-After", String(retryAfter))])
        case .rateLimitedHeader(let value)?:
            return .error(429, code: 4290000, message: "Rate limit exceeded.", headers: value.map { [("Retry-After", $0)] } ?? [])
        case .status(let status, let code, let message)?:
            return .error(status, code: code, message: message)
        case .body(let text)?:
            return MockHTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
        case .slow, .held, nil:
            break
        }
        switch (request.method, parts.first ?? "", parts.count) {
        case ("GET", "message", 2) where parts[1] == "list": return messageList()
        case ("PUT", "message", 2): return uploadMessage(parts[1], request)
        case ("DELETE", "message", 2): return deleteMessage(parts[1])
        case ("GET", "image", 2) where parts[1] == "list": return imageList()
        case ("PUT", "image", 2): return uploadImage(parts[1], request)
        case ("DELETE", "image", 2): return deleteImage(parts[1])
        case ("PUT", "default", 3): return configureDefault(parts[1], parts[2], request)
        case ("GET", "default", 3): return getDefault(parts[1], parts[2])
        case ("DELETE", "default", 3): return deleteDefault(parts[1], parts[2])
        case ("PUT", "realtime", 2) where parts[1] == "url": return configureRealtimeURL(request)
        case ("GET", "realtime", 2) where parts[1] == "url": return getRealtimeURL()
        case ("DELETE", "realtime", 2) where parts[1] == "url": return deleteRealtimeURL()
        case ("POST", "performanceTest", 1): return startTest(request)
        case ("GET", "performanceTest", 3) where parts[1] == "result": return testResult(parts[2])
        default: return MockHTTPResponse(status: 404)
        }
    }

    static let ok = MockHTTPResponse(status: 200)

    private static func isUUID(_ text: String) -> Bool {
        UUID(uuidString: text) != nil && text == text.lowercased()
    }

    private var uploadState: String { environment == "Sandbox" ? "APPROVED" : "PENDING" }

    private func messageList() -> MockHTTPResponse {
        state.withLock { state in
            .json(200, ["messageIdentifiers": state.messages.keys.sorted().map { ["messageIdentifier": $0, "messageState": state.messages[$0]!.state] }])
        }
    }

    private func uploadMessage(_ id: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard Self.isUUID(id) else { return .error(400, code: 4000000, message: "Invalid request: the message identifier is not a UUID.") }
        guard request.contentType == "application/json" else {
            return .error(400, code: 4000000, message: "Invalid request: Content-Type \(request.contentType ?? "none").")
        }
        guard
              let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
              let header = body["header"] as? String, let text = body["body"] as? String else {
            return .error(400, code: 4000000, message: "Invalid request.")
        }
        if header.count > 66 { return .error(400, code: 4000162, message: "Header text too long.") }
        if text.count > 144 { return .error(400, code: 4000163, message: "Body text too long.") }
        let image = body["image"] as? [String: Any]
        let bullets = body["bulletPoints"] as? [[String: Any]] ?? []
        if let alt = image?["altText"] as? String, alt.count > 150 { return .error(400, code: 4000175, message: "Alt text too long.") }
        if bullets.count > 5 { return .error(400, code: 4000218, message: "Too many bullet points.") }
        if body["headerPosition"] as? String == "ABOVE_IMAGE" && image == nil {
            return .error(400, code: 4000224, message: "Header above image requires an image.")
        }
        let images = ([image?["imageIdentifier"] as? String] + bullets.map { $0["imageIdentifier"] as? String }).compactMap { $0 }
        return state.withLock { state in
            guard state.messages[id] == nil else { return .error(409, code: 4090001, message: "Message already exists.") }
            guard state.messages.count < 2000 else { return .error(403, code: 4030016, message: "Maximum number of messages reached.") }
            guard images.allSatisfy({ state.images[$0] != nil }) else { return .error(404, code: 4040014, message: "Image not found.") }
            state.messages[id] = Message(json: request.body, state: uploadState, images: images)
            return Self.ok
        }
    }

    private func deleteMessage(_ id: String) -> MockHTTPResponse {
        state.withLock { state in
            guard state.messages.removeValue(forKey: id) != nil else { return .error(404, code: 4040015, message: "Message not found.") }
            return Self.ok
        }
    }

    private func imageList() -> MockHTTPResponse {
        state.withLock { state in
            .json(200, ["imageIdentifiers": state.images.keys.sorted().map { ["imageIdentifier": $0, "imageState": state.images[$0]!.state] }])
        }
    }

    private func uploadImage(_ id: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard Self.isUUID(id) else { return .error(400, code: 4000000, message: "Invalid request.") }
        let size = request.queryValue("imageSize") ?? "FULL_SIZE"
        guard ["FULL_SIZE", "BULLET_POINT"].contains(size) else { return .error(400, code: 4000216, message: "Invalid image size.") }
        guard request.contentType == "image/png", request.body.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            return .error(400, code: 4000161, message: "Invalid image.")
        }
        return state.withLock { state in
            guard state.images[id] == nil else { return .error(409, code: 4090000, message: "Image already exists.") }
            state.images[id] = (size, uploadState)
            return Self.ok
        }
    }

    private func deleteImage(_ id: String) -> MockHTTPResponse {
        state.withLock { state in
            guard state.images[id] != nil else { return .error(404, code: 4040014, message: "Image not found.") }
            guard !state.messages.values.contains(where: { $0.images.contains(id) }) else {
                return .error(403, code: 4030019, message: "Image is in use by a message.")
            }
            state.images[id] = nil
            return Self.ok
        }
    }

    private static func validLocale(_ locale: String) -> Bool {
        let parts = locale.split(separator: "-")
        return (1...3).contains(parts.count) && (2...3).contains(parts[0].count) && parts.allSatisfy { $0.allSatisfy(\.isLetter) }
    }

    private func configureDefault(_ product: String, _ locale: String, _ request: MockHTTPRequest) -> MockHTTPResponse {
        guard !product.isEmpty else { return .error(400, code: 4000023, message: "Invalid product id.") }
        guard Self.validLocale(locale) else { return .error(400, code: 4000164, message: "Invalid locale.") }
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
              let message = body["messageIdentifier"] as? String else { return .error(400, code: 4000000, message: "Invalid request.") }
        return state.withLock { state in
            guard let stored = state.messages[message] else { return .error(404, code: 4040015, message: "Message not found.") }
            guard stored.state == "APPROVED" else { return .error(403, code: 4030017, message: "Message not approved.") }
            guard stored.images.allSatisfy({ state.images[$0]?.state == "APPROVED" }) else {
                return .error(403, code: 4030018, message: "Image not approved.")
            }
            state.defaults[product + "|" + locale] = message
            return Self.ok
        }
    }

    private func getDefault(_ product: String, _ locale: String) -> MockHTTPResponse {
        state.withLock { state in
            guard let message = state.defaults[product + "|" + locale] else {
                return .error(404, code: 4040020, message: "Default message not found.")
            }
            return .json(200, ["messageIdentifier": message])
        }
    }

    private func deleteDefault(_ product: String, _ locale: String) -> MockHTTPResponse {
        state.withLock { state in
            guard state.defaults.removeValue(forKey: product + "|" + locale) != nil else {
                return .error(404, code: 4040020, message: "Default message not found.")
            }
            return Self.ok
        }
    }

    private func configureRealtimeURL(_ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any], let url = body["realtimeURL"] as? String,
              url.hasPrefix("https://") else { return .error(400, code: 4000215, message: "Invalid realtime URL.") }
        return state.withLock { state in
            guard environment == "Sandbox" || state.passedTest else {
                return .error(403, code: 4030026, message: "A passing performance test is required.")
            }
            state.realtimeURL = url
            return Self.ok
        }
    }

    private func getRealtimeURL() -> MockHTTPResponse {
        state.withLock { state in
            guard let url = state.realtimeURL else { return .error(404, code: 4040021, message: "Realtime URL not found.") }
            return .json(200, ["realtimeURL": url])
        }
    }

    private func deleteRealtimeURL() -> MockHTTPResponse {
        state.withLock { state in
            guard state.realtimeURL != nil else { return .error(404, code: 4040021, message: "Realtime URL not found.") }
            state.realtimeURL = nil
            return Self.ok
        }
    }

    static let config: [String: Int] = ["maxConcurrentRequests": 10, "responseTimeThreshold": 700, "successRateThreshold": 95,
                                        "totalDuration": 60000, "totalRequests": 600]

    private func startTest(_ request: MockHTTPRequest) -> MockHTTPResponse {
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
              let transaction = body["originalTransactionId"] as? String, !transaction.isEmpty,
              transaction.allSatisfy(\.isNumber) else { return .error(400, code: 4000211, message: "Invalid performance test request.") }
        return state.withLock { state in
            guard !state.tests.values.contains("PENDING") else {
                return .error(400, code: 4000213, message: "A performance test is already running.")
            }
            let id = UUID().uuidString.lowercased()
            state.tests[id] = state.testOutcome
            if state.testOutcome == "PASS" { state.passedTest = true }
            return .json(200, ["requestId": id, "config": Self.config])
        }
    }

    private func testResult(_ id: String) -> MockHTTPResponse {
        guard Self.isUUID(id) else { return .error(400, code: 4000212, message: "Invalid request id.") }
        return state.withLock { state in
            guard let outcome = state.tests[id] else { return .error(404, code: 4040018, message: "Performance test run not found.") }
            let pending = outcome == "PENDING"
            return .json(200, [
                "config": Self.config, "target": state.realtimeURL ?? "https://signer.example.com/v1/retention/appstore",
                "result": outcome, "successRate": outcome == "FAIL" ? 80 : 100, "numPending": pending ? 600 : 0,
                "responseTimes": ["average": 120, "p50": 100, "p90": 180, "p95": 240, "p99": 480],
                "failures": outcome == "FAIL" ? ["TIMED_OUT": 120] : [String: Int](),
            ])
        }
    }
}
