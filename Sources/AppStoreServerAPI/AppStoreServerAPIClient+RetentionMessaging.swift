import Foundation
import OfferSignerCore

/// The Retention Messaging API (`/inApps/v1/messaging`), on the same host, JWT, retries and
/// request-rate limit as the App Store Server API calls. Every identifier and Apple's
/// documented limits are checked before anything is sent (``AppStoreServerAPIError/invalidArgument(_:)``).
///
/// [Retention Messaging API](https://developer.apple.com/documentation/retentionmessaging)
extension AppStoreServerAPIClient {
    static let messagingPath = "/inApps/v1/messaging"

    // MARK: Messages

    /// Upload Message: `PUT /inApps/v1/messaging/message/{messageIdentifier}`. Not idempotent:
    /// a second upload of one identifier is refused by Apple (409 `MessageAlreadyExistsError`).
    public func uploadMessage(messageIdentifier: String, _ message: UploadMessageRequestBody) throws(AppStoreServerAPIError) {
        try Self.checkRetentionIdentifier(messageIdentifier, "message identifier")
        if let problem = message.problems.first { throw .invalidArgument(problem) }
        try sendWithoutAnswer(APIRequest(method: "PUT", path: Self.messagingPath + "/message/" + messageIdentifier, body: try Self.json(message)))
    }

    /// Delete Message: `DELETE /inApps/v1/messaging/message/{messageIdentifier}`.
    public func deleteMessage(messageIdentifier: String) throws(AppStoreServerAPIError) {
        try Self.checkRetentionIdentifier(messageIdentifier, "message identifier")
        try sendWithoutAnswer(APIRequest(method: "DELETE", path: Self.messagingPath + "/message/" + messageIdentifier))
    }

    /// Get Message List: `GET /inApps/v1/messaging/message/list`.
    public func messageList() throws(AppStoreServerAPIError) -> GetMessageListResponse {
        try send(APIRequest(method: "GET", path: Self.messagingPath + "/message/list"), transactionId: nil, as: GetMessageListResponse.self)
    }

    // MARK: Images

    /// Upload Image: `PUT /inApps/v1/messaging/image/{imageIdentifier}?imageSize=`, the PNG as the body (`image/png`).
    public func uploadImage(imageIdentifier: String, _ image: RetentionImage, size: ImageSize) throws(AppStoreServerAPIError) {
        try Self.checkRetentionIdentifier(imageIdentifier, "image identifier")
        var request = APIRequest(method: "PUT", path: Self.messagingPath + "/image/" + imageIdentifier, query: [("imageSize", size.rawValue)],
                                 body: image.png)
        request.contentType = "image/png"
        try sendWithoutAnswer(request)
    }

    /// Delete Image: `DELETE /inApps/v1/messaging/image/{imageIdentifier}`.
    public func deleteImage(imageIdentifier: String) throws(AppStoreServerAPIError) {
        try Self.checkRetentionIdentifier(imageIdentifier, "image identifier")
        try sendWithoutAnswer(APIRequest(method: "DELETE", path: Self.messagingPath + "/image/" + imageIdentifier))
    }

    /// Get Image List: `GET /inApps/v1/messaging/image/list`.
    public func imageList() throws(AppStoreServerAPIError) -> GetImageListResponse {
        try send(APIRequest(method: "GET", path: Self.messagingPath + "/image/list"), transactionId: nil, as: GetImageListResponse.self)
    }

    // MARK: Default messages

    /// Configure Default Message: `PUT /inApps/v1/messaging/default/{productId}/{locale}`.
    public func configureDefaultMessage(productId: String, locale: String, _ request: DefaultConfigurationRequest) throws(AppStoreServerAPIError) {
        try Self.checkRetentionIdentifier(request.messageIdentifier, "message identifier")
        try sendWithoutAnswer(APIRequest(method: "PUT", path: try Self.defaultPath(productId, locale), body: try Self.json(request)))
    }

    /// Delete Default Message: `DELETE /inApps/v1/messaging/default/{productId}/{locale}`.
    public func deleteDefaultMessage(productId: String, locale: String) throws(AppStoreServerAPIError) {
        try sendWithoutAnswer(APIRequest(method: "DELETE", path: try Self.defaultPath(productId, locale)))
    }

    /// Get Default Message: `GET /inApps/v1/messaging/default/{productId}/{locale}`.
    public func defaultMessage(productId: String, locale: String) throws(AppStoreServerAPIError) -> DefaultConfigurationResponse {
        try send(APIRequest(method: "GET", path: try Self.defaultPath(productId, locale)), transactionId: nil,
                 as: DefaultConfigurationResponse.self)
    }

    // MARK: Real-time URL

    /// Configure Realtime URL: `PUT /inApps/v1/messaging/realtime/url`.
    public func configureRealtimeURL(_ url: RealtimeURL) throws(AppStoreServerAPIError) {
        if let problem = url.problem { throw .invalidArgument(problem) }
        try sendWithoutAnswer(APIRequest(method: "PUT", path: Self.messagingPath + "/realtime/url", body: try Self.json(url)))
    }

    /// Delete Realtime URL: `DELETE /inApps/v1/messaging/realtime/url`.
    public func deleteRealtimeURL() throws(AppStoreServerAPIError) {
        try sendWithoutAnswer(APIRequest(method: "DELETE", path: Self.messagingPath + "/realtime/url"))
    }

    /// Get Realtime URL: `GET /inApps/v1/messaging/realtime/url`.
    public func realtimeURL() throws(AppStoreServerAPIError) -> RealtimeURL {
        try send(APIRequest(method: "GET", path: Self.messagingPath + "/realtime/url"), transactionId: nil, as: RealtimeURL.self)
    }

    // MARK: Performance test

    /// Initiate Performance Test: `POST /inApps/v1/messaging/performanceTest` (Sandbox).
    public func initiatePerformanceTest(_ request: PerformanceTestRequest) throws(AppStoreServerAPIError) -> PerformanceTestResponse {
        try Self.checkTransactionId(request.originalTransactionId)
        return try send(APIRequest(method: "POST", path: Self.messagingPath + "/performanceTest", body: try Self.json(request)),
                        transactionId: request.originalTransactionId, as: PerformanceTestResponse.self)
    }

    /// Get Performance Test Results: `GET /inApps/v1/messaging/performanceTest/result/{requestId}`.
    public func performanceTestResult(requestId: String) throws(AppStoreServerAPIError) -> PerformanceTestResultResponse {
        // Apple's own UUID, sent back as Apple wrote it: either case.
        try Self.checkRetentionIdentifier(requestId.lowercased(), "performance test request ID")
        return try send(APIRequest(method: "GET", path: Self.messagingPath + "/performanceTest/result/" + requestId), transactionId: nil,
                        as: PerformanceTestResultResponse.self)
    }

    // MARK: Checks

    /// Sends `request` and expects a success without a body worth reading.
    private func sendWithoutAnswer(_ request: APIRequest) throws(AppStoreServerAPIError) {
        _ = try exchange(request, transactionId: nil)
    }

    static func checkRetentionIdentifier(_ identifier: String, _ name: String) throws(AppStoreServerAPIError) {
        guard RetentionIdentifier.isValid(identifier) else {
            throw .invalidArgument("a \(name) is a UUID: \(RetentionIdentifier.rule)")
        }
    }

    /// The path of a product's default message in a locale, both checked and percent-encoded.
    static func defaultPath(_ productId: String, _ locale: String) throws(AppStoreServerAPIError) -> String {
        guard Identifier.isValid(productId) else { throw .invalidArgument("a product ID is 1–256 visible ASCII characters") }
        guard RetentionLocale.isValid(locale) else { throw .invalidArgument("a locale is \(RetentionLocale.rule)") }
        return messagingPath + "/default/" + percentEncoded(productId) + "/" + percentEncoded(locale)
    }

    static func json(_ value: some Encodable) throws(AppStoreServerAPIError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw .invalidArgument("the request body does not encode as JSON")
        }
    }
}

/// The locales of default messages: a language and optional region or script subtags
/// (`en`, `en-US`, `zh-Hans-CN`; `_` is taken for `-`), as Apple's storefront locales are written.
public enum RetentionLocale {
    public static let rule = "a language code with optional subtags, e.g. en-US or zh-Hans-CN (at most 35 characters)"

    public static func isValid(_ locale: String) -> Bool {
        let parts = locale.split(separator: "-", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard locale.utf8.count <= 35, let language = parts.first, (2...3).contains(language.count),
              language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
