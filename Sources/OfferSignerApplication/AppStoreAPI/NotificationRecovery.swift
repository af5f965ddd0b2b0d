import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// Recovers notifications the webhook missed: reads Get Notification History for a time window
/// and stores every notification not seen before, each verified exactly as the webhook verifies
/// it (a repeated `notificationUUID` changes nothing). A window read to its end is recorded, so
/// the scheduled recovery knows where the next one starts.
package struct NotificationRecovery: Sendable {
    let clients: AppStoreAPIClients
    let ingestor: HistoryIngestor
    let syncStore: any AppStoreSyncStore
    /// The next scheduled window starts this long before the last one ended, for notifications
    /// Apple lists a little late.
    var overlap: TimeInterval = 300
    /// How far back the first scheduled window reaches, when none is recorded.
    var firstLookback: TimeInterval = 86_400

    package init(clients: AppStoreAPIClients, ingestor: HistoryIngestor, syncStore: any AppStoreSyncStore) {
        self.clients = clients
        self.ingestor = ingestor
        self.syncStore = syncStore
    }

    /// What one window brought.
    struct Outcome: Sendable, Equatable {
        var bundleId: String
        var environment: AppStoreServerAPIEnvironment
        var start: Date
        var end: Date
        /// The asked start, when Apple's retention cut the window short (its part before `start` is gone).
        var requestedStart: Date?
        /// Notifications Apple listed.
        var found = 0
        /// Of those, new here and stored.
        var stored = 0
        /// Of those, already stored (by the webhook or an earlier recovery).
        var duplicates = 0
        /// Of those, refused by verification (nothing stored).
        var refusedCount = 0
        /// The reasons of the first ``keptRefusals`` refusals (the rest are only counted).
        var refusals: [String] = []
        var pages = 0
        /// The bound that stopped the window (`1000 pages`, `600 seconds`), nil when none did.
        var boundReached: String?
        /// Whether the window was read to its end (and so recorded).
        var complete = false
    }

    /// Why a window could not be recovered.
    enum Failure: Error, Sendable, CustomStringConvertible {
        case unavailable(AppStoreAPIUnavailable)
        case api(AppStoreServerAPIError)
        /// The notifications could not be stored, or the window not recorded.
        case storage(String)
        case emptyWindow(start: Date, end: Date)

        var description: String {
            switch self {
            case .unavailable(let reason): reason.description
            case .api(let error): error.description
            case .storage(let reason): "the notifications could not be stored: \(reason)"
            case .emptyWindow(let start, let end):
                "the window \(RFC3339.string(from: start)) to \(RFC3339.string(from: end)) is empty or lies wholly before what Apple keeps"
            }
        }
    }

    /// Refusal reasons kept per window: a history of forgeries page after page is counted, not held.
    static let keptRefusals = 20

    /// The default bound of one window: pages read (`OFFER_SIGNER_RECOVER_MAX_PAGES`).
    package static let defaultMaxPages = 1000
    /// The default bound of one window: seconds spent reading it (`OFFER_SIGNER_RECOVER_MAX_DURATION`).
    package static let defaultMaxSeconds = 600

    /// How far one window is read before it stops by itself (incomplete, not recorded; the next
    /// run reads it again), so a history that pages for ever never holds a run or `serve` for ever.
    package var maxPages = NotificationRecovery.defaultMaxPages
    package var maxSeconds = NotificationRecovery.defaultMaxSeconds

    /// How long Apple keeps notification history: 180 days in production, 30 in the sandbox.
    static func retention(_ environment: AppStoreServerAPIEnvironment) -> TimeInterval {
        (environment == .production ? 180 : 30) * 86_400
    }

    /// Recovers `from`..<`to` of `bundleId` in `environment`. `shouldStop` is polled between
    /// pages; after `maxPages` pages (the recovery's own bound when nil) or `maxSeconds` seconds
    /// the window stops there too (incomplete, not recorded, the bound named in the outcome).
    func recover(bundleId: String, environment: AppStoreServerAPIEnvironment, from: Date, to: Date, maxPages: Int? = nil,
                 shouldStop: () -> Bool = { false }) throws(Failure) -> Outcome {
        let now = ingestor.clock.now
        // A little inside Apple's limit, so the request is not refused for a start that has just left it.
        let oldest = now.addingTimeInterval(-Self.retention(environment) + 3600)
        let start = max(from, oldest)
        let end = min(to, now)
        guard start < end else { throw .emptyWindow(start: from, end: to) }
        let client: AppStoreServerAPIClient
        do {
            client = try clients.client(bundleId: bundleId, environment: environment)
        } catch {
            throw .unavailable(error)
        }
        var outcome = Outcome(bundleId: bundleId, environment: environment, start: start, end: end,
                              requestedStart: start > from ? from : nil)
        var storageFailure: String?
        var stopped = false
        let pageBound = maxPages ?? self.maxPages
        let secondsBound = maxSeconds
        let deadline = ContinuousClock.now + .seconds(secondsBound)
        do {
            try client.notificationHistory(NotificationHistoryRequest(startDate: start, endDate: end)) { (page) -> Bool in
                outcome.pages += 1
                var items: [HistoryItem] = []
                for item in page.notificationHistory {
                    outcome.found += 1
                    do throws(SignedItemRefusal) {
                        items.append(try ingestor.verifyNotification(item.signedPayload))
                    } catch {
                        outcome.refusedCount += 1
                        if outcome.refusals.count < Self.keptRefusals { outcome.refusals.append(error.description) }
                    }
                }
                do {
                    for changed in try ingestor.history.record(batch: items) {
                        if changed { outcome.stored += 1 } else { outcome.duplicates += 1 }
                    }
                } catch {
                    storageFailure = "\(error)"
                    return false
                }
                guard page.hasMore else { return true }
                if outcome.pages >= pageBound {
                    outcome.boundReached = pageBound == 1 ? "1 page" : "\(pageBound) pages"
                } else if ContinuousClock.now >= deadline {
                    outcome.boundReached = "\(secondsBound) seconds"
                }
                if outcome.boundReached != nil || shouldStop() {
                    stopped = true
                    return false
                }
                return true
            }
        } catch {
            throw .api(error)
        }
        if let storageFailure { throw .storage(storageFailure) }
        if stopped { return outcome }
        do {
            try syncStore.recordRecoveredWindow(RecoveredWindow(
                bundleId: bundleId, environment: environment.rawValue, start: start.milliseconds, end: end.milliseconds,
                found: outcome.found, stored: outcome.stored, completedAt: ingestor.clock.now.milliseconds))
        } catch {
            throw .storage("\(error)")
        }
        outcome.complete = true
        return outcome
    }

    /// Recovers the time since the last recorded window of `bundleId` in `environment` (less
    /// the overlap), or the last `firstLookback` when none is recorded, up to now.
    func recoverSinceLast(bundleId: String, environment: AppStoreServerAPIEnvironment,
                          shouldStop: () -> Bool = { false }) throws(Failure) -> Outcome {
        let now = ingestor.clock.now
        let last: RecoveredWindow?
        do {
            last = try syncStore.lastRecoveredWindow(bundleId: bundleId, environment: environment.rawValue)
        } catch {
            throw .storage("\(error)")
        }
        let from = last.map { Date(milliseconds: $0.end).addingTimeInterval(-overlap) } ?? now.addingTimeInterval(-firstLookback)
        return try recover(bundleId: bundleId, environment: environment, from: from, to: now, shouldStop: shouldStop)
    }
}
