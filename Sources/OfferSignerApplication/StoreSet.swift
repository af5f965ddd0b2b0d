import OfferSignerStore

/// The stores the use cases work on, opened once at start-up. Each is a protocol, so nothing
/// above the store knows the engine (and a test may put in a store of its own).
public struct StoreSet: Sendable {
    public let offers: any OfferStore
    public let signatures: any SignatureLog
    public let history: any SubscriptionHistoryStore
    /// Retention and introductory-offer rules.
    public let rules: any RuleStore
    /// Answered Retention Messaging requests, for idempotency.
    public let retentionRequests: any RetentionRequestStore
    /// Signed checkpoints of the signature log kept beside it (nil: none are kept).
    public let checkpoints: (any CheckpointStore)?
    /// Consent rescinded and cleared, per app download.
    public let consents: any ConsentStore
    /// Redemptions matched to signatures, and holdout decisions.
    public let outcomes: any OutcomeStore
    /// The calls that found the database unavailable, by cause (for metrics).
    public let availability: DatabaseAvailability
    /// Subscriptions linked to app account tokens at Apple (nil: not kept, e.g. in tests that do not need it).
    public let links: (any AppAccountTokenLinkStore)?
    /// Offer experiments and assignments (nil: experiments are not kept, e.g. in tests that do not need them).
    public let experiments: (any ExperimentStore)?
    /// Each app's App Store Connect catalog (nil: not kept, e.g. in tests that do not need it).
    public let catalogs: (any CatalogStore)?
    /// Webhooks and their outbox (nil: none, e.g. in tests that do not need them).
    public let webhooks: (any WebhookStore)?
    /// What the database's writer has done: batches, records, WAL frames (for metrics).
    public let writerStatistics: WriterStatistics

    public init(offers: any OfferStore, signatures: any SignatureLog, history: any SubscriptionHistoryStore, rules: any RuleStore,
                retentionRequests: any RetentionRequestStore, checkpoints: (any CheckpointStore)?, consents: any ConsentStore,
                outcomes: any OutcomeStore, availability: DatabaseAvailability = DatabaseAvailability(),
                links: (any AppAccountTokenLinkStore)? = nil, experiments: (any ExperimentStore)? = nil,
                catalogs: (any CatalogStore)? = nil, webhooks: (any WebhookStore)? = nil,
                writerStatistics: WriterStatistics = WriterStatistics()) {
        self.writerStatistics = writerStatistics
        self.links = links
        self.experiments = experiments
        self.catalogs = catalogs
        self.webhooks = webhooks
        self.availability = availability
        self.consents = consents
        self.offers = offers
        self.signatures = signatures
        self.history = history
        self.rules = rules
        self.retentionRequests = retentionRequests
        self.checkpoints = checkpoints
        self.outcomes = outcomes
    }

    /// The stores of one opened database.
    public init(_ stores: Stores) {
        self.init(offers: stores.offers, signatures: stores.signatures, history: stores.history, rules: stores.rules,
                  retentionRequests: stores.retentionRequests, checkpoints: stores.checkpoints,
                  consents: stores.consents, outcomes: stores.outcomes, availability: stores.availability,
                  links: stores.links, experiments: stores.experiments, catalogs: stores.catalogs,
                  webhooks: stores.webhooks, writerStatistics: stores.writerStatistics)
    }
}
