import Foundation

/// One event for webhooks: what the service learnt, as the document a receiver gets
/// (`{"id","type","occurredAt","bundleId","environment","data"}`). It names users by the IDs
/// the app gave and never carries a secret, a proof JWS or a signature a customer could replay.
public struct WebhookEvent: Sendable, Hashable {
    /// A time-ordered (version 7) UUID, lowercased: receivers deduplicate by it. Time-ordered so
    /// that the outbox's index of events grows at its end (inside the signature batch's commit)
    /// instead of touching a random page for every event.
    public let id: String
    public let type: WebhookEventType
    public let occurredAt: Date
    /// The app, or nil for an event of the whole service (`chain.integrity_failed`).
    public let bundleId: String?
    /// `Production` or `Sandbox`, or nil when the event is of no one environment.
    public let environment: String?
    /// Whom the event concerns, for keeping events of one user in order (the user ID, else a
    /// transaction or app download ID); not part of the document.
    public let orderingKey: String
    /// The event's own fields.
    public let data: [String: JSONValue]

    public init(id: String = SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID()), type: WebhookEventType, occurredAt: Date,
                bundleId: String?, environment: String?, orderingKey: String, data: [String: JSONValue]) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.bundleId = bundleId
        self.environment = environment
        self.orderingKey = orderingKey
        self.data = data
    }

    /// The JSON document posted to receivers, members in the documented order, times in RFC 3339.
    public var document: String {
        JSONValue.object([
            ("id", .string(id)), ("type", .string(type.rawValue)), ("occurredAt", .string(RFC3339.string(from: occurredAt))),
            ("bundleId", bundleId.map(JSONValue.string) ?? .null), ("environment", environment.map(JSONValue.string) ?? .null),
            ("data", .dictionary(data)),
        ])
    }
}
