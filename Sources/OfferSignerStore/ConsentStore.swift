import Foundation
import OfferSignerCore

/// Consent rescinded and cleared, per app download (`appTransactionId`) and environment: each
/// `RESCIND_CONSENT` notification (once, by its UUID) and each clearing (who and why) is an
/// event kept for good; the latest event of an app download (by when it happened) says
/// whether its consent is rescinded now, so a notification delivered late, signed before a
/// clearing, does not undo it. No event counts from later than it was recorded: a rescinding
/// is dated at its notification's `signedDate`, or when it was received if that is earlier
/// (a `signedDate` ahead of the service's clock is clamped), and a clearing when it is made.
///
/// Rescindings are written by the history store, with the notification that carries them.
public protocol ConsentStore: Sendable {
    /// Records that `appTransactionId`'s rescinded consent (in every environment where it is
    /// rescinded) no longer holds; the consents it cleared, empty when none was rescinded.
    func clear(appTransactionId: String, by actor: String, reason: String, at now: Date) throws -> [ConsentEvent]
    /// The rescindings in force among `appTransactionIds` in `environment`.
    func rescinded(appTransactionIds: [String], environment: AppStoreEnvironment) throws -> [ConsentEvent]
    /// The event with this ID, nil when there is none.
    func event(id: Int64) throws -> ConsentEvent?
    /// Every event of the app `bundleId` (of every app when nil), oldest first, after the event `afterId`.
    func events(bundleId: String?, afterId: Int64, limit: Int) throws -> [ConsentEvent]
}

/// One rescinding or clearing of consent for an app download.
public struct ConsentEvent: Sendable, Hashable {
    public enum Action: String, Sendable, Hashable {
        /// A `RESCIND_CONSENT` notification: a parent or guardian withdrew consent.
        case rescind
        /// An operator lifted it (`offer-signer consent clear` or the admin API).
        case clear
    }

    /// The store's ID, ascending; 0 before the event is stored.
    public var id: Int64 = 0
    public var appTransactionId: String
    public var environment: AppStoreEnvironment
    public var bundleId: String
    public var action: Action
    /// When it happened: the notification's `signedDate` (never later than ``recordedAt``), or when it was cleared.
    public var at: Date
    /// When the service recorded it.
    public var recordedAt: Date
    /// The notification that rescinded consent.
    public var notificationUUID: String?
    /// Who cleared it (the API key's or the operator's name).
    public var actor: String?
    /// Why it was cleared.
    public var reason: String?

    /// When it counts from: ``at``, or ``recordedAt`` when that is earlier (so an event stored
    /// before dates were clamped, dated in the future, does not outlast later ones).
    public var countsFrom: Date { min(at, recordedAt) }

    /// Of several events of one app download and environment, the one in force: the latest by
    /// ``countsFrom``, then by ``id``.
    public static func inForce(_ events: [ConsentEvent]) -> [ConsentEvent] {
        var latest: [String: ConsentEvent] = [:]
        for event in events {
            let key = event.environment.rawValue + "\u{0}" + event.appTransactionId
            if let kept = latest[key], (kept.countsFrom, kept.id) >= (event.countsFrom, event.id) { continue }
            latest[key] = event
        }
        return latest.values.sorted { ($0.appTransactionId, $0.environment.rawValue) < ($1.appTransactionId, $1.environment.rawValue) }
    }
}
