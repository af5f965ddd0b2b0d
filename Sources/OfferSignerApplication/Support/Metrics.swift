import Foundation
import OfferSignerCore
import OfferSignerStore
import Synchronization

/// Counters and a latency histogram, rendered in the Prometheus text format.
///
/// Every request counts itself here, from one thread per connection, so the counts are kept
/// in shards, each behind its own `PlainMutex`, and a thread updates the shard its ID picks:
/// with one shared lock the request threads queued on it. Rendering adds the shards up.
public final class Metrics: Sendable {
    private let shards: [Shard] = (0..<16).map { _ in Shard() }

    /// One shard of the counts.
    private final class Shard: Sendable {
        let counts = PlainMutex(Counts())
    }

    /// The shard of the calling thread.
    private var shard: Shard {
        let thread = UInt(bitPattern: Int(bitPattern: pthread_self()))
        return shards[Int((thread >> 12) % UInt(shards.count))]
    }

    /// Upper bounds of the latency histogram, in seconds.
    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct RequestKey: Hashable { let route: String; let method: String; let status: Int }
    private struct SignatureKey: Hashable { let bundleId: String; let offerId: String; let format: String }

    /// Everything counted so far.
    private struct Counts {
        var requests: [RequestKey: Int] = [:]
        var signatures: [SignatureKey: Int] = [:]
        var notifications: [Bool: Int] = [:]
        var unmatchedRedemptions: [SignatureKey: Int] = [:]
        var latencyBuckets = [Int](repeating: 0, count: Metrics.bucketBounds.count)
        var latencyCount = 0
        var latencySum = 0.0

        /// Adds another shard's counts to these.
        mutating func add(_ other: Counts) {
            requests.merge(other.requests, uniquingKeysWith: +)
            signatures.merge(other.signatures, uniquingKeysWith: +)
            notifications.merge(other.notifications, uniquingKeysWith: +)
            unmatchedRedemptions.merge(other.unmatchedRedemptions, uniquingKeysWith: +)
            for index in latencyBuckets.indices { latencyBuckets[index] += other.latencyBuckets[index] }
            latencyCount += other.latencyCount
            latencySum += other.latencySum
        }
    }

    /// Where the log is written: its dropped lines are counted here.
    private let logStream: LogStream
    /// The database whose unavailability is counted here (set once the stores are open).
    private let database = Mutex<DatabaseAvailability?>(nil)
    /// The database writer's batches, records and WAL frames (set once the stores are open).
    private let writer = Mutex<WriterStatistics?>(nil)
    /// App account token links by outcome (rare: one lock is enough).
    private let links = Mutex<[String: Int]>([:])
    /// Catalog syncs by app and outcome, and signatures refused because the offer is not at Apple (rare: one lock each).
    private let catalogSyncs = Mutex<[String: [String: Int]]>([:])
    private let notAtApple = Mutex<[String: [String: Int]]>([:])
    /// Signing requests refused with `chain_regressed`.
    private let chainRegressed = Atomic<Int>(0)
    /// Integrity failures of the signature log's chain other than `chain_regressed`, by where they were found.
    private let chainIntegrityFailures = Mutex<[ChainIntegrityCheck: Int]>([:])
    /// The time each answer to the App Store's Retention Messaging requests took (rare next to signing: one lock).
    private let retentionAnswers = Mutex(LatencyHistogram(bounds: Metrics.retentionBucketBounds))
    /// The active keys' readiness (set once the keys are loaded).
    private let signingKeys = Mutex<SigningKeyReadiness?>(nil)
    /// The root certificates trusted for App Store signed data (set once they are loaded).
    private let trustedRoots = Mutex<[X509Certificate]>([])

    /// Upper bounds of the Retention Messaging answer histogram, in seconds: 0.7 is the time
    /// Apple waits for an answer before it shows its default message.
    static let retentionBucketBounds: [Double] = [0.05, 0.1, 0.25, 0.5, 0.7, 1, 2.5, 5]

    /// Where the signature log's chain was found broken.
    package enum ChainIntegrityCheck: String, CaseIterable, Sendable {
        /// An append was refused: the log does not end where its last commit recorded it
        /// (`SIGNATURE LOG TAMPERED`), other than going backwards (`chain_regressed`, counted apart).
        case append
        /// An integrity walk (`GET /v1/audit/integrity`) found the chain, a checkpoint or a signature bad.
        case walk
    }
    /// Webhook delivery tries that were delivered, and those that failed.
    private let webhookDelivered = Atomic<Int>(0)
    private let webhookFailed = Atomic<Int>(0)
    private let webhookDeadLetters = Atomic<Int>(0)
    /// Seconds since the oldest undelivered webhook event was queued (0: none), as the worker last saw it.
    private let webhookOldest = Mutex<Double>(0)

    /// Users assigned to experiment arms, by app, experiment and arm (once per user: one lock is enough).
    private let assignments = Mutex<[ExperimentArmKey: Int]>([:])

    private struct ExperimentArmKey: Hashable, Comparable {
        let bundleId: String, experimentId: String, armId: String
        static func < (a: Self, b: Self) -> Bool { (a.bundleId, a.experimentId, a.armId) < (b.bundleId, b.experimentId, b.armId) }
    }

    /// - Parameter logStream: the stream the service logs to (standard error).
    public init(logStream: LogStream = .standardError) {
        self.logStream = logStream
    }

    /// Counts, from now on, the calls that found `availability`'s database unavailable.
    package func observe(_ availability: DatabaseAvailability) {
        database.withLock { $0 = availability }
    }

    /// Reports, from now on, what the database's writer does (`offer_signer_signature_log_batches_total` …).
    package func observe(_ statistics: WriterStatistics) {
        writer.withLock { $0 = statistics }
    }

    /// Reports, from now on, how many active keys cannot sign (`offer_signer_signing_keys_unavailable`).
    package func observe(_ readiness: SigningKeyReadiness) {
        signingKeys.withLock { $0 = readiness }
    }

    /// Reports, from now on, when each of `roots` (the roots trusted for App Store signed data) expires.
    package func observe(trustedRoots roots: [X509Certificate]) {
        trustedRoots.withLock { $0 = roots }
    }

    /// Methods counted by name; any other is counted as `other`, so clients cannot grow the table.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]

    package func recordRequest(route: String, method: String, status: Int, seconds: Double) {
        let method = Self.knownMethods.contains(method) ? method : "other"
        shard.counts.withLock { counts in
            counts.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            counts.latencyCount += 1
            counts.latencySum += seconds
            if let bucket = Self.bucketBounds.firstIndex(where: { seconds <= $0 }) {
                counts.latencyBuckets[bucket] += 1
            }
        }
    }

    func recordSignature(bundleId: String, offerId: String, format: String) {
        shard.counts.withLock { $0.signatures[SignatureKey(bundleId: bundleId, offerId: offerId, format: format), default: 0] += 1 }
    }

    package func recordNotification(stored: Bool) {
        shard.counts.withLock { $0.notifications[stored, default: 0] += 1 }
    }

    /// Counts a redemption of a managed offer that no signature issued here explains.
    func recordUnmatchedRedemption(bundleId: String, offerId: String) {
        shard.counts.withLock { $0.unmatchedRedemptions[SignatureKey(bundleId: bundleId, offerId: offerId, format: ""), default: 0] += 1 }
    }

    /// Counts an app account token link by how it ended: `linked`, `refused`, `failed`, or
    /// `dropped` (the queue was full).
    func recordLink(_ outcome: String) {
        links.withLock { $0[outcome, default: 0] += 1 }
    }

    /// Counts an App Store Connect catalog sync of `bundleId` by how it ended (`synced`, `failed`).
    func recordCatalogSync(bundleId: String, outcome: String) {
        catalogSyncs.withLock { $0[bundleId, default: [:]][outcome, default: 0] += 1 }
    }

    /// Counts a signature refused because the fresh catalog says `offerId` does not exist for the product.
    func recordOfferNotAtApple(bundleId: String, offerId: String) {
        notAtApple.withLock { $0[bundleId, default: [:]][offerId, default: 0] += 1 }
    }

    /// A signing request refused because the signature log went backwards (`chain_regressed`).
    func recordChainRegressed() {
        chainRegressed.add(1, ordering: .relaxed)
    }

    /// Counts an integrity failure of the signature log's chain found by `check`.
    package func recordChainIntegrityFailure(_ check: ChainIntegrityCheck) {
        chainIntegrityFailures.withLock { $0[check, default: 0] += 1 }
    }

    /// Counts an answer to the App Store's Retention Messaging request that took `seconds`.
    package func recordRetentionAnswer(seconds: Double) {
        retentionAnswers.withLock { $0.record(seconds) }
    }

    /// Counts a user newly assigned to an experiment's arm.
    func recordAssignment(bundleId: String, experimentId: String, armId: String) {
        assignments.withLock { $0[ExperimentArmKey(bundleId: bundleId, experimentId: experimentId, armId: armId), default: 0] += 1 }
    }

    /// Counts a webhook delivery try: delivered (a 2xx answer) or failed.
    func recordWebhookDelivery(delivered: Bool) {
        if delivered {
            webhookDelivered.add(1, ordering: .relaxed)
        } else {
            webhookFailed.add(1, ordering: .relaxed)
        }
    }

    /// Counts a webhook delivery given up on (dead-lettered).
    func recordWebhookDeadLetter() {
        webhookDeadLetters.add(1, ordering: .relaxed)
    }

    /// The age of the oldest undelivered webhook event (0 when none waits).
    func setWebhookOldestUndelivered(seconds: Double) {
        webhookOldest.withLock { $0 = seconds }
    }

    /// The Prometheus exposition text.
    public func render() -> String {
        let counts = shards.map { shard in shard.counts.withLock { $0 } }.reduce(into: Counts()) { total, part in total.add(part) }
        var out = family("offer_signer_http_requests_total", "HTTP requests by route, method and status.")
        for (key, count) in counts.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out += "offer_signer_http_requests_total{route=\"\(escape(key.route))\",method=\"\(escape(key.method))\",status=\"\(key.status)\"} \(count)\n"
        }
        out += family("offer_signer_signatures_total", "Signatures issued by app, offer and format.")
        for (key, count) in counts.signatures.sorted(by: {
            ($0.key.bundleId, $0.key.offerId, $0.key.format) < ($1.key.bundleId, $1.key.offerId, $1.key.format)
        }) {
            out += "offer_signer_signatures_total{bundle_id=\"\(escape(key.bundleId))\",offer_id=\"\(escape(key.offerId))\",format=\"\(escape(key.format))\"} \(count)\n"
        }
        out += family("offer_signer_notifications_total", "Verified App Store notifications, stored or already known.")
        out += "offer_signer_notifications_total{outcome=\"stored\"} \(counts.notifications[true] ?? 0)\n"
        out += "offer_signer_notifications_total{outcome=\"duplicate\"} \(counts.notifications[false] ?? 0)\n"
        out += family("offer_signer_unmatched_redemptions_total", "Redemptions of managed offers that no signature issued here explains.")
        for (key, count) in counts.unmatchedRedemptions.sorted(by: { ($0.key.bundleId, $0.key.offerId) < ($1.key.bundleId, $1.key.offerId) }) {
            out += "offer_signer_unmatched_redemptions_total{bundle_id=\"\(escape(key.bundleId))\",offer_id=\"\(escape(key.offerId))\"} \(count)\n"
        }
        out += family("offer_signer_http_request_duration_seconds", "Time from a complete request to its response.", type: "histogram")
        var cumulative = 0
        for (bound, count) in zip(Self.bucketBounds, counts.latencyBuckets) {
            cumulative += count
            out += "offer_signer_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "offer_signer_http_request_duration_seconds_bucket{le=\"+Inf\"} \(counts.latencyCount)\n"
        out += "offer_signer_http_request_duration_seconds_sum \(counts.latencySum)\n"
        out += "offer_signer_http_request_duration_seconds_count \(counts.latencyCount)\n"
        out += family("offer_signer_log_lines_dropped_total", "Log lines dropped because the log stream could not be written (a full disk).")
        out += "offer_signer_log_lines_dropped_total \(logStream.droppedLines)\n"
        out += databaseUnavailability()
        out += writerMetrics()
        out += family("offer_signer_chain_regressed_total",
                      "Signing requests refused because the signature log ends before an entry known to have been committed (a lost tail).")
        out += "offer_signer_chain_regressed_total \(chainRegressed.load(ordering: .relaxed))\n"
        out += family("offer_signer_app_account_token_links_total", "Subscriptions linked to their user at Apple (Set App Account Token), by outcome.")
        let links = self.links.withLock { $0 }
        for outcome in ["linked", "refused", "failed", "dropped"] {
            out += "offer_signer_app_account_token_links_total{outcome=\"\(outcome)\"} \(links[outcome] ?? 0)\n"
        }
        out += family("offer_signer_experiment_assignments_total", "Users assigned to an experiment's arm by this instance, by app, experiment and arm.")
        for (key, count) in assignments.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            out += "offer_signer_experiment_assignments_total{bundle_id=\"\(escape(key.bundleId))\",experiment_id=\"\(escape(key.experimentId))\",arm_id=\"\(escape(key.armId))\"} \(count)\n"
        }
        out += family("offer_signer_catalog_syncs_total", "App Store Connect catalog syncs by app and outcome (synced, failed).")
        for (bundleId, outcomes) in catalogSyncs.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            for (outcome, count) in outcomes.sorted(by: { $0.key < $1.key }) {
                out += "offer_signer_catalog_syncs_total{bundle_id=\"\(escape(bundleId))\",outcome=\"\(escape(outcome))\"} \(count)\n"
            }
        }
        out += family("offer_signer_offers_not_at_apple_total",
                      "Signatures refused (409 offer_not_at_apple) because the fresh App Store Connect catalog lacks the offer.")
        for (bundleId, offers) in notAtApple.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            for (offerId, count) in offers.sorted(by: { $0.key < $1.key }) {
                out += "offer_signer_offers_not_at_apple_total{bundle_id=\"\(escape(bundleId))\",offer_id=\"\(escape(offerId))\"} \(count)\n"
            }
        }
        out += health()
        out += webhookMetrics()
        return out
    }

    /// The families the alert rules (deploy/prometheus) watch beside the counts above: chain
    /// integrity failures (every check, zeros included), Retention Messaging answer times, the
    /// active keys that cannot sign, and when each trusted root expires.
    private func health() -> String {
        var out = family("offer_signer_chain_integrity_failures_total",
                         "Integrity failures of the signature log's chain other than chain_regressed, by check: append (an append refused, the log does not end where its last commit recorded it), walk (an integrity walk found it broken).")
        let failures = chainIntegrityFailures.withLock { $0 }
        for check in ChainIntegrityCheck.allCases {
            out += "offer_signer_chain_integrity_failures_total{check=\"\(check.rawValue)\"} \(failures[check] ?? 0)\n"
        }
        out += family("offer_signer_retention_answer_duration_seconds",
                      "Time to answer the App Store's Retention Messaging request (Apple waits 700 ms).", type: "histogram")
        out += retentionAnswers.withLock { $0 }.samples("offer_signer_retention_answer_duration_seconds")
        out += family("offer_signer_signing_keys_unavailable",
                      "Active signing keys that cannot sign now (a key in a hardware module whose test signature failed).", type: "gauge")
        out += "offer_signer_signing_keys_unavailable \(signingKeys.withLock { $0 }?.unavailableKeys().count ?? 0)\n"
        out += family("offer_signer_trusted_root_not_after_timestamp_seconds",
                      "When each root certificate trusted for App Store signed data expires, in seconds since 1970.", type: "gauge")
        for root in trustedRoots.withLock({ $0 }) {
            out += "offer_signer_trusted_root_not_after_timestamp_seconds{subject=\"\(escape(root.subject))\"} \(Int64(root.notAfter.timeIntervalSince1970))\n"
        }
        return out
    }

    /// The webhook deliveries' families, zeros included, so alerts can be written before the first.
    private func webhookMetrics() -> String {
        var out = family("offer_signer_webhook_deliveries_total", "Webhook delivery tries by result: delivered (a 2xx answer) or failed.")
        out += "offer_signer_webhook_deliveries_total{result=\"delivered\"} \(webhookDelivered.load(ordering: .relaxed))\n"
        out += "offer_signer_webhook_deliveries_total{result=\"failed\"} \(webhookFailed.load(ordering: .relaxed))\n"
        out += family("offer_signer_webhook_dead_letters_total", "Webhook deliveries given up on after their retry window (dead letters).")
        out += "offer_signer_webhook_dead_letters_total \(webhookDeadLetters.load(ordering: .relaxed))\n"
        out += family("offer_signer_webhook_oldest_undelivered_seconds", "Age of the oldest webhook event not yet delivered (0 when none waits).",
                      type: "gauge")
        out += "offer_signer_webhook_oldest_undelivered_seconds \(webhookOldest.withLock { $0 })\n"
        return out
    }

    /// The signature log's group commit and, on SQLite, the WAL: records per batch and pages
    /// per batch are the ratios of these counters.
    private func writerMetrics() -> String {
        let counts = writer.withLock { $0 }?.snapshot
        var out = family("offer_signer_signature_log_batches_total", "Signature log batches committed (one transaction and one sync each).")
        out += "offer_signer_signature_log_batches_total \(counts?.batches ?? 0)\n"
        out += family("offer_signer_signature_log_records_total", "Records written by the signature log's batches.")
        out += "offer_signer_signature_log_records_total \(counts?.records ?? 0)\n"
        out += family("offer_signer_database_wal_frames_total", "WAL frames (pages) appended by the SQLite writer's commits (0 on PostgreSQL).")
        out += "offer_signer_database_wal_frames_total \(counts?.walFrames ?? 0)\n"
        out += family("offer_signer_database_wal_checkpoints_total",
                      "SQLite WAL checkpoints, by where they ran: background (the checkpoint thread) or writer (the WAL outgrew its bound).")
        out += "offer_signer_database_wal_checkpoints_total{on=\"background\"} \(counts?.backgroundCheckpoints ?? 0)\n"
        out += "offer_signer_database_wal_checkpoints_total{on=\"writer\"} \(counts?.writerCheckpoints ?? 0)\n"
        return out
    }

    /// Calls that found the database unavailable, by cause: every cause, zeros included, so
    /// that an alert can be written before the first one.
    private func databaseUnavailability() -> String {
        let counts = database.withLock { $0 }?.counts ?? [:]
        var out = family("offer_signer_database_unavailable_total", "Database calls answered as unavailable (503), by cause.")
        for cause in DatabaseUnavailable.Cause.allCases.sorted() {
            out += "offer_signer_database_unavailable_total{cause=\"\(cause.rawValue)\"} \(counts[cause] ?? 0)\n"
        }
        return out
    }

    /// A metric family's `# HELP` and `# TYPE` lines.
    private func family(_ name: String, _ help: String, type: String = "counter") -> String {
        "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
