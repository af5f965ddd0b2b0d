import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// Configures Apple's Retention Messaging API for an app and environment — messages, images,
/// default messages, the real-time URL, performance tests — through the app's App Store Server
/// API client (its JWT, retries and rate limit), checking Apple's documented limits before
/// anything is sent, and recording every change in the rule store's log
/// (``RetentionMessagingRecord``: who, when, before, after). After a change to messages the
/// approval states the responder reads (``RetentionMessageStates``) are refreshed at once.
/// No HTTP here.
public struct RetentionMessaging: Sendable {
    let clients: AppStoreAPIClients?
    let records: any RuleStore
    /// The cache the responder reads; nil when the App Store Server API is not configured.
    public let states: RetentionMessageStates?
    let clock: WallClock
    let logger: Logger

    /// Admin calls wait for Apple at most about this long, retrying once.
    static let policy = (timeout: Duration.seconds(15),
                         retry: AppStoreServerAPIRetryPolicy(maxRetries: 1, maxRateLimitRetries: 1, maxRetryAfterWait: .seconds(5)))

    public init(clients: AppStoreAPIClients?, records: any RuleStore, states: RetentionMessageStates?, clock: WallClock = .system,
                logger: Logger = Logger()) {
        self.clients = clients
        self.records = records
        self.states = states
        self.clock = clock
        self.logger = logger
    }

    /// Where a call goes: an app and an environment (`Production` or `Sandbox`).
    public struct Target: Sendable, Hashable {
        public var bundleId: String
        public var environment: String
        public init(bundleId: String, environment: String) {
            self.bundleId = bundleId
            self.environment = environment
        }
    }

    // MARK: Messages

    /// A message at Apple with what the service knows of it.
    public struct MessageItem: Sendable, Encodable {
        public var messageIdentifier: String
        /// Apple's `messageState`.
        public var state: String
        /// What was uploaded through the service (nil for a message uploaded another way).
        public var header: String?
        public var body: String?
        public var image: UploadMessageImage?
        public var headerPosition: HeaderPosition?
        public var bulletPoints: [BulletPoint]?
        public var uploadedAt: Date?
    }

    /// Uploads a message (Apple's Upload Message) and records it.
    public func uploadMessage(_ target: Target, messageIdentifier: String, _ message: UploadMessageRequestBody,
                              by actor: String) throws(RetentionMessagingFailure) {
        var problems = Self.identifierProblems(messageIdentifier, "messageIdentifier")
        problems += message.problems
        guard problems.isEmpty else { throw .invalid(problems) }
        try call(target) { client throws(AppStoreServerAPIError) in try client.uploadMessage(messageIdentifier: messageIdentifier, message) }
        var record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: .message, key: messageIdentifier)
        record.messageIdentifier = messageIdentifier
        record.message = message
        try save(record, by: actor)
        refreshStates(target)
    }

    /// Every message Apple lists, with its state and the text the service uploaded.
    public func messages(_ target: Target) throws(RetentionMessagingFailure) -> [MessageItem] {
        let list = try call(target) { client throws(AppStoreServerAPIError) in try client.messageList() }
        states?.remember(list, bundleId: target.bundleId, environment: target.environment)
        let known = try recorded(target, .message)
        return (list.messageIdentifiers ?? []).map { item in
            let stored = known[item.messageIdentifier.lowercased()]
            let message = stored?.rule.message
            return MessageItem(messageIdentifier: item.messageIdentifier, state: item.messageState.rawValue, header: message?.header,
                               body: message?.body, image: message?.image, headerPosition: message?.headerPosition,
                               bulletPoints: message?.bulletPoints, uploadedAt: stored?.updatedAt)
        }
    }

    /// Deletes a message at Apple and records the deletion.
    public func deleteMessage(_ target: Target, messageIdentifier: String, by actor: String) throws(RetentionMessagingFailure) {
        try delete(target, .message, messageIdentifier, by: actor) { client throws(AppStoreServerAPIError) in
            try client.deleteMessage(messageIdentifier: messageIdentifier)
        }
        refreshStates(target)
    }

    // MARK: Images

    /// An image at Apple with what the service knows of it.
    public struct ImageItem: Sendable, Encodable {
        public var imageIdentifier: String
        /// Apple's `imageState`.
        public var state: String
        public var imageSize: ImageSize?
        public var width: Int?
        public var height: Int?
        public var bytes: Int?
        public var sha256: String?
        public var uploadedAt: Date?
    }

    /// Checks and uploads a PNG (Apple's Upload Image) and records its size and digest.
    public func uploadImage(_ target: Target, imageIdentifier: String, png: [UInt8], size: ImageSize,
                            by actor: String) throws(RetentionMessagingFailure) {
        var problems = Self.identifierProblems(imageIdentifier, "imageIdentifier")
        var image: RetentionImage?
        do {
            image = try RetentionImage(png: png, size: size)
        } catch {
            problems += error.problems
        }
        guard problems.isEmpty, let image else { throw .invalid(problems) }
        try call(target) { client throws(AppStoreServerAPIError) in try client.uploadImage(imageIdentifier: imageIdentifier, image, size: size) }
        var record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: .image, key: imageIdentifier)
        record.imageIdentifier = imageIdentifier
        record.image = RetentionMessagingRecord.ImageFacts(image, size: size)
        try save(record, by: actor)
    }

    /// Every image Apple lists, with its state and what the service uploaded.
    public func images(_ target: Target) throws(RetentionMessagingFailure) -> [ImageItem] {
        let list = try call(target) { client throws(AppStoreServerAPIError) in try client.imageList() }
        let known = try recorded(target, .image)
        return (list.imageIdentifiers ?? []).map { item in
            let stored = known[item.imageIdentifier.lowercased()]
            let facts = stored?.rule.image
            return ImageItem(imageIdentifier: item.imageIdentifier, state: item.imageState.rawValue, imageSize: facts?.imageSize,
                             width: facts?.width, height: facts?.height, bytes: facts?.bytes, sha256: facts?.sha256,
                             uploadedAt: stored?.updatedAt)
        }
    }

    /// Deletes an image at Apple (Apple refuses one a message uses) and records the deletion.
    public func deleteImage(_ target: Target, imageIdentifier: String, by actor: String) throws(RetentionMessagingFailure) {
        try delete(target, .image, imageIdentifier, by: actor) { client throws(AppStoreServerAPIError) in
            try client.deleteImage(imageIdentifier: imageIdentifier)
        }
    }

    /// Checks the identifier, deletes the message or image at Apple with `request`, and records the deletion.
    private func delete(_ target: Target, _ item: RetentionMessagingRecord.Item, _ identifier: String, by actor: String,
                        _ request: (AppStoreServerAPIClient) throws(AppStoreServerAPIError) -> Void) throws(RetentionMessagingFailure) {
        let field = item == .message ? "messageIdentifier" : "imageIdentifier"
        let problems = Self.identifierProblems(identifier, field)
        guard problems.isEmpty else { throw .invalid(problems) }
        try call(target, request)
        var record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: item, key: identifier)
        if item == .message { record.messageIdentifier = identifier } else { record.imageIdentifier = identifier }
        try remove(record, by: actor)
    }

    // MARK: Default messages

    /// A product's default message in a locale.
    public struct DefaultItem: Sendable, Encodable {
        public var productId: String
        public var locale: String
        public var messageIdentifier: String
        public var updatedAt: Date?

        public init(productId: String, locale: String, messageIdentifier: String, updatedAt: Date?) {
            self.productId = productId
            self.locale = locale
            self.messageIdentifier = messageIdentifier
            self.updatedAt = updatedAt
        }
    }

    /// Makes `messageIdentifier` the default message of `productId` in `locale` (Apple's Configure Default Message).
    public func configureDefault(_ target: Target, productId: String, locale: String, messageIdentifier: String,
                                 by actor: String) throws(RetentionMessagingFailure) {
        var problems = Self.defaultProblems(productId: productId, locale: locale)
        problems += Self.identifierProblems(messageIdentifier, "messageIdentifier")
        guard problems.isEmpty else { throw .invalid(problems) }
        try call(target) { client throws(AppStoreServerAPIError) in
            try client.configureDefaultMessage(productId: productId, locale: locale,
                                               DefaultConfigurationRequest(messageIdentifier: messageIdentifier))
        }
        var record = defaultRecord(target, productId: productId, locale: locale)
        record.messageIdentifier = messageIdentifier
        try save(record, by: actor)
    }

    /// Apple's default message of `productId` in `locale`.
    public func defaultMessage(_ target: Target, productId: String, locale: String) throws(RetentionMessagingFailure) -> DefaultItem {
        let problems = Self.defaultProblems(productId: productId, locale: locale)
        guard problems.isEmpty else { throw .invalid(problems) }
        let answer = try call(target) { client throws(AppStoreServerAPIError) in try client.defaultMessage(productId: productId, locale: locale) }
        let stored = try? records.rule(RetentionMessagingRecord.self, bundleId: target.bundleId,
                                       ruleId: defaultRecord(target, productId: productId, locale: locale).ruleId)
        return DefaultItem(productId: productId, locale: locale, messageIdentifier: answer.messageIdentifier,
                           updatedAt: stored?.updatedAt)
    }

    /// The default messages the service configured (Apple has no list of them).
    public func configuredDefaults(_ target: Target) throws(RetentionMessagingFailure) -> [DefaultItem] {
        try recorded(target, .defaultMessage).values.compactMap { stored in
            guard let product = stored.rule.productId, let locale = stored.rule.locale, let message = stored.rule.messageIdentifier else {
                return nil
            }
            return DefaultItem(productId: product, locale: locale, messageIdentifier: message, updatedAt: stored.updatedAt)
        }.sorted { ($0.productId, $0.locale) < ($1.productId, $1.locale) }
    }

    /// Removes the default message of `productId` in `locale` and records it.
    public func deleteDefault(_ target: Target, productId: String, locale: String, by actor: String) throws(RetentionMessagingFailure) {
        let problems = Self.defaultProblems(productId: productId, locale: locale)
        guard problems.isEmpty else { throw .invalid(problems) }
        try call(target) { client throws(AppStoreServerAPIError) in try client.deleteDefaultMessage(productId: productId, locale: locale) }
        try remove(defaultRecord(target, productId: productId, locale: locale), by: actor)
    }

    private func defaultRecord(_ target: Target, productId: String, locale: String) -> RetentionMessagingRecord {
        var record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: .defaultMessage,
                                              key: "\(productId):\(locale)")
        record.productId = productId
        record.locale = locale
        return record
    }

    // MARK: Real-time URL

    /// Points Apple's real-time retention requests at `url` (Apple's Configure Realtime URL).
    public func configureRealtimeURL(_ target: Target, _ url: String, by actor: String) throws(RetentionMessagingFailure) {
        let request = RealtimeURL(realtimeURL: url)
        if let problem = request.problem { throw .invalid([problem]) }
        try call(target) { client throws(AppStoreServerAPIError) in try client.configureRealtimeURL(request) }
        var record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: .realtimeURL, key: "url")
        record.realtimeURL = url
        try save(record, by: actor)
    }

    /// The real-time URL Apple calls.
    public func realtimeURL(_ target: Target) throws(RetentionMessagingFailure) -> RealtimeURL {
        try call(target) { client throws(AppStoreServerAPIError) in try client.realtimeURL() }
    }

    /// Stops Apple's real-time requests (Apple's Delete Realtime URL) and records it.
    public func deleteRealtimeURL(_ target: Target, by actor: String) throws(RetentionMessagingFailure) {
        try call(target) { client throws(AppStoreServerAPIError) in try client.deleteRealtimeURL() }
        let record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: .realtimeURL, key: "url")
        try remove(record, by: actor)
    }

    // MARK: Performance test

    /// The environment of a performance test unless another is named: Apple's test is a
    /// Sandbox feature (run with a Sandbox subscription), Production only when asked for.
    public static let performanceTestEnvironment = "Sandbox"

    /// Starts Apple's performance test of the real-time URL with a Sandbox subscription, and records it.
    public func startPerformanceTest(_ target: Target, originalTransactionId: String,
                                     by actor: String) throws(RetentionMessagingFailure) -> PerformanceTestResponse {
        guard (1...64).contains(originalTransactionId.utf8.count),
              originalTransactionId.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw .invalid(["'originalTransactionId' must be an App Store transaction ID: 1 to 64 decimal digits"])
        }
        let started = try call(target) { client throws(AppStoreServerAPIError) in
            try client.initiatePerformanceTest(PerformanceTestRequest(originalTransactionId: originalTransactionId))
        }
        var record = RetentionMessagingRecord(bundleId: target.bundleId, environment: target.environment, item: .performanceTest,
                                              key: started.requestId.lowercased())
        record.originalTransactionId = originalTransactionId
        record.requestId = started.requestId
        try save(record, by: actor)
        return started
    }

    /// Apple's result of a performance test.
    public func performanceTestResult(_ target: Target, requestId: String) throws(RetentionMessagingFailure) -> PerformanceTestResultResponse {
        let problems = Self.identifierProblems(requestId.lowercased(), "requestId")  // Apple's UUID, in either case
        guard problems.isEmpty else { throw .invalid(problems) }
        return try call(target) { client throws(AppStoreServerAPIError) in try client.performanceTestResult(requestId: requestId) }
    }

    // MARK: Audit

    /// Recorded changes, oldest first (the rule store's change log of kind `retention-messaging`).
    public func changes(bundleId: String?, ruleId: String?, afterId: Int64, limit: Int) throws -> [RuleChange<RetentionMessagingRecord>] {
        try records.changes(RetentionMessagingRecord.self, bundleId: bundleId, ruleId: ruleId, afterId: afterId, limit: limit)
    }

    // MARK: Rule warnings

    /// What a retention rule naming `messageIdentifiers` should be warned of: each message Apple
    /// has not approved in an environment this service calls Apple in (states older than a
    /// minute are asked again). Empty when Apple is not configured for the app.
    public func approvalWarnings(bundleId: String, messageIdentifiers: [String]) -> [String] {
        guard let states, let clients else { return [] }
        var warnings: [String] = []
        for environment in clients.environments.map(\.rawValue) {
            guard (try? clients.client(bundleId: bundleId, environment: AppStoreServerAPIEnvironment(rawValue: environment)!)) != nil else {
                continue
            }
            if !states.isFresh(bundleId: bundleId, environment: environment, within: 60) {
                do {
                    try states.refresh(bundleId: bundleId, environment: environment)
                } catch {
                    warnings.append("the approval of the rule's messages in \(environment) could not be checked: \(error)")
                    continue
                }
            }
            for message in messageIdentifiers {
                if case .notApproved(let state) = states.approval(of: message, bundleId: bundleId, environment: environment) {
                    let why = state == "MISSING" ? "Apple has no message '\(message)'" : "message '\(message)' is \(state) at Apple"
                    warnings.append("\(why) in \(environment): the real-time responder skips this rule until Apple approves it")
                }
            }
        }
        return warnings
    }

    // MARK: Helpers

    private func call<Answer>(_ target: Target,
                              _ body: (AppStoreServerAPIClient) throws(AppStoreServerAPIError) -> Answer) throws(RetentionMessagingFailure) -> Answer {
        guard let clients else { throw .unavailable(.notConfigured) }
        guard let environment = AppStoreServerAPIEnvironment(rawValue: target.environment) else {
            throw .invalid(["the environment must be Production or Sandbox, not '\(target.environment)'"])
        }
        let client: AppStoreServerAPIClient
        do {
            client = try clients.client(bundleId: target.bundleId, environment: environment).with(timeout: Self.policy.timeout,
                                                                                                 retry: Self.policy.retry)
        } catch let error as AppStoreAPIUnavailable {
            throw .unavailable(error)
        } catch {
            throw .api(.invalidArgument("\(error)"))
        }
        do {
            return try body(client)
        } catch {
            logger.log(.warning, "Retention Messaging API call failed", [
                "bundleId": .string(target.bundleId), "environment": .string(target.environment), "error": .string(error.description),
            ])
            throw .api(error)
        }
    }

    private func save(_ record: RetentionMessagingRecord, by actor: String) throws(RetentionMessagingFailure) {
        do {
            _ = try records.put(record, by: actor, at: clock.now)
        } catch {
            logger.log(.error, "Retention Messaging change not recorded", ["ruleId": .string(record.ruleId), "error": .string("\(error)")])
            throw .notRecorded("\(error)")
        }
    }

    /// Records that `record`'s thing is no longer at Apple: the stored record disabled, or a
    /// disabled record when the service never configured it.
    private func remove(_ record: RetentionMessagingRecord, by actor: String) throws(RetentionMessagingFailure) {
        do {
            if try records.disable(RetentionMessagingRecord.self, bundleId: record.bundleId, ruleId: record.ruleId, by: actor,
                                   at: clock.now) == nil {
                var gone = record
                gone.enabled = false
                _ = try records.put(gone, by: actor, at: clock.now)
            }
        } catch {
            logger.log(.error, "Retention Messaging change not recorded", ["ruleId": .string(record.ruleId), "error": .string("\(error)")])
            throw .notRecorded("\(error)")
        }
    }

    /// The enabled records of one item kind in the target, by their key (lowercased identifier).
    private func recorded(_ target: Target, _ item: RetentionMessagingRecord.Item) throws(RetentionMessagingFailure)
        -> [String: StoredRule<RetentionMessagingRecord>] {
        let all: [StoredRule<RetentionMessagingRecord>]
        do {
            all = try records.rules(RetentionMessagingRecord.self, bundleId: target.bundleId)
        } catch {
            throw .notRecorded("the recorded configuration could not be read: \(error)")
        }
        var found: [String: StoredRule<RetentionMessagingRecord>] = [:]
        let prefix = RetentionMessagingRecord.ruleId(environment: target.environment, item: item, key: "")
        for stored in all where stored.rule.enabled && stored.rule.ruleId.hasPrefix(prefix) {
            found[String(stored.rule.ruleId.dropFirst(prefix.count)).lowercased()] = stored
        }
        return found
    }

    private func refreshStates(_ target: Target) {
        do {
            try states?.refresh(bundleId: target.bundleId, environment: target.environment)
        } catch {
            logger.log(.warning, "retention message states not refreshed after a change", [
                "bundleId": .string(target.bundleId), "environment": .string(target.environment), "error": .string("\(error)"),
            ])
        }
    }

    static func identifierProblems(_ identifier: String, _ name: String) -> [String] {
        RetentionIdentifier.isValid(identifier) ? [] : ["'\(name)' must be a UUID: \(RetentionIdentifier.rule)"]
    }

    static func defaultProblems(productId: String, locale: String) -> [String] {
        var problems: [String] = []
        if !Identifier.isValid(productId) { problems.append("'productId' must be 1–256 visible ASCII characters") }
        if !RetentionLocale.isValid(locale) { problems.append("'locale' must be \(RetentionLocale.rule)") }
        return problems
    }
}
