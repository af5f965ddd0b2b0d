import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// The composition root: every use case and handler of the service built once, each given
/// only what it uses, and the router over them. Nothing is changed after it is built; what
/// changes while the service runs (the keys file, the offer rules) is held by the parts
/// themselves (`KeyRing`, the stores).
public struct ServiceComposition: Sendable {
    /// The signing pipeline (promotional offers, retention offers, introductory-offer eligibility).
    public let issuer: OfferIssuer
    /// Answers the App Store's Retention Messaging requests.
    public let retention: RetentionResponder
    /// The HTTP face of the use cases.
    public let router: Router<ServiceContext>
    /// Links proven token-less subscriptions at Apple in the background (nil: off); closed at shutdown.
    public let linker: AppAccountTokenLinker?

    /// - Parameters:
    ///   - checkpointer: signs checkpoints while the service runs (nil: it does not).
    ///   - appStoreAPI: App Store Server API clients (history refresh); nil when not configured.
    ///   - unknownUsers: fetches unknown users' history while signing
    ///     (`OFFER_SIGNER_FETCH_UNKNOWN_USERS`); nil when off.
    ///   - linker: links proven token-less subscriptions to their user at Apple, in the
    ///     background (`OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS`); nil when off. Give it the same `metrics`.
    ///   - trustedProxies: reverse proxies whose `X-Forwarded-For` is believed.
    ///   - integrityRuns: bounds the integrity walks running at once.
    ///   - messageStates: Apple's retention message approvals, refreshed by whoever runs the
    ///     service; nil: made here from `appStoreAPI` (and refreshed on changes only).
    ///   - catalogs: the App Store Connect catalogs as read by rules, signing and the admin API;
    ///     nil: made here over `stores.catalogs`, fresh for two hours.
    ///   - catalogSync: syncs the catalogs on demand; nil: made here against Apple's App Store
    ///     Connect (none, answering 503, when `stores` keep no catalogs).
    public init(keyRing: KeyRing, verification: AppStoreVerification, stores: StoreSet, activity: OfferActivity,
                checkpointer: AuditCheckpointer? = nil, appStoreAPI: AppStoreAPIClients? = nil, unknownUsers: UnknownUserLookup? = nil,
                linker: AppAccountTokenLinker? = nil,
                rateLimits: RateLimits = .none, trustedProxies: Set<String> = [], integrityRuns: ConcurrencyGate = ConcurrencyGate(limit: 2),
                retentionMaxAge: Int = RetentionResponder.defaultMaxRequestAge, messageStates: RetentionMessageStates? = nil,
                catalogs: AppStoreCatalogs? = nil, catalogSync: CatalogSync? = nil,
                webhookPolicy: WebhookURLPolicy = WebhookURLPolicy(allowPrivate: false), clock: WallClock = .system, metrics: Metrics = Metrics(), logger: Logger = Logger()) {
        metrics.observe(stores.availability)
        metrics.observe(stores.writerStatistics)
        metrics.observe(trustedRoots: verification.trustedRoots)
        let signingKeys = SigningKeyReadiness(keyRing: keyRing)
        metrics.observe(signingKeys)
        let catalogs = catalogs ?? AppStoreCatalogs(store: stores.catalogs, syncInterval: nil, clock: clock)
        // Without a sync of its own the service syncs against Apple's App Store Connect with the keys file's Team keys.
        let catalogSync = catalogSync ?? stores.catalogs.map { store in
            CatalogSync(keyRing: keyRing, clients: AppStoreConnectClients(), store: store, catalogs: catalogs, clock: clock, logger: logger,
                        metrics: metrics)
        }
        let issuer = OfferIssuer(keyRing: keyRing, verification: verification, offers: stores.offers, rules: stores.rules,
                                 history: stores.history, consents: stores.consents, signatures: stores.signatures, activity: activity,
                                 unknownUsers: unknownUsers, customerLimit: rateLimits.signPerUser, holdouts: stores.outcomes,
                                 linker: linker, links: linker == nil ? nil : stores.links, catalogs: catalogs,
                                 webhooks: stores.webhooks, clock: clock, metrics: metrics, logger: logger)
        let states = messageStates ?? appStoreAPI.map { RetentionMessageStates(clients: $0, clock: clock, logger: logger) }
        let messaging = RetentionMessaging(clients: appStoreAPI, records: stores.rules, states: states, clock: clock, logger: logger)
        let retention = RetentionResponder(verification: verification, rules: stores.rules, offers: stores.offers, history: stores.history,
                                           requests: stores.retentionRequests, issuer: issuer, clock: clock, logger: logger,
                                           maxRequestAge: retentionMaxAge, messageStates: states)
        if let tracking = stores.history as? OutcomeTrackingHistoryStore {
            UnmatchedRedemptionReport.attach(to: tracking, metrics: metrics, logger: logger)
        }
        let ingestor = HistoryIngestor(verification: verification, history: stores.history, clock: clock)
        var groups: [any RouteGroup] = [
            SignHandler(issuer: issuer, rateLimits: rateLimits),
            PlacementSignHandler(issuer: PlacementIssuer(issuer: issuer, rules: stores.rules, experiments: stores.experiments, metrics: metrics),
                                 rateLimits: rateLimits),
            IntroductoryEligibilityHandler(issuer: issuer, rateLimits: rateLimits),
            UserHandler(keyRing: keyRing, offers: stores.offers, history: stores.history, outcomes: stores.outcomes,
                        consent: ConsentCheck(consents: stores.consents), appStore: verification, clock: clock),
            OfferAdminHandler(keyRing: keyRing, offers: stores.offers, clock: clock, catalogCheck: CatalogRuleCheck(catalogs: catalogs)),
            SimulateHandler(keyRing: keyRing, offers: stores.offers, history: stores.history, outcomes: stores.outcomes,
                            appStore: verification, clock: clock),
            HistoryImportHandler(ingestor: ingestor, logger: logger),
            HistoryRefreshHandler(keyRing: keyRing, ingestor: ingestor, appStoreAPI: appStoreAPI, logger: logger),
            RuleAdminHandler.retention(keyRing: keyRing, rules: stores.rules, offers: stores.offers, clock: clock, messaging: messaging),
            RetentionMessagingHandler(keyRing: keyRing, messaging: messaging),
            RuleAdminHandler.introductoryOffer(keyRing: keyRing, rules: stores.rules, offers: stores.offers, clock: clock),
            RuleAdminHandler.placement(keyRing: keyRing, rules: stores.rules, offers: stores.offers, clock: clock),
            NotificationHandler(ingestor: ingestor, history: stores.history, rateLimits: rateLimits, metrics: metrics, logger: logger),
            RetentionHandler(responder: retention, rateLimits: rateLimits, metrics: metrics, logger: logger),
            AuditHandler(keyRing: keyRing, signatures: stores.signatures, offers: stores.offers, checkpoints: stores.checkpoints,
                         checkpointer: checkpointer, integrityRuns: integrityRuns, metrics: metrics,
                         webhooks: stores.webhooks),
            StatsHandler(keyRing: keyRing, offers: stores.offers, activity: activity, clock: clock),
            OutcomesHandler(keyRing: keyRing, offers: stores.offers, appStore: verification,
                            outcomes: OfferOutcomes(offers: stores.offers, history: stores.history, outcomes: stores.outcomes),
                            store: stores.outcomes, clock: clock),
            OperationsHandler(keyRing: keyRing, signatures: stores.signatures, metrics: metrics, signingKeys: signingKeys),
            CallerHandler(keyRing: keyRing, appStore: verification),
            ConsentHandler(consents: stores.consents, clearing: ConsentClearing(consents: stores.consents, clock: clock)),
            AppAccountTokenLinkHandler(links: stores.links),
            CatalogHandler(keyRing: keyRing, catalogs: catalogs, sync: catalogSync),
            AppStoreOfferHandler(keyRing: keyRing, offers: catalogSync.map {
                AppStorePromotionalOffers(sync: $0, records: stores.rules, offers: stores.offers, clock: clock, logger: logger)
            }),
            ConsoleHandler(),
        ]
        if let experiments = stores.experiments {
            groups.append(ExperimentAdminHandler(keyRing: keyRing, admin: ExperimentAdmin(experiments: experiments, offers: stores.offers,
                                                                                          clock: clock),
                                                 experiments: experiments))
            groups.append(ExperimentStatsHandler(keyRing: keyRing, appStore: verification,
                                                 reporting: ExperimentReporting(experiments: experiments, clock: clock)))
        }
        if let webhooks = stores.webhooks {
            groups.append(WebhookAdminHandler(administration: WebhookAdministration(store: webhooks, policy: webhookPolicy, keyRing: keyRing,
                                                                                    clock: clock)))
        }
        self.issuer = issuer
        self.linker = linker
        self.retention = retention
        router = ServiceRouter.make(groups, keyRing: keyRing, trustedProxies: trustedProxies, metrics: metrics, logger: logger)
    }
}
