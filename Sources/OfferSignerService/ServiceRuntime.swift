import Foundation
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The running service: storage opened, keys loaded, HTTP listening.
public final class ServiceRuntime: Sendable {
    public let settings: ServiceSettings
    public let dependencies: ServiceDependencies
    private let server: HTTPServer
    private let stores: Stores
    private let checkpointer: AuditCheckpointer
    /// The scheduled recovery of missed notifications (`OFFER_SIGNER_RECOVER_INTERVAL`), when on.
    private let recoveryJob: NotificationRecoveryJob?

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
        var wired: ServiceDependencies
        do {
            stores = try Stores.open(location)
            wired = ServiceDependencies(
                keyRing: KeyRing(configuration), offers: stores.offers, signatures: stores.signatures,
                history: stores.history, rules: stores.rules, retentionRequests: stores.retentionRequests,
                activity: OfferActivity(store: stores.activity, logger: logger),
                appStore: appStore,
                rateLimits: RateLimits(signPerAPIKey: settings.signRatePerAPIKey, signPerUser: settings.signRatePerUser,
                                       notificationsPerAddress: settings.notificationRatePerAddress),
                trustedProxies: Set(settings.trustedProxies),
                logger: logger, checkpoints: stores.checkpoints)
        } catch {
            throw .database(path: location.description, reason: "\(error)")
        }
        recoveryJob = Self.wireAppStoreAPI(appStoreAPI, into: &wired, syncStore: stores.sync, settings: settings)
        let checkpointer = AuditCheckpointer(log: stores.signatures, store: stores.checkpoints, keyRing: wired.keyRing,
                                             logger: logger, interval: .seconds(settings.checkpointInterval))
        wired.checkpointer = checkpointer
        self.checkpointer = checkpointer
        dependencies = wired
        Self.reportAuditState(stores.signatures, configuration, logger)
        let (host, port) = HTTPServerConfiguration.parseListen(settings.listen)!
        server = HTTPServer(application: ServiceRouter.make(dependencies), configuration: HTTPServerConfiguration(
            host: host, port: port, connectionLimit: settings.maxConnections,
            perAddressConnectionLimit: settings.maxConnectionsPerAddress, connectionTimeoutSeconds: settings.connectionTimeout,
            requestTimeoutSeconds: settings.requestTimeout))
        do {
            try server.start()
        } catch {
            stores.close()
            throw .cannotListen(error)
        }
        dependencies.activity.startFlushing()
        checkpointer.start()
        recoveryJob?.start()
        logger.log(.info, "offer-signer listening", [
            "listen": .string("\(host):\(server.port)"), "database": .string(location.description), "keys": .string(settings.keys),
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
            try dependencies.appStore.update(for: configuration)
        } catch {
            return refuseReload(ConfigurationError(file: settings.keys, fault: .appStoreVerification(error)))
        }
        do {
            try dependencies.appStoreAPI?.update(for: configuration)
        } catch {
            dependencies.logger.log(.error, "App Store Server API clients not rebuilt; the previous ones stay", ["reason": .string(error.description)])
        }
        dependencies.keyRing.replace(with: configuration)
        for warning in configuration.warnings { dependencies.logger.log(.warning, warning) }
        dependencies.logger.log(.info, "keys file reloaded", ["keys": .string(settings.keys)])
        return .success(configuration)
    }

    private func refuseReload(_ refusal: ConfigurationError) -> Result<KeyConfiguration, ConfigurationError> {
        dependencies.logger.log(.error, "keys file refused; the previous configuration stays", ["reason": .string(refusal.description)])
        return .failure(refusal)
    }

    /// Stops accepting, lets running requests finish, signs the last checkpoint, then closes the log.
    public func stop() {
        recoveryJob?.stop()
        server.stop()
        dependencies.activity.stop()
        checkpointer.stop()
        stores.close()
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

    /// Puts the App Store Server API to use: the history refresh endpoint, the unknown-user
    /// lookup when `OFFER_SIGNER_FETCH_UNKNOWN_USERS` is on, and the recovery job when
    /// `OFFER_SIGNER_RECOVER_INTERVAL` is set (returned, not started).
    private static func wireAppStoreAPI(_ clients: AppStoreAPIClients, into dependencies: inout ServiceDependencies,
                                        syncStore: any AppStoreSyncStore, settings: ServiceSettings) -> NotificationRecoveryJob? {
        let ingestor = HistoryIngestor(verification: dependencies.appStore, history: dependencies.history, clock: dependencies.clock)
        dependencies.appStoreAPI = clients
        dependencies.appStoreSync = syncStore
        let logger = dependencies.logger
        if clients.bundleIds.isEmpty && (settings.fetchUnknownUsers || settings.recoverInterval != nil) {
            logger.log(.warning, "no app of the keys file has an issuerId, so the App Store Server API cannot be called")
        }
        if settings.fetchUnknownUsers {
            let sync = CustomerHistorySync(clients: clients, ingestor: ingestor, policy: (timeout: .seconds(2), retry: .none))
            dependencies.unknownUserLookup = UnknownUserLookup(fetcher: sync, timeout: .seconds(2), logger: logger)
        }
        guard let interval = settings.recoverInterval else { return nil }
        return NotificationRecoveryJob(recovery: NotificationRecovery(clients: clients, ingestor: ingestor, syncStore: syncStore),
                                       interval: .seconds(interval), logger: logger)
    }
}
