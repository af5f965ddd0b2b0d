import Foundation
import OfferSignerStore

/// What an administrator asks a webhook to be (`PUT /v1/admin/webhooks/{webhookId}`).
public struct WebhookDefinition: Sendable, Hashable {
    public var url: String
    /// Event type names (`offer.signed`, …), at least one, each once.
    public var events: [String]
    /// Only events of these apps (nil: every app's).
    public var bundleIds: [String]?
    public var enabled: Bool

    public init(url: String, events: [String], bundleIds: [String]?, enabled: Bool) {
        self.url = url
        self.events = events
        self.bundleIds = bundleIds
        self.enabled = enabled
    }
}

/// A webhook saved, with its secret when it was just made (shown this once).
public struct SavedWebhook: Sendable, Hashable {
    public let webhook: StoredWebhookView
    public let created: Bool
    /// The new secret, after a creation or a rotation; nil otherwise.
    public let secret: String?
}

/// A webhook as administrators see it: its secret only by its last four characters.
public struct StoredWebhookView: Sendable, Hashable {
    public let id: String
    public let url: String
    public let events: [String]
    public let bundleIds: [String]?
    public let enabled: Bool
    public let secretLast4: String
    /// Until when the secret before the last rotation is signed with too (nil: none is).
    public let previousSecretExpiresAt: Date?
    public let createdAt: Date
    public let updatedAt: Date
}


extension StoredWebhookView {
    init(_ webhook: StoredWebhook, now: Date) {
        id = webhook.id
        url = webhook.url
        events = webhook.events.map(\.rawValue)
        bundleIds = webhook.bundleIds
        enabled = webhook.enabled
        secretLast4 = String(webhook.secret.suffix(4))
        previousSecretExpiresAt = webhook.previousSecretExpiresAt.flatMap { $0 > now && webhook.previousSecret != nil ? $0 : nil }
        createdAt = webhook.createdAt
        updatedAt = webhook.updatedAt
    }
}
