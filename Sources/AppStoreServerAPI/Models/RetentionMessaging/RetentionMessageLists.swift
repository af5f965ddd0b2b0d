/// Get Message List's answer: every uploaded message with its approval state.
///
/// [GetMessageListResponse](https://developer.apple.com/documentation/retentionmessaging/getmessagelistresponse)
public struct GetMessageListResponse: Codable, Hashable, Sendable {
    public var messageIdentifiers: [GetMessageListResponseItem]?

    public init(messageIdentifiers: [GetMessageListResponseItem]?) {
        self.messageIdentifiers = messageIdentifiers
    }
}

/// [GetMessageListResponseItem](https://developer.apple.com/documentation/retentionmessaging/getmessagelistresponseitem)
public struct GetMessageListResponseItem: Codable, Hashable, Sendable {
    public var messageIdentifier: String
    /// `PENDING`, `APPROVED` or `REJECTED` (a value Apple adds later is kept as sent).
    public var messageState: RetentionApprovalState
}

/// Get Image List's answer: every uploaded image with its approval state.
///
/// [GetImageListResponse](https://developer.apple.com/documentation/retentionmessaging/getimagelistresponse)
public struct GetImageListResponse: Codable, Hashable, Sendable {
    public var imageIdentifiers: [GetImageListResponseItem]?

    public init(imageIdentifiers: [GetImageListResponseItem]?) {
        self.imageIdentifiers = imageIdentifiers
    }
}

/// [GetImageListResponseItem](https://developer.apple.com/documentation/retentionmessaging/getimagelistresponseitem)
public struct GetImageListResponseItem: Codable, Hashable, Sendable {
    public var imageIdentifier: String
    public var imageState: RetentionApprovalState
}

/// Apple's review state of a message or image ([messageState](https://developer.apple.com/documentation/retentionmessaging/messagestate),
/// [imageState](https://developer.apple.com/documentation/retentionmessaging/imagestate)); only an
/// `APPROVED` message (with an `APPROVED` image) is shown to customers.
public struct RetentionApprovalState: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let pending = RetentionApprovalState(rawValue: "PENDING")
    public static let approved = RetentionApprovalState(rawValue: "APPROVED")
    public static let rejected = RetentionApprovalState(rawValue: "REJECTED")

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
