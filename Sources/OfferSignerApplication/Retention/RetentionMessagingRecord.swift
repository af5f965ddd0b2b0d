import AppStoreServerAPI
import Foundation
import OfferSignerCore

/// What the service configured at Apple's Retention Messaging API, kept in the rule store's
/// log like a rule (kind `retention-messaging`): one record per message, image, default
/// message, real-time URL and performance test, per app and environment, so that every change
/// is recorded with who, when, before and after (`managed_rule_changes`), and the service keeps
/// what Apple's lists do not return (a message's text, an image's size and digest).
///
/// `enabled` is whether the thing is configured at Apple: a delete records it `false`.
public struct RetentionMessagingRecord: ManagedRule {
    public static let kind = "retention-messaging"

    /// `<environment>:<item>:<key>`, e.g. `Production:message:4b1f…`, `Sandbox:default:pro_monthly:en-US`.
    public var ruleId: String
    public var bundleId: String
    public var enabled: Bool
    public var priority: Int { 0 }
    /// `Production` or `Sandbox`.
    public var environment: String
    public var item: Item
    /// A message: its identifier and what was uploaded.
    public var messageIdentifier: String?
    public var message: UploadMessageRequestBody?
    /// An image: its identifier and what was uploaded (not the PNG itself).
    public var imageIdentifier: String?
    public var image: ImageFacts?
    /// A default message: the product and locale it is the default of (and `messageIdentifier`).
    public var productId: String?
    public var locale: String?
    /// The real-time URL.
    public var realtimeURL: String?
    /// A performance test: the subscription it was started for and Apple's request ID.
    public var originalTransactionId: String?
    public var requestId: String?

    /// What a record is about.
    public enum Item: String, Codable, Hashable, Sendable {
        case message, image, defaultMessage, realtimeURL, performanceTest
    }

    /// An uploaded image, described.
    public struct ImageFacts: Codable, Hashable, Sendable {
        public var imageSize: ImageSize
        public var width: Int
        public var height: Int
        public var bytes: Int
        /// SHA-256 of the PNG, in hex.
        public var sha256: String

        public init(_ image: RetentionImage, size: ImageSize) {
            imageSize = size
            width = image.width
            height = image.height
            bytes = image.png.count
            sha256 = SHA256Digest.hex(image.png)
        }
    }

    public init(bundleId: String, environment: String, item: Item, key: String, enabled: Bool = true) {
        self.ruleId = Self.ruleId(environment: environment, item: item, key: key)
        self.bundleId = bundleId
        self.enabled = enabled
        self.environment = environment
        self.item = item
    }

    /// The record ID of `item` `key` in `environment`.
    public static func ruleId(environment: String, item: Item, key: String) -> String {
        "\(environment):\(item.rawValue):\(key)"
    }

    enum CodingKeys: String, CodingKey {
        case ruleId, bundleId, enabled, environment, item, messageIdentifier, message, imageIdentifier, image, productId, locale
        case realtimeURL, originalTransactionId, requestId
    }

    /// Checked where each is made (Apple's limits, identifiers); nothing more to say here.
    public func validationProblems() -> [String] { [] }

    /// The images each message of `records` in `environment` shows (its image and its bullet
    /// points' images), by message identifier, all lowercased; deleted messages left out.
    public static func imagesByMessage(_ records: [RetentionMessagingRecord], environment: String) -> [String: [String]] {
        var images: [String: [String]] = [:]
        for record in records where record.enabled && record.item == .message && record.environment == environment {
            guard let identifier = record.messageIdentifier, let message = record.message else { continue }
            images[identifier.lowercased()] = message.imageIdentifiers.map { $0.lowercased() }
        }
        return images
    }
}
