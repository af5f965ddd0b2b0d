import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The running service: storage opened, keys loaded, HTTP listening.
public final class ServiceRuntime: Sendable {
    public let settings: ServiceSettings
    /// The use cases and handlers, built once.
    public let composition: ServiceComposition
    /// The configuration in force (replaced by ``reloadKeys()``).
    public let keyRing: KeyRing
    /// The stores of the database, opened once.
    public let stores: StoreSet
    /// App Store Server API clients (history refresh, recovery).
    public let appStoreAPI: AppStoreAPIClients
    /// Fetches unknown users' history while signing (`OFFER_SIGNER_FETCH_UNKNOWN_USERS`); nil when off.
    public let unknownUserLookup: UnknownUserLookup?
    private let verification: AppStoreVerification
    private let activity: OfferActivity
    private let logger: Logger
    private let server: HTTPServer
    private let database: Stores
    private let checkpointer: AuditCheckpointer
    /// The scheduled recovery of missed notifications (`OFFER_SIGNER_RECOVER_INTERVAL`), when on.
    private let recoveryJob: NotificationRecoveryJob?
    /// Prunes answered retention requests older than `OFFER_SIGNER_RETENTION_KEEP_DAYS`.
    private let retentionPruning: PeriodicTask
    /// Refreshes Apple's retention message approvals every five minutes (apps with an issuerId).
    private let messageStateRefresh: PeriodicTask?
    /// Syncs the App Store Connect catalogs every `OFFER_SIGNER_CATALOG_SYNC_INTERVAL` (nil: off).
    private let catalogSyncTask: PeriodicTask?
    /// Delivers the webhook outbox.
    private let webhookWorker: WebhookDeliveryWorker

    /// The port the server listens on.
    public var port: UInt16 { server.port }

    /// Opens everything `settings` names and starts serving. Every failure is a
    /// `StartupError` naming the file or setting at fault.
    public init(settings: ServiceSettings, logger: Logger) throws(StartupError) {
        self.settings = settings
        let configuration: KeyConfiguration
        do {
            configuration = try KeyConfiguration.load(path: settings.keys)
        } catch {
            throw .configuration(error)
        }
        for warning in configuration.warnings { logger.log(.warning, warning) }
        let roots = try AppStoreVerification.roots(from: settings.appleRoots)
        let appStore: AppStoreVerification
        do {
            appStore = try AppStoreVerification(roots: roots, environments: Set(settings.environments), configuration: configuration,
                                                appTransactionMaxAge: settings.appTransactionMaxAge)
        } catch {
            throw .configuration(ConfigurationError(file: settings.keys, fault: .appStoreVerification(error)))
        }
        let appStoreAPI: AppStoreAPIClients
        do {
            appStoreAPI = try AppStoreAPIClients(configuration: configuration, options: AppStoreAPIClients.Options(settings: settings))
        } catch {
            throw .appStoreAPI(error)
        }
        let location: DatabaseLocation
        do {
            location = try settings.databaseLocation
        } catch {
            throw .database(path: DatabaseLocation.redacted(settings.database), reason: error.description)
        }
        var webhookSecrets: WebhookSecretSealer?
        if let path = settings.webhookSecretsKey {
            let loaded = try WebhookSecretsKeyFile.load(path: path)
            webhookSecrets = loaded.sealer
            if let warning = loaded.warning { logger.log(.warning, warning) }
        }
        let database: Stores
        do {
            database = try Stores.open(location, requireSynchronousStandby: settings.requireSyncReplica, webhookSecrets: webhookSecrets)
        } catch {
            throw .database(path: location.description, reason: "\(error)")
        }
        do {
            // Every stored secret readable before anything is delivered; plain ones sealed once a key is configured.
            let sealed = try database.webhooks.sealSecrets()
            if sealed > 0 { logger.log(.info, "webhook secrets encrypted in the database", ["webhooks": .int(sealed)]) }
        } catch let error as WebhookSecretError {
            database.close()
            throw .webhookSecrets(error)
        } catch {
            database.close()
            throw .database(path: location.description, reason: "\(error)")
        }
        if settings.requireSyncReplica {
            if case .sqlite = location {
                logger.log(.warning, "OFFER_SIGNER_REQUIRE_SYNC_REPLICA is on but the database is SQLite, which has no replicas: the setting does nothing")
            } else if case .notReady(let reason) = database.signatures.readiness() {
                logger.log(.error, "OFFER_SIGNER_REQUIRE_SYNC_REPLICA is on: no signature is issued until a synchronous standby is attached",
                           ["reason": .string(reason)])
            }
        }
        let keyRing = KeyRing(configuration)
        let stores = StoreSet(database)
        let activity = OfferActivity(store: database.activity, logger: logger)
        let checkpointer = AuditCheckpointer(log: database.signatures, store: database.checkpoints, keyRing: keyRing,
                                             logger: logger, interval: .seconds(settings.checkpointInterval))
        let rules = database.rules
        let messageStates = RetentionMessageStates(clients: appStoreAPI, logger: logger, imagesOf: { bundleId, environment in
            let records = (try? rules.rules(RetentionMessagingRecord.self, bundleId: bundleId).map(\.rule)) ?? []
            return RetentionMessagingRecord.imagesByMessage(records, environment: environment)
        }, isInUse: { bundleId in
            // An app without retention rules needs no states; a store that cannot say is asked again next round.
            (try? rules.rules(RetentionRule.self, bundleId: bundleId).isEmpty == false) ?? false
        })
        messageStateRefresh = appStoreAPI.bundleIds.isEmpty ? nil : messageStates.task()
        let (unknownUserLookup, recoveryJob) = Self.appStoreAPIUses(appStoreAPI, verification: appStore, history: database.history,
                                                                    syncStore: database.sync, settings: settings, logger: logger)
        let metrics = Metrics()
        let connectClients: AppStoreConnectClients
        do {
            connectClients = try AppStoreConnectClients(settings: settings)
        } catch {
            throw .appStoreConnect(error)
        }
        let catalogs = AppStoreCatalogs(store: database.catalogs, syncInterval: settings.catalogSyncInterval, clock: .system)
        let catalogSync = CatalogSync(keyRing: keyRing, clients: connectClients, store: database.catalogs, catalogs: catalogs,
                                      clock: .system, logger: logger, metrics: metrics)
        catalogSyncTask = settings.catalogSyncInterval.map { interval in
            PeriodicTask(name: "catalog-sync", interval: .seconds(interval)) { task in
                for bundleId in catalogSync.bundleIds where !task.isStopping { _ = catalogSync.sync(app: bundleId) }
            }
        }
        let linker = Self.linking(appStoreAPI, verification: appStore, database: database, settings: settings, logger: logger)
            .map { AppAccountTokenLinker(linking: $0, metrics: metrics, logger: logger) }
        composition = ServiceComposition(
            keyRing: keyRing, verification: appStore, stores: stores, activity: activity, checkpointer: checkpointer,
            appStoreAPI: appStoreAPI, unknownUsers: unknownUserLookup, linker: linker,
            rateLimits: RateLimits(signPerAPIKey: settings.signRatePerAPIKey, signPerUser: settings.signRatePerUser,
                                   notificationsPerAddress: settings.notificationRatePerAddress),
            trustedProxies: Set(settings.trustedProxies), retentionMaxAge: settings.retentionRequestMaxAge, messageStates: messageStates,
            catalogs: catalogs, catalogSync: catalogSync,
            webhookPolicy: WebhookURLPolicy(allowPrivate: settings.webhookAllowPrivate), metrics: metrics,
            logger: logger)
        retentionPruning = RetentionAnswerPruner(requests: database.retentionRequests, keepDays: settings.retentionKeepDays,
                                                 clock: .system, logger: logger).task()
        webhookWorker = WebhookDeliveryWorker(store: database.webhooks, policy: WebhookURLPolicy(allowPrivate: settings.webhookAllowPrivate),
                                              retentionDays: settings.webhookKeepDays, metrics: metrics, logger: logger)
        self.database = database
        self.stores = stores
        self.keyRing = keyRing
        self.verification = appStore
        self.activity = activity
        self.logger = logger
        self.appStoreAPI = appStoreAPI
        self.unknownUserLookup = unknownUserLookup
        self.recoveryJob = recoveryJob
        self.checkpointer = checkpointer
        Self.reportAuditState(database.signatures, configuration, logger)
        let listen = ListenAddress(settings.listen)!  // ServiceSettings refuses an address that does not parse
        server = HTTPServer(application: composition.router, configuration: HTTPServerConfiguration(
            host: listen.host, port: listen.port, connectionLimit: settings.maxConnections,
            perAddressConnectionLimit: settings.maxConnectionsPerAddress, connectionTimeoutSeconds: settings.connectionTimeout,
            requestTimeoutSeconds: settings.requestTimeout, firstRequestLineTimeoutSeconds: settings.firstLineTimeout))
        do {
            try server.start()
        } catch {
            database.close()
            throw .cannotListen(reason: error.description)
        }
        activity.startFlushing()
        checkpointer.start()
        recoveryJob?.start()
        retentionPruning.start()
        messageStateRefresh?.start()
        catalogSyncTask?.start()
        webhookWorker.start()
        logger.log(.info, "offer-signer listening", [
            "listen": .string("\(listen.host):\(server.port)"), "database": .string(location.description), "keys": .string(settings.keys),
            "apps": .int(configuration.apps.count), "apiKeys": .int(configuration.apiKeys.count),
        ])
    }

    /// Re-reads the keys file; a valid one takes effect for new requests, an invalid one is
    /// refused with its reason and the configuration in force stays.
    @discardableResult
    public func reloadKeys() -> Result<KeyConfiguration, ConfigurationError> {
        let configuration: KeyConfiguration
        do {
            configuration = try KeyConfiguration.load(path: settings.keys)
        } catch {
            return refuseReload(error)
        }
        do {
            try verification.update(for: configuration)
        } catch {
            return refuseReload(ConfigurationError(file: settings.keys, fault: .appStoreVerification(error)))
        }
        do {
            try appStoreAPI.update(for: configuration)
        } catch {
            logger.log(.error, "App Store Server API clients not rebuilt; the previous ones stay", ["reason": .string(error.description)])
        }
        keyRing.replace(with: configuration)
        for warning in configuration.warnings { logger.log(.warning, warning) }
        logger.log(.info, "keys file reloaded", ["keys": .string(settings.keys)])
        return .success(configuration)
    }

    private func refuseReload(_ refusal: ConfigurationError) -> Result<KeyConfiguration, ConfigurationError> {
        logger.log(.error, "keys file refused; the previous configuration stays", ["reason": .string(refusal.description)])
        return .failure(refusal)
    }

    /// Stops accepting, lets running requests finish, signs the last checkpoint, then closes the log.
    public func stop() {
        composition.linker?.close()
        recoveryJob?.stop()
        retentionPruning.stop()
        messageStateRefresh?.stop()
        catalogSyncTask?.stop()
        server.stop()
        webhookWorker.stop()
        activity.stop()
        checkpointer.stop()
        database.close()
    }

    /// Says loudly at start what an operator must know about the audit trail: a log that takes
    /// no appends (tampered with), or no audit key to sign checkpoints with.
    private static func reportAuditState(_ log: any SignatureLog, _ configuration: KeyConfiguration, _ logger: Logger) {
        if case .notReady(let reason) = log.readiness() {
            logger.log(.error, "SIGNATURE LOG REFUSES APPENDS: no signature will be issued until an operator restores the database "
                       + "or runs `offer-signer audit accept-truncation` (see README, Audits)", ["reason": .string(reason)])
        }
        if configuration.auditKey == nil {
            logger.log(.warning, "the keys file names no auditKey: the signature log is not anchored by signed checkpoints (see README, Audits)")
        }
    }

    /// Links of proven token-less subscriptions at Apple when `OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS`
    /// is on (nil when off).
    private static func linking(_ clients: AppStoreAPIClients, verification: AppStoreVerification, database: Stores,
                                settings: ServiceSettings, logger: Logger) -> AppAccountTokenLinking? {
        guard settings.linkAppAccountTokens else { return nil }
        if clients.bundleIds.isEmpty {
            logger.log(.warning, "OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS is on but no app of the keys file has an issuerId: "
                       + "every link will fail until one has")
        }
        return AppAccountTokenLinking(clients: clients, verification: verification, history: database.history,
                                      links: database.links, clock: .system)
    }

    /// What the App Store Server API is put to use for besides the history refresh endpoint:
    /// the unknown-user lookup when `OFFER_SIGNER_FETCH_UNKNOWN_USERS` is on, and the recovery
    /// job when `OFFER_SIGNER_RECOVER_INTERVAL` is set (returned, not started).
    private static func appStoreAPIUses(_ clients: AppStoreAPIClients, verification: AppStoreVerification,
                                        history: any SubscriptionHistoryStore, syncStore: any AppStoreSyncStore,
                                        settings: ServiceSettings, logger: Logger) -> (UnknownUserLookup?, NotificationRecoveryJob?) {
        let ingestor = HistoryIngestor(verification: verification, history: history, clock: .system)
        if clients.bundleIds.isEmpty && (settings.fetchUnknownUsers || settings.recoverInterval != nil) {
            logger.log(.warning, "no app of the keys file has an issuerId, so the App Store Server API cannot be called")
        }
        var lookup: UnknownUserLookup?
        if settings.fetchUnknownUsers {
            let sync = CustomerHistorySync(clients: clients, ingestor: ingestor, policy: (timeout: .seconds(2), retry: .none))
            lookup = UnknownUserLookup(fetcher: sync, timeout: .seconds(2), logger: logger)
        }
        guard let interval = settings.recoverInterval else { return (lookup, nil) }
        var recovery = NotificationRecovery(clients: clients, ingestor: ingestor, syncStore: syncStore)
        recovery.maxPages = settings.recoverMaxPages
        recovery.maxSeconds = settings.recoverMaxDuration
        return (lookup, NotificationRecoveryJob(recovery: recovery, interval: .seconds(interval), logger: logger))
    }
}
