import Foundation
import OfferSignerCore
import OfferSignerStore

/// Lifting a rescinded consent (`offer-signer consent clear`, `POST
/// /v1/admin/consents/{appTransactionId}/clear`, or by the rescinding's event ID, `POST
/// /v1/admin/consents/events/{eventId}/clear`, which clears whatever app transaction ID Apple
/// sent, even one no path or option can carry): recorded for good with who and why, dated when
/// it is made, after which the customer is offered what the rules allow again. The service does not decide
/// whether consent was given again; the operator who clears it says why they may.
public struct ConsentClearing: Sendable {
    let consents: any ConsentStore
    let clock: WallClock

    public init(consents: any ConsentStore, clock: WallClock) {
        self.consents = consents
        self.clock = clock
    }

    /// Why a clearing was refused.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The app transaction ID is empty, too long or not printable.
        case invalidAppTransactionId
        /// The reason is empty, longer than ``maxReasonLength`` or has a character ``FreeText`` refuses.
        case invalidReason
        /// No consent of this app download is rescinded now.
        case notRescinded(appTransactionId: String)
        /// No consent event has this ID.
        case noSuchEvent(id: Int64)
        /// The event is a clearing, not a rescinding.
        case notARescinding(id: Int64)

        public var description: String {
            switch self {
            case .invalidAppTransactionId:
                "the app transaction ID must be 1–256 visible ASCII characters"
            case .invalidReason:
                "the reason must be 1–\(ConsentClearing.maxReasonLength) characters, without control, bidirectional-override or zero-width characters"
            case .notRescinded(let appTransactionId):
                "no consent of app transaction \(appTransactionId) is rescinded"
            case .noSuchEvent(let id):
                "no consent event has ID \(id)"
            case .notARescinding(let id):
                "consent event \(id) is a clearing, not a rescinding"
            }
        }
    }

    /// The longest reason kept.
    public static let maxReasonLength = 1000

    /// Clears the consent rescinded for `appTransactionId` (in every environment), recording
    /// `actor` and `reason`; the events recorded.
    public func clear(appTransactionId: String, reason: String, by actor: String) throws -> [ConsentEvent] {
        guard Identifier.isValid(appTransactionId) else { throw Refusal.invalidAppTransactionId }
        let trimmed = try Self.checked(reason)
        let cleared = try consents.clear(appTransactionId: appTransactionId, by: actor, reason: trimmed, at: clock.now)
        guard !cleared.isEmpty else { throw Refusal.notRescinded(appTransactionId: appTransactionId) }
        return cleared
    }

    /// Clears the consent the rescinding `eventId` withdrew (its app download, in every
    /// environment where it is rescinded now), whatever its app transaction ID is: empty, over
    /// 256 characters or not ASCII, as Apple may send it, it is still cleared this way.
    public func clear(eventId: Int64, reason: String, by actor: String) throws -> [ConsentEvent] {
        let trimmed = try Self.checked(reason)
        guard let event = try consents.event(id: eventId) else { throw Refusal.noSuchEvent(id: eventId) }
        guard event.action == .rescind else { throw Refusal.notARescinding(id: eventId) }
        let cleared = try consents.clear(appTransactionId: event.appTransactionId, by: actor, reason: trimmed, at: clock.now)
        guard !cleared.isEmpty else { throw Refusal.notRescinded(appTransactionId: event.appTransactionId) }
        return cleared
    }

    /// The reason, trimmed, or the refusal.
    private static func checked(_ reason: String) throws -> String {
        let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= Self.maxReasonLength, FreeText.refusedCharacter(in: trimmed) == nil else {
            throw Refusal.invalidReason
        }
        return trimmed
    }
}
