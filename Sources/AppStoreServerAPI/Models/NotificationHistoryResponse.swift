/// One page of the notifications the App Store sent, or tried to send, to the app's server.
///
/// [NotificationHistoryResponse](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse)
public struct NotificationHistoryResponse: Decodable, Hashable, Sendable {
    /// The token that asks for the next page; present when ``hasMore``.
    public var paginationToken: String?
    /// Whether more pages follow.
    public var hasMore: Bool
    /// Up to 20 notifications.
    public var notificationHistory: [NotificationHistoryResponseItem]
}

/// A notification and Apple's attempts to deliver it.
///
/// [notificationHistoryResponseItem](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem)
public struct NotificationHistoryResponseItem: Decodable, Hashable, Sendable {
    /// The notification's `signedPayload` (JWS), exactly as the webhook would have received it.
    public var signedPayload: String
    /// Apple's delivery attempts, oldest first.
    public var sendAttempts: [SendAttemptItem]
}

extension NotificationHistoryResponseItem {
    enum CodingKeys: String, CodingKey {
        case signedPayload, sendAttempts
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        signedPayload = try container.decode(String.self, forKey: .signedPayload)
        sendAttempts = try container.decodeIfPresent([SendAttemptItem].self, forKey: .sendAttempts) ?? []
    }
}

/// One attempt to deliver a notification.
///
/// [sendAttemptItem](https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem)
public struct SendAttemptItem: Decodable, Hashable, Sendable {
    /// When Apple tried, in milliseconds since 1970.
    public var attemptDate: Int64
    /// The outcome as Apple sent it; see ``sendAttemptResult``.
    public var rawSendAttemptResult: String

    /// The outcome, or nil for a value this code does not know yet.
    public var sendAttemptResult: SendAttemptResult? { SendAttemptResult(rawValue: rawSendAttemptResult) }

    enum CodingKeys: String, CodingKey {
        case attemptDate
        case rawSendAttemptResult = "sendAttemptResult"
    }
}

/// What happened when Apple tried to deliver a notification.
///
/// [sendAttemptResult](https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult)
public enum SendAttemptResult: String, Hashable, Sendable, CaseIterable {
    case success = "SUCCESS"
    case timedOut = "TIMED_OUT"
    case tlsIssue = "TLS_ISSUE"
    case circularRedirect = "CIRCULAR_REDIRECT"
    case noResponse = "NO_RESPONSE"
    case socketIssue = "SOCKET_ISSUE"
    case unsupportedCharset = "UNSUPPORTED_CHARSET"
    case invalidResponse = "INVALID_RESPONSE"
    case prematureClose = "PREMATURE_CLOSE"
    case unsuccessfulHTTPResponseCode = "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
    case other = "OTHER"
}
