/// A retention message's text, its optional image and bullet points: the body of Upload Message.
///
/// [UploadMessageRequestBody](https://developer.apple.com/documentation/retentionmessaging/uploadmessagerequestbody)
public struct UploadMessageRequestBody: Codable, Hashable, Sendable {
    /// Text above the body (or above the image, with `headerPosition` `ABOVE_IMAGE`); at most 66 characters.
    public var header: String
    /// The message's main text; at most 144 characters.
    public var body: String
    /// A full-size image shown with the message (text-based messages only).
    public var image: UploadMessageImage?
    /// `ABOVE_BODY` (Apple's default) or `ABOVE_IMAGE` (which needs an image).
    public var headerPosition: HeaderPosition?
    /// At most five bullet points, each with a bullet-point image.
    public var bulletPoints: [BulletPoint]?

    /// Apple's documented limits (Upload Message): header 66, body 144, alternative text 150
    /// characters, at most 5 bullet points.
    public static let maxHeaderLength = 66
    public static let maxBodyLength = 144
    public static let maxAltTextLength = 150
    public static let maxBulletPoints = 5

    /// Every way the message breaks Apple's documented rules (and ours: no control characters,
    /// Cc, in any text), as sentences naming the field; empty when they are kept. Lengths count Unicode scalars (characters, not bytes;
    /// a letter with a combining accent counts two, as JSON Schema's `maxLength` counts).
    public var problems: [String] {
        var problems: [String] = []
        func text(_ name: String, _ value: String, max: Int) {
            let length = value.unicodeScalars.count
            if length == 0 {
                problems.append("'\(name)' must not be empty")
            } else if let control = value.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                let hex = String(control.value, radix: 16, uppercase: true)
                problems.append("'\(name)' has the control character U+\(String(repeating: "0", count: 4 - hex.count) + hex); a message is plain text without control characters")
            } else if length > max {
                problems.append("'\(name)' is \(length) characters; Apple takes at most \(max)")
            }
        }
        text("header", header, max: Self.maxHeaderLength)
        text("body", body, max: Self.maxBodyLength)
        if let image {
            if !RetentionIdentifier.isValid(image.imageIdentifier) {
                problems.append("'image.imageIdentifier' must be a UUID (\(RetentionIdentifier.rule))")
            }
            text("image.altText", image.altText, max: Self.maxAltTextLength)
        }
        if headerPosition == .aboveImage && image == nil {
            problems.append("'headerPosition' ABOVE_IMAGE needs an 'image' (Apple's BadRequestAboveImageRequiresAnImageError)")
        }
        if let bulletPoints {
            if bulletPoints.count > Self.maxBulletPoints {
                problems.append("'bulletPoints' has \(bulletPoints.count) items; Apple takes at most \(Self.maxBulletPoints)")
            }
            for (index, point) in bulletPoints.enumerated() {
                text("bulletPoints[\(index)].text", point.text, max: Self.maxBodyLength)
                if !RetentionIdentifier.isValid(point.imageIdentifier) {
                    problems.append("'bulletPoints[\(index)].imageIdentifier' must be a UUID (\(RetentionIdentifier.rule))")
                }
                text("bulletPoints[\(index)].altText", point.altText, max: Self.maxAltTextLength)
            }
        }
        return problems
    }

    /// Every image the message uses: its image, then its bullet points' images.
    public var imageIdentifiers: [String] {
        (image.map { [$0.imageIdentifier] } ?? []) + (bulletPoints ?? []).map(\.imageIdentifier)
    }
}

/// An image shown with a message, with its alternative text.
///
/// [UploadMessageImage](https://developer.apple.com/documentation/retentionmessaging/uploadmessageimage)
public struct UploadMessageImage: Codable, Hashable, Sendable {
    /// The UUID the image was uploaded under (a `FULL_SIZE` image).
    public var imageIdentifier: String
    /// At most 150 characters.
    public var altText: String
}

/// One item of a message's bulleted list.
///
/// [BulletPoint](https://developer.apple.com/documentation/retentionmessaging/bulletpoint)
public struct BulletPoint: Codable, Hashable, Sendable {
    public var text: String
    /// The UUID of a `BULLET_POINT` image used as the bullet.
    public var imageIdentifier: String
    public var altText: String
}

/// Where a message's header appears.
///
/// [headerPosition](https://developer.apple.com/documentation/retentionmessaging/headerposition)
public enum HeaderPosition: String, Codable, Hashable, Sendable, CaseIterable {
    case aboveBody = "ABOVE_BODY"
    case aboveImage = "ABOVE_IMAGE"
}
