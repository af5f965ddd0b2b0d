import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// Creates, re-prices and deletes a subscription's promotional offers at App Store Connect
/// through the app's Team key, and reads the price points they are priced with. Apple's rules
/// are checked before anything is sent (the fields, at most 10 offers per subscription, an
/// offer code unique per product, a price point for every price); each step is recorded in the
/// rule store's log (``AppStoreOfferRecord``: the request before it is sent, then Apple's
/// answer), and the app's catalog is synced after a change. No HTTP here.
///
/// **Retries are safe.** A create whose answer was lost (a timeout, a crash, Apple's 409 on the
/// client's own retry) is recognised: the offer at Apple with the same code, terms and prices
/// is taken as created (`alreadyAtApple` when asked again), never created twice; a delete of an
/// offer the service already deleted answers `alreadyDeleted`; a re-price sends the same prices again.
public final class AppStorePromotionalOffers: Sendable {
    let sync: CatalogSync
    let records: any RuleStore
    let offers: any OfferStore
    let clock: WallClock
    let logger: Logger

    public init(sync: CatalogSync, records: any RuleStore, offers: any OfferStore, clock: WallClock = .system, logger: Logger = Logger()) {
        self.sync = sync
        self.records = records
        self.offers = offers
        self.clock = clock
        self.logger = logger
    }

    static let page = (name: "limit", value: "200")

    // MARK: Create

    /// Creates `draft` at Apple for its product in `bundleId`.
    public func create(_ draft: PromotionalOfferDraft, bundleId: String, by actor: String) throws(AppStoreOfferFailure) -> AppStoreOfferChange {
        let problems = draft.problems()
        guard problems.isEmpty else { throw .invalid(problems) }
        let (client, subscription) = try target(bundleId, draft.productId)
        let existing = try offersAtApple(client, subscription)
        if let same = existing.first(where: { $0.string("offerCode") == draft.offerCode }) {
            let wanted = try resolve(draft.pricing, offerMode: draft.offerMode, client, subscription)
            let atApple = try offer(same, client)
            guard Self.matches(atApple, draft, wanted) else {
                throw .offerCodeTaken(productId: draft.productId, offerCode: draft.offerCode, existing: atApple)
            }
            try reconcileCreated(atApple, draft: draft, bundleId: bundleId, subscription: subscription, by: actor)
            return AppStoreOfferChange(bundleId: bundleId, productId: draft.productId, outcome: .alreadyAtApple, offer: atApple, catalog: nil)
        }
        guard existing.count < PromotionalOfferDraft.maxOffersPerSubscription else {
            throw .limitReached(productId: draft.productId, count: existing.count)
        }
        let wanted = try resolve(draft.pricing, offerMode: draft.offerMode, client, subscription)
        let path = "/v1/subscriptionPromotionalOffers"
        let body = PromotionalOfferRequestBody.create(
            subscriptionId: subscription, name: draft.name, offerCode: draft.offerCode, duration: draft.duration, offerMode: draft.offerMode,
            numberOfPeriods: draft.numberOfPeriods, prices: wanted.map { .init(territory: $0.territory, pricePointId: $0.pricePointId) })
        var record = AppStoreOfferRecord(bundleId: bundleId, productId: draft.productId, offerCode: draft.offerCode,
                                         subscriptionAppleId: subscription, state: .sending, enabled: false)
        record.name = draft.name
        record.duration = draft.duration
        record.offerMode = draft.offerMode
        record.numberOfPeriods = draft.numberOfPeriods
        record.prices = wanted
        record.request = .init(method: "POST", path: path, body: body)
        try save(record, by: actor)
        var offerId: String
        do throws(AppStoreConnectError) {
            let answer = try client.create(path, body: body)
            guard let created = answer.data.first(where: { $0.type == "subscriptionPromotionalOffers" }) else {
                throw .malformedResponse("POST \(path): no subscriptionPromotionalOffers resource in the answer")
            }
            offerId = created.id
            record.appleStatus = 201
        } catch {
            // The answer may be lost after Apple created the offer (a timeout, or Apple's 409 to
            // the client's retry): what Apple has now decides.
            guard error.isTransient || error.status == 409,
                  let found = try? offersAtApple(client, subscription).first(where: { $0.string("offerCode") == draft.offerCode }),
                  let atApple = try? offer(found, client), Self.matches(atApple, draft, wanted) else {
                record.state = .failed
                record.appleStatus = error.status
                record.appleErrors = error.appleErrors
                try? save(record, by: actor)
                logger.log(.warning, "App Store Connect refused a promotional offer", [
                    "bundleId": .string(bundleId), "productId": .string(draft.productId), "offerCode": .string(draft.offerCode),
                    "error": .string(error.description),
                ])
                throw .apple(error)
            }
            offerId = found.id
            record.appleStatus = error.status
            record.appleErrors = error.appleErrors
        }
        record.state = .created
        record.enabled = true
        record.offerAppleId = offerId
        try save(record, by: actor)
        let offer = CatalogPromotionalOffer(appleId: offerId, offerCode: draft.offerCode, name: draft.name, duration: draft.duration,
                                            offerMode: draft.offerMode, numberOfPeriods: draft.numberOfPeriods, prices: wanted)
        return AppStoreOfferChange(bundleId: bundleId, productId: draft.productId, outcome: .created, offer: offer,
                                   catalog: sync.sync(app: bundleId))
    }

    /// Records an offer found at Apple as created by this draft, unless the last record says so already.
    private func reconcileCreated(_ offer: CatalogPromotionalOffer, draft: PromotionalOfferDraft, bundleId: String, subscription: String,
                                  by actor: String) throws(AppStoreOfferFailure) {
        let ruleId = AppStoreOfferRecord.ruleId(productId: draft.productId, offerCode: draft.offerCode)
        let last = try? records.rule(AppStoreOfferRecord.self, bundleId: bundleId, ruleId: ruleId)
        if let last, last.rule.enabled, last.rule.offerAppleId == offer.appleId, [.created, .repriced].contains(last.rule.state) { return }
        var record = last?.rule ?? AppStoreOfferRecord(bundleId: bundleId, productId: draft.productId, offerCode: draft.offerCode,
                                                        subscriptionAppleId: subscription, state: .created, enabled: true)
        record.state = .created
        record.enabled = true
        record.offerAppleId = offer.appleId
        record.name = offer.name
        record.duration = offer.duration
        record.offerMode = offer.offerMode
        record.numberOfPeriods = offer.numberOfPeriods
        record.prices = offer.prices
        try save(record, by: actor)
    }

    // MARK: Re-price

    /// Replaces the prices of the offer `offerCode` of `productId` at Apple.
    public func replacePrices(bundleId: String, productId: String, offerCode: String, pricing: PromotionalOfferPricing,
                              by actor: String) throws(AppStoreOfferFailure) -> AppStoreOfferChange {
        try checkNames(productId: productId, offerCode: offerCode)
        let (client, subscription) = try target(bundleId, productId)
        let existing = try offersAtApple(client, subscription)
        guard let found = existing.first(where: { $0.string("offerCode") == offerCode }) else {
            throw .offerNotFound(productId: productId, offerCode: offerCode, existing: existing.compactMap { $0.string("offerCode") })
        }
        let mode = found.string("offerMode") ?? ""
        let problems = pricing.problems(offerMode: mode)
        guard problems.isEmpty else { throw .invalid(problems) }
        let wanted = try resolve(pricing, offerMode: mode, client, subscription)
        let offerId = try Self.segment(found.id)
        let path = "/v1/subscriptionPromotionalOffers/\(offerId)"
        let body = PromotionalOfferRequestBody.updatePrices(offerId: found.id, prices: wanted.map {
            .init(territory: $0.territory, pricePointId: $0.pricePointId)
        })
        var record = AppStoreOfferRecord(bundleId: bundleId, productId: productId, offerCode: offerCode, subscriptionAppleId: subscription,
                                         state: .repricing, enabled: true)
        record.offerAppleId = found.id
        record.name = found.string("name")
        record.duration = found.string("duration")
        record.offerMode = mode
        record.numberOfPeriods = found.int("numberOfPeriods")
        record.prices = wanted
        record.request = .init(method: "PATCH", path: path, body: body)
        try save(record, by: actor)
        do throws(AppStoreConnectError) {
            _ = try client.update(path, body: body)
            record.appleStatus = 200
        } catch {
            record.state = .failed
            record.appleStatus = error.status
            record.appleErrors = error.appleErrors
            try? save(record, by: actor)
            throw .apple(error)
        }
        record.state = .repriced
        try save(record, by: actor)
        let offer = CatalogPromotionalOffer(appleId: found.id, offerCode: offerCode, name: record.name ?? "", duration: record.duration,
                                            offerMode: mode, numberOfPeriods: record.numberOfPeriods, prices: wanted)
        return AppStoreOfferChange(bundleId: bundleId, productId: productId, outcome: .repriced, offer: offer, catalog: sync.sync(app: bundleId))
    }

    // MARK: Delete

    /// Deletes the offer `offerCode` of `productId` at Apple, refused while an enabled offer rule names it.
    public func delete(bundleId: String, productId: String, offerCode: String, by actor: String) throws(AppStoreOfferFailure) -> AppStoreOfferChange {
        try checkNames(productId: productId, offerCode: offerCode)
        guard sync.isConfigured(bundleId) else { throw .unknownApp(bundleId) }
        let rules: [StoredOffer]
        do {
            rules = try offers.offers()
        } catch {
            throw .notRecorded("the offer rules could not be read: \(error)")
        }
        let naming = rules.map(\.rule).filter {
            $0.bundleId == bundleId && $0.enabled && $0.offerId == offerCode && $0.productIds.contains(productId)
        }
        guard naming.isEmpty else { throw .inUse(offerIds: naming.map(\.offerId)) }
        let (client, subscription) = try target(bundleId, productId)
        let existing = try offersAtApple(client, subscription)
        let ruleId = AppStoreOfferRecord.ruleId(productId: productId, offerCode: offerCode)
        guard let found = existing.first(where: { $0.string("offerCode") == offerCode }) else {
            if let last = try? records.rule(AppStoreOfferRecord.self, bundleId: bundleId, ruleId: ruleId), last.rule.state == .deleted
                || (last.rule.state == .deleting) {
                var gone = last.rule
                if gone.state == .deleting {
                    gone.state = .deleted
                    gone.enabled = false
                    try save(gone, by: actor)
                }
                return AppStoreOfferChange(bundleId: bundleId, productId: productId, outcome: .alreadyDeleted, offer: Self.offer(of: gone),
                                           catalog: nil)
            }
            throw .offerNotFound(productId: productId, offerCode: offerCode, existing: existing.compactMap { $0.string("offerCode") })
        }
        let atApple = try offer(found, client)
        let path = "/v1/subscriptionPromotionalOffers/\(try Self.segment(found.id))"
        var record = AppStoreOfferRecord(bundleId: bundleId, productId: productId, offerCode: offerCode, subscriptionAppleId: subscription,
                                         state: .deleting, enabled: true)
        record.offerAppleId = found.id
        record.name = atApple.name
        record.duration = atApple.duration
        record.offerMode = atApple.offerMode
        record.numberOfPeriods = atApple.numberOfPeriods
        record.prices = atApple.prices
        record.request = .init(method: "DELETE", path: path, body: nil)
        try save(record, by: actor)
        do throws(AppStoreConnectError) {
            try client.delete(path)
            record.appleStatus = 204
        } catch {
            // A retried DELETE meets Apple's 404 once the first one went through: gone is gone.
            let gone = (error.isTransient || error.status == 404)
                && ((try? offersAtApple(client, subscription))?.contains { $0.id == found.id } == false)
            guard gone else {
                record.state = .failed
                record.appleStatus = error.status
                record.appleErrors = error.appleErrors
                try? save(record, by: actor)
                throw .apple(error)
            }
            record.appleStatus = error.status
            record.appleErrors = error.appleErrors
        }
        record.state = .deleted
        record.enabled = false
        try save(record, by: actor)
        return AppStoreOfferChange(bundleId: bundleId, productId: productId, outcome: .deleted, offer: atApple, catalog: sync.sync(app: bundleId))
    }

    // MARK: Price points

    /// The subscription's price points in `territory`, cheapest first.
    public func pricePoints(bundleId: String, productId: String, territory: String) throws(AppStoreOfferFailure) -> [AppStorePricePoint] {
        guard PromotionalOfferPricing.isTerritory(territory) else {
            throw .invalid(["'territory' must be a territory as Apple names it, three capital letters (USA, FRA)"])
        }
        try checkNames(productId: productId, offerCode: nil)
        let (client, subscription) = try target(bundleId, productId)
        return try points(client, subscription, territories: [territory])
    }

    /// The price point of `customerPrice` in `territory` and those Apple equalizes it to in every other territory.
    public func equalizations(bundleId: String, productId: String, territory: String,
                              customerPrice: String) throws(AppStoreOfferFailure) -> (base: AppStorePricePoint, equalized: [AppStorePricePoint]) {
        var problems = PromotionalOfferPricing.priceProblems(territory, customerPrice, field: "")
            .map { $0.replacingOccurrences(of: "'.", with: "'") }
        if !Identifier.isValid(productId) { problems.append("'productId' must be 1–256 visible ASCII characters") }
        guard problems.isEmpty else { throw .invalid(problems) }
        let (client, subscription) = try target(bundleId, productId)
        let base = try point(client, subscription, territory: territory, customerPrice: customerPrice)
        return (base, try equalized(client, base, territories: nil))
    }

    // MARK: Audit

    /// Every change made through this use case, oldest first.
    public func changes(bundleId: String?, ruleId: String?, afterId: Int64, limit: Int) throws -> [RuleChange<AppStoreOfferRecord>] {
        try records.changes(AppStoreOfferRecord.self, bundleId: bundleId, ruleId: ruleId, afterId: afterId, limit: limit)
    }

    // MARK: Reading Apple

    /// The app's client and the subscription's App Store Connect ID, from the catalog (synced
    /// first when the catalog lacks the product: it may be new).
    private func target(_ bundleId: String, _ productId: String) throws(AppStoreOfferFailure) -> (AppStoreConnectClient, String) {
        guard sync.isConfigured(bundleId) else { throw .unknownApp(bundleId) }
        let client: AppStoreConnectClient
        do throws(CatalogSyncError) {
            client = try sync.client(bundleId: bundleId)
        } catch {
            if case .noCredentials = error { throw .notConfigured(bundleId: bundleId) }
            throw .apple(.invalidArgument(error.description))
        }
        func lookup() -> (String?, [String]) {
            let catalog = (try? sync.catalogs.stored(bundleId: bundleId))?.catalog
            return (catalog?.subscription(productId: productId)?.appleId, catalog?.subscriptions.map(\.productId) ?? [])
        }
        var (id, known) = lookup()
        if id == nil {
            let result = sync.sync(app: bundleId)
            (id, known) = lookup()
            if id == nil, result.outcome == .failed {
                throw .apple(.malformedResponse("the catalog could not be read to find the subscription: \(result.error ?? "")"))
            }
        }
        guard let id else { throw .productNotAtApple(productId: productId, known: known) }
        return (client, try Self.segment(id))
    }

    /// The subscription's promotional offers at Apple now.
    private func offersAtApple(_ client: AppStoreConnectClient, _ subscription: String) throws(AppStoreOfferFailure) -> [JSONAPIResource] {
        try call { () throws(AppStoreConnectError) in
            try client.all("/v1/subscriptions/\(subscription)/promotionalOffers", query: [Self.page]).data
                .filter { $0.type == "subscriptionPromotionalOffers" }
        }
    }

    /// An offer at Apple with its prices.
    private func offer(_ resource: JSONAPIResource, _ client: AppStoreConnectClient) throws(AppStoreOfferFailure) -> CatalogPromotionalOffer {
        let id = try Self.segment(resource.id)
        let prices = try call { () throws(AppStoreConnectError) in
            try client.all("/v1/subscriptionPromotionalOffers/\(id)/prices", query: [
                ("include", "territory,subscriptionPricePoint"), ("fields[subscriptionPricePoints]", "customerPrice,territory"),
                ("fields[territories]", "currency"), Self.page,
            ])
        }
        return CatalogPromotionalOffer(appleId: resource.id, offerCode: resource.string("offerCode") ?? "", name: resource.string("name") ?? "",
                                       duration: resource.string("duration"), offerMode: resource.string("offerMode"),
                                       numberOfPeriods: resource.int("numberOfPeriods"),
                                       prices: prices.data.compactMap { AppStoreCatalogReader.price($0, in: prices) })
    }

    /// The price points of the subscription in `territories` (one listing, every page).
    private func points(_ client: AppStoreConnectClient, _ subscription: String,
                        territories: [String]) throws(AppStoreOfferFailure) -> [AppStorePricePoint] {
        let document = try call { () throws(AppStoreConnectError) in
            try client.all("/v1/subscriptions/\(subscription)/pricePoints", query: [
                ("filter[territory]", territories.joined(separator: ",")), ("include", "territory"),
                ("fields[subscriptionPricePoints]", "customerPrice,proceeds,territory"), ("fields[territories]", "currency"), Self.page,
            ])
        }
        return Self.pricePoints(document).sorted { Self.amount($0.customerPrice) < Self.amount($1.customerPrice) }
    }

    /// The price point of `customerPrice` in `territory`.
    private func point(_ client: AppStoreConnectClient, _ subscription: String, territory: String,
                       customerPrice: String) throws(AppStoreOfferFailure) -> AppStorePricePoint {
        let all = try points(client, subscription, territories: [territory]).filter { $0.territory == territory }
        guard let match = all.first(where: { PromotionalOfferPricing.samePrice($0.customerPrice, customerPrice) }) else {
            throw .priceNotAvailable(territory: territory, customerPrice: customerPrice, nearest: Self.nearest(all, customerPrice))
        }
        return match
    }

    /// The price points Apple equalizes `base` to (in `territories` when given).
    private func equalized(_ client: AppStoreConnectClient, _ base: AppStorePricePoint,
                           territories: [String]?) throws(AppStoreOfferFailure) -> [AppStorePricePoint] {
        let id = try Self.segment(base.id)
        var query: [(name: String, value: String)] = [
            ("include", "territory"), ("fields[subscriptionPricePoints]", "customerPrice,proceeds,territory"),
            ("fields[territories]", "currency"), Self.page,
        ]
        if let territories { query.insert(("filter[territory]", territories.joined(separator: ",")), at: 0) }
        let document = try call { () throws(AppStoreConnectError) in
            try client.all("/v1/subscriptionPricePoints/\(id)/equalizations", query: query)
        }
        var seen: Set<String> = [base.territory]
        return Self.pricePoints(document).filter { seen.insert($0.territory).inserted }.sorted { $0.territory < $1.territory }
    }

    /// Each price of `pricing` with the price point it costs (none in a free trial).
    private func resolve(_ pricing: PromotionalOfferPricing, offerMode: String, _ client: AppStoreConnectClient,
                         _ subscription: String) throws(AppStoreOfferFailure) -> [CatalogPrice] {
        if offerMode == "FREE_TRIAL" {
            return (pricing.territories ?? []).map { CatalogPrice(territory: $0, currency: nil, customerPrice: nil, pricePointId: nil) }
        }
        func price(_ point: AppStorePricePoint) -> CatalogPrice {
            CatalogPrice(territory: point.territory, currency: point.currency, customerPrice: point.customerPrice, pricePointId: point.id)
        }
        if let equalizeFrom = pricing.equalizeFrom {
            let base = try point(client, subscription, territory: equalizeFrom.territory, customerPrice: equalizeFrom.customerPrice)
            let wanted = equalizeFrom.territories?.filter { $0 != base.territory }
            let others = try equalized(client, base, territories: wanted)
            if let wanted {
                let missing = wanted.filter { territory in !others.contains { $0.territory == territory } }
                guard missing.isEmpty else { throw .notEqualized(territories: missing) }
            }
            return [price(base)] + others.map(price)
        }
        let prices = pricing.prices ?? []
        let all = try points(client, subscription, territories: Array(Set(prices.map(\.territory))).sorted())
        return try prices.map { wanted throws(AppStoreOfferFailure) in
            let here = all.filter { $0.territory == wanted.territory }
            guard let match = here.first(where: { PromotionalOfferPricing.samePrice($0.customerPrice, wanted.customerPrice) }) else {
                throw .priceNotAvailable(territory: wanted.territory, customerPrice: wanted.customerPrice,
                                         nearest: Self.nearest(here, wanted.customerPrice))
            }
            return price(match)
        }
    }

    private func call<Answer>(_ body: () throws(AppStoreConnectError) -> Answer) throws(AppStoreOfferFailure) -> Answer {
        do {
            return try body()
        } catch {
            throw .apple(error)
        }
    }

    private func save(_ record: AppStoreOfferRecord, by actor: String) throws(AppStoreOfferFailure) {
        do {
            _ = try records.put(record, by: actor, at: clock.now)
        } catch {
            logger.log(.error, "App Store Connect offer change not recorded", ["ruleId": .string(record.ruleId), "error": .string("\(error)")])
            throw .notRecorded("\(error)")
        }
    }

    private func checkNames(productId: String, offerCode: String?) throws(AppStoreOfferFailure) {
        var problems: [String] = []
        if !Identifier.isValid(productId) { problems.append("'productId' must be 1–256 visible ASCII characters") }
        if let offerCode, !PromotionalOfferDraft.isOfferCode(offerCode) {
            problems.append("'offerCode' must be \(PromotionalOfferDraft.offerCodeRequirement)")
        }
        guard problems.isEmpty else { throw .invalid(problems) }
    }

    // MARK: Pure helpers

    /// Whether the offer at Apple is the draft: same terms, same price point (or, free, same territory) everywhere.
    static func matches(_ offer: CatalogPromotionalOffer, _ draft: PromotionalOfferDraft, _ wanted: [CatalogPrice]) -> Bool {
        guard offer.name == draft.name, offer.duration == draft.duration, offer.offerMode == draft.offerMode,
              offer.numberOfPeriods == draft.numberOfPeriods else { return false }
        let key: (CatalogPrice) -> String = { "\($0.territory)/\($0.pricePointId ?? "")" }
        return Set(offer.prices.map(key)) == Set(wanted.map(key)) && offer.prices.count == wanted.count
    }

    static func offer(of record: AppStoreOfferRecord) -> CatalogPromotionalOffer {
        CatalogPromotionalOffer(appleId: record.offerAppleId ?? "", offerCode: record.offerCode, name: record.name ?? "",
                                duration: record.duration, offerMode: record.offerMode, numberOfPeriods: record.numberOfPeriods,
                                prices: record.prices)
    }

    static func pricePoints(_ document: JSONAPIDocument) -> [AppStorePricePoint] {
        document.data.filter { $0.type == "subscriptionPricePoints" }.compactMap { point in
            guard let territory = point.related("territory"), let customerPrice = point.string("customerPrice") else { return nil }
            return AppStorePricePoint(id: point.id, territory: territory.id, currency: document.included(territory)?.string("currency"),
                                      customerPrice: customerPrice, proceeds: point.string("proceeds"))
        }
    }

    /// The customer prices of `points` closest to `price`: the one below and the one above.
    static func nearest(_ points: [AppStorePricePoint], _ price: String) -> [String] {
        let wanted = amount(price)
        let sorted = points.sorted { amount($0.customerPrice) < amount($1.customerPrice) }
        let below = sorted.last { amount($0.customerPrice) < wanted }
        let above = sorted.first { amount($0.customerPrice) > wanted }
        return [below, above].compactMap { $0?.customerPrice }
    }

    static func amount(_ text: String) -> Decimal {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 0
    }

    static func segment(_ id: String) throws(AppStoreOfferFailure) -> String {
        do {
            return try AppStoreConnectClient.segment(id)
        } catch {
            throw .apple(.malformedResponse("a resource ID '\(id.prefix(60))' that cannot be part of a path"))
        }
    }
}
