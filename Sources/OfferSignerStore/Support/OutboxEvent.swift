import Foundation
import OfferSignerCore

/// What ``WebhookOutbox`` writes of an event: whom it goes to (its type and app), its row's
/// columns and the document posted to receivers, made only when some webhook takes it.
protocol OutboxEvent {
    var id: String { get }
    var type: WebhookEventType { get }
    var bundleId: String? { get }
    var orderingKey: String { get }
    var occurredAt: Date { get }
    /// The JSON document posted to receivers.
    var document: String { get }
}

extension WebhookEvent: OutboxEvent {}
