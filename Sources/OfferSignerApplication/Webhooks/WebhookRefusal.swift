/// Why a webhook administration request is refused.
public enum WebhookRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The definition breaks these rules (each named).
    case invalid([String])
    /// The URL breaks the address rules (SSRF).
    case urlRefused(String)
    /// No webhook has this ID.
    case notFound(String)
    /// The webhook has no delivery of this event.
    case deliveryNotFound(webhookId: String, eventId: String)

    public var description: String {
        switch self {
        case .invalid(let problems): problems.joined(separator: "; ")
        case .urlRefused(let reason): reason
        case .notFound(let id): "no webhook '\(id)' is configured"
        case .deliveryNotFound(let id, let eventId): "the webhook '\(id)' has no delivery of the event '\(eventId)'"
        }
    }
}
