import Foundation
import OfferSignerCore
import OfferSignerStore

/// Everything the handlers use, injected so that tests can replace any part.
public struct ServiceDependencies: Sendable {
    public var keyRing: KeyRing
    public var offers: any OfferStore
    public var signatures: any SignatureLog
    /// Signed checkpoints of the signature log kept beside it (nil: none are kept).
    public var checkpoints: (any CheckpointStore)?
    /// Signs checkpoints while the service runs (nil: it does not).
    public var checkpointer: AuditCheckpointer?
    /// Bounds the integrity walks running at once.
    public var integrityRuns: ConcurrencyGate
    public var history: any SubscriptionHistoryStore
    /// Signatures and refusals per offer and day, for the console's activity charts.
    public var activity: OfferActivity
    /// Verifies App Store signed data.
    public var appStore: AppStoreVerification
    public var rateLimits: RateLimits
    /// Reverse proxies whose `X-Forwarded-For` is believed.
    public var trustedProxies: Set<String>
    public var clock: WallClock
    public var metrics: Metrics
    public var logger: Logger
    /// App Store Server API clients (history refresh, recovery); nil when not configured.
    public var appStoreAPI: AppStoreAPIClients?
    /// What was fetched from the App Store Server API (backfill progress, recovered windows).
    public var appStoreSync: (any AppStoreSyncStore)?
    /// Fetches unknown users' history while signing (`OFFER_SIGNER_FETCH_UNKNOWN_USERS`); nil when off.
    public var unknownUserLookup: UnknownUserLookup?

    public init(keyRing: KeyRing, offers: any OfferStore, signatures: any SignatureLog, history: any SubscriptionHistoryStore,
                activity: OfferActivity, appStore: AppStoreVerification, rateLimits: RateLimits = .none, trustedProxies: Set<String> = [], clock: WallClock = .system, metrics: Metrics = Metrics(), logger: Logger = Logger(),
                checkpoints: (any CheckpointStore)? = nil, checkpointer: AuditCheckpointer? = nil,
                integrityRuns: ConcurrencyGate = ConcurrencyGate(limit: 2)) {
        self.keyRing = keyRing
        self.offers = offers
        self.signatures = signatures
        self.history = history
        self.activity = activity
        self.appStore = appStore
        self.rateLimits = rateLimits
        self.trustedProxies = trustedProxies
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.checkpoints = checkpoints
        self.checkpointer = checkpointer
        self.integrityRuns = integrityRuns
    }
}
