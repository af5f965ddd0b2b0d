import Foundation
import OfferSignerCore

/// The stores of one database, opened together, for whichever engine its location names:
/// what the service and the command-line tools hold, so nothing above the store knows the
/// engine. Opening creates the database's schema or brings it up to date.
public final class Stores: Sendable {
    public let location: DatabaseLocation
    public let offers: any OfferStore
    public let signatures: any RepairableSignatureLog
    /// The history, its writes keeping ``outcomes`` up to date.
    public let history: OutcomeTrackingHistoryStore
    /// Redemptions matched to signatures, and holdout decisions.
    public var outcomes: any OutcomeStore { history.outcomes }
    public let checkpoints: any CheckpointStore
    /// App Store Server API backfill progress and recovered notification windows.
    public let sync: any AppStoreSyncStore
    /// The console's offer activity (daily refusal counts, signatures per offer).
    public let activity: any OfferActivityStore
    /// Retention and introductory-offer rules with their changes.
    public let rules: any RuleStore
    /// Offer experiments and users' assignments to their arms.
    public let experiments: any ExperimentStore
    /// Answered Retention Messaging requests, by the App Store's request identifier.
    public let retentionRequests: any RetentionRequestStore
    /// Consent rescinded (`RESCIND_CONSENT`) and cleared, per app download.
    public let consents: any ConsentStore
    /// The calls that found the database unavailable, by cause (for metrics).
    public var availability: DatabaseAvailability {
        switch engine {
        case .sqlite(let database): database.availability
        case .postgreSQL(let database): database.availability
        }
    }
    /// What the database's writer has done: the signature log's batches and records, and on
    /// SQLite the WAL frames and checkpoints (for metrics and the benchmark).
    public var writerStatistics: WriterStatistics {
        switch engine {
        case .sqlite(let database): database.writerStatistics
        case .postgreSQL(let database): database.writerStatistics
        }
    }
    /// Subscriptions linked to app account tokens at Apple (Set App Account Token), every attempt.
    public let links: any AppAccountTokenLinkStore
    /// Each app's App Store Connect catalog.
    public let catalogs: any CatalogStore
    /// Webhooks, their changes and the outbox of events to deliver.
    public let webhooks: any WebhookStore
    /// The schema version of the database once opened (each engine numbers its own).
    public let schemaVersion: Int
    private let closeAll: @Sendable () -> Void
    private let engine: Engine

    /// The database behind the stores, for what works on it whole (`db copy`).
    private enum Engine: Sendable {
        case sqlite(SQLiteDatabase)
        case postgreSQL(PostgreSQLDatabase)
    }

    private init(location: DatabaseLocation, offers: any OfferStore, signatures: any RepairableSignatureLog,
                 history: OutcomeTrackingHistoryStore, checkpoints: any CheckpointStore, sync: any AppStoreSyncStore,
                 activity: any OfferActivityStore, rules: any RuleStore, retentionRequests: any RetentionRequestStore,
                 consents: any ConsentStore, links: any AppAccountTokenLinkStore, experiments: any ExperimentStore, catalogs: any CatalogStore,
                 webhooks: any WebhookStore,
                 schemaVersion: Int, engine: Engine,
                 close: @escaping @Sendable () -> Void) {
        self.engine = engine
        self.webhooks = webhooks
        self.consents = consents
        self.links = links
        self.catalogs = catalogs
        self.rules = rules
        self.experiments = experiments
        self.retentionRequests = retentionRequests
        self.sync = sync
        self.activity = activity
        self.location = location
        self.offers = offers
        self.signatures = signatures
        self.history = history
        self.checkpoints = checkpoints
        self.schemaVersion = schemaVersion
        closeAll = close
    }

    /// Opens the database at `location`.
    /// - Parameters:
    ///   - creating: false for tools that work on an existing database only (a missing SQLite
    ///     file, or a PostgreSQL database without the schema, is refused, nothing created).
    ///   - followOfferChanges: keep the offer rules, placements and experiments in step with changes other processes make
    ///     (what `serve` needs; a one-shot command does not).
    ///   - requireSynchronousStandby: PostgreSQL only: appends to the signature log wait for a
    ///     synchronous standby attached to the primary (`OFFER_SIGNER_REQUIRE_SYNC_REPLICA`).
    ///   - webhookSecrets: seals the webhooks' secrets written and opens those read
    ///     (`OFFER_SIGNER_WEBHOOK_SECRETS_KEY`); nil: secrets are written in plain text, and a
    ///     sealed one cannot be read (see ``WebhookStore/sealSecrets()``).
    public static func open(_ location: DatabaseLocation, creating: Bool = true, followOfferChanges: Bool = true,
                            requireSynchronousStandby: Bool = false, webhookSecrets: WebhookSecretSealer? = nil) throws -> Stores {
        switch location {
        case .sqlite(let path):
            let database = try SQLiteDatabase(path: path, creating: creating)
            let outbox = WebhookOutbox()
            let webhooks = try SQLWebhookStore(database: database, outbox: outbox, secrets: webhookSecrets)
            let signatures = try SQLiteSignatureLog(database: database, outbox: outbox)
            let history = SQLiteHistoryStore(database: database, outbox: outbox)
            let retentionRequests = SQLiteRetentionRequestStore(database: database)
            let version = try database.read { db in try SQLiteSchema.version(db) }
            return Stores(location: location, offers: try SQLiteOfferStore(database: database), signatures: signatures,
                          history: OutcomeTrackingHistoryStore(history, outcomes: SQLiteOutcomeStore(database: database, outbox: outbox)),
                          checkpoints: SQLiteCheckpointStore(database: database),
                          sync: SQLiteAppStoreSyncStore(database: database), activity: SQLiteOfferActivityStore(database: database),
                          rules: SQLiteRuleStore(database: database), retentionRequests: retentionRequests,
                          consents: SQLConsentStore(database: database, outbox: outbox),
                          links: SQLAppAccountTokenLinkStore(database: database, outbox: outbox),
                          experiments: SQLExperimentStore(database: database, outbox: outbox),
                          catalogs: SQLCatalogStore(database: database),
                          webhooks: webhooks, schemaVersion: version,
                          engine: .sqlite(database)) {
                signatures.close()
                history.close()
                retentionRequests.close()
            }
        case .postgreSQL(let url):
            let database = try PostgreSQLDatabase(url: url, creating: creating, requireSynchronousStandby: requireSynchronousStandby)
            let offers = try PostgreSQLOfferStore(database: database, followChanges: followOfferChanges)
            let outbox = WebhookOutbox()
            let webhooks = try SQLWebhookStore(database: database, outbox: outbox, secrets: webhookSecrets)
            let signatures = try PostgreSQLSignatureLog(database: database, outbox: outbox)
            let history = PostgreSQLHistoryStore(database: database, outbox: outbox)
            let retentionRequests = PostgreSQLRetentionRequestStore(database: database)
            let experiments = SQLExperimentStore(database: database, outbox: outbox, checksOnRead: !followOfferChanges)
            if followOfferChanges { experiments.followChanges() }
            return Stores(location: location, offers: offers, signatures: signatures,
                          history: OutcomeTrackingHistoryStore(history, outcomes: PostgreSQLOutcomeStore(database: database, outbox: outbox)),
                          checkpoints: PostgreSQLCheckpointStore(database: database),
                          sync: PostgreSQLAppStoreSyncStore(database: database), activity: PostgreSQLOfferActivityStore(database: database),
                          rules: PostgreSQLRuleStore(database: database), retentionRequests: retentionRequests,
                          consents: SQLConsentStore(database: database, outbox: outbox),
                          links: SQLAppAccountTokenLinkStore(database: database, outbox: outbox),
                          experiments: experiments,
                          catalogs: SQLCatalogStore(database: database),
                          webhooks: webhooks, schemaVersion: try database.schemaVersion(),
                          engine: .postgreSQL(database)) {
                offers.close()
                experiments.close()
                signatures.close()
                history.close()
                retentionRequests.close()
            }
        }
    }

    /// Stops the writers once the items already waiting are written, and stops following
    /// offer changes.
    public func close() {
        closeAll()
    }

    /// Runs `body` on one connection reading one consistent snapshot of the whole database.
    func readSnapshot<T>(_ body: (any CopyConnection) throws -> T) throws -> T {
        switch engine {
        case .sqlite(let database):
            return try database.read(.audit) { db in try body(db) }
        case .postgreSQL(let database):
            return try database.read(.audit) { db in
                try db.withoutLimits {
                    try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    defer { try? db.execute("COMMIT") }
                    return try body(db)
                }
            }
        }
    }

    /// Runs `body` in one write transaction (all of it or nothing), without statement limits.
    func writeTransaction<T>(_ body: (any CopyConnection) throws -> T) throws -> T {
        switch engine {
        case .sqlite(let database):
            return try database.write { db in try body(db) }
        case .postgreSQL(let database):
            return try database.write { db in try db.withoutLimits { try body(db) } }
        }
    }

    /// The chain's last entry (a record or an accepted gap), as the database holds it.
    func chainEnd() throws -> ChainLink {
        switch engine {
        case .sqlite(let database): try database.withReader(.audit) { db in try ChainHead.read(db).last }
        case .postgreSQL(let database): try database.withReader(.audit) { db in try ChainHead.read(db).last }
        }
    }
}
