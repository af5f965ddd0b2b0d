import AppStoreServerAPI
import Foundation
import OfferSignerCore

/// Reads one app's catalog through App Store Connect's JSON:API resources: the app
/// (`GET /v1/apps?filter[bundleId]=`, its bundle ID matched exactly), its subscription groups,
/// their subscriptions, and each subscription's regular prices (its price schedule), promotional
/// offers with their prices (price point and territory included), introductory offers, win-back
/// offers and offer codes.
/// Every listing is followed through `links.next`; the whole read is bounded in time and size.
struct AppStoreCatalogReader {
    let client: AppStoreConnectClient
    let limits: CatalogSyncLimits

    /// The most items a page asks for (Apple's maximum).
    static let pageLimit = ("limit", "200")

    private final class Budget {
        let ends: ContinuousClock.Instant
        let limits: CatalogSyncLimits
        var resources = 0

        init(_ limits: CatalogSyncLimits) {
            self.limits = limits
            ends = .now + limits.maxDuration
        }

        func spend(_ count: Int) throws(CatalogSyncError) {
            guard ContinuousClock.now < ends else { throw .timedOut(seconds: Int(limits.maxDuration.components.seconds)) }
            resources += count
            guard resources <= limits.maxResources else { throw .tooLarge("more than \(limits.maxResources) resources") }
        }
    }

    /// The app's catalog; regular prices are split into those in force on `day` (`YYYY-MM-DD`) and those scheduled after it.
    func read(bundleId: String, day: String) throws(CatalogSyncError) -> AppStoreCatalog {
        let budget = Budget(limits)
        let apps = try list(budget, "/v1/apps", [("filter[bundleId]", bundleId), ("fields[apps]", "bundleId,name"), Self.pageLimit])
        guard let app = apps.data.first(where: { $0.type == "apps" && $0.string("bundleId") == bundleId }) else {
            throw .appNotFound(bundleId: bundleId, keyId: client.credentials.keyId)
        }
        let appId = try segment(app.id)
        let groupDocument = try list(budget, "/v1/apps/\(appId)/subscriptionGroups",
                                     [("fields[subscriptionGroups]", "referenceName"), Self.pageLimit])
        var groups: [CatalogGroup] = []
        var subscriptions: [CatalogSubscription] = []
        for group in groupDocument.data where group.type == "subscriptionGroups" {
            groups.append(CatalogGroup(id: group.id, referenceName: group.string("referenceName") ?? ""))
            let members = try list(budget, "/v1/subscriptionGroups/\(try segment(group.id))/subscriptions",
                                   [("fields[subscriptions]", "name,productId,state,subscriptionPeriod,groupLevel"), Self.pageLimit])
            for resource in members.data where resource.type == "subscriptions" {
                guard let productId = resource.string("productId") else { continue }
                guard subscriptions.count < limits.maxSubscriptions else {
                    throw .tooLarge("more than \(limits.maxSubscriptions) subscriptions")
                }
                subscriptions.append(try subscription(resource, productId: productId, groupId: group.id, day: day, budget))
            }
        }
        return AppStoreCatalog(appAppleId: app.id, subscriptionGroups: groups, subscriptions: subscriptions)
    }

    private func subscription(_ resource: JSONAPIResource, productId: String, groupId: String, day: String,
                              _ budget: Budget) throws(CatalogSyncError) -> CatalogSubscription {
        let id = try segment(resource.id)
        var subscription = CatalogSubscription(appleId: resource.id, productId: productId, name: resource.string("name") ?? productId,
                                               groupId: groupId, subscriptionPeriod: resource.string("subscriptionPeriod"),
                                               state: resource.string("state"), groupLevel: resource.int("groupLevel"))
        let schedule = try list(budget, "/v1/subscriptions/\(id)/prices", [
            ("include", "territory,subscriptionPricePoint"), ("fields[subscriptionPrices]", "startDate,territory,subscriptionPricePoint"),
            ("fields[subscriptionPricePoints]", "customerPrice,territory"), ("fields[territories]", "currency"), Self.pageLimit,
        ])
        let regular = schedule.data.filter { $0.type == "subscriptionPrices" }.compactMap { entry -> CatalogRegularPrice? in
            guard let price = Self.price(entry, in: schedule) else { return nil }
            return CatalogRegularPrice(territory: price.territory, currency: price.currency, customerPrice: price.customerPrice,
                                       startDate: entry.string("startDate"), pricePointId: price.pricePointId)
        }
        (subscription.regularPrices, subscription.scheduledPrices) = CatalogRegularPrice.split(regular, on: day)
        let promotional = try list(budget, "/v1/subscriptions/\(id)/promotionalOffers", [Self.pageLimit])
        for offer in promotional.data where offer.type == "subscriptionPromotionalOffers" {
            let prices = try list(budget, "/v1/subscriptionPromotionalOffers/\(try segment(offer.id))/prices", [
                ("include", "territory,subscriptionPricePoint"), ("fields[subscriptionPricePoints]", "customerPrice,territory"),
                ("fields[territories]", "currency"), Self.pageLimit,
            ])
            subscription.promotionalOffers.append(CatalogPromotionalOffer(
                appleId: offer.id, offerCode: offer.string("offerCode") ?? "", name: offer.string("name") ?? "",
                duration: offer.string("duration"), offerMode: offer.string("offerMode"), numberOfPeriods: offer.int("numberOfPeriods"),
                prices: prices.data.compactMap { Self.price($0, in: prices) }))
        }
        let introductory = try list(budget, "/v1/subscriptions/\(id)/introductoryOffers", [
            ("include", "territory,subscriptionPricePoint"), ("fields[subscriptionPricePoints]", "customerPrice,territory"),
            ("fields[territories]", "currency"), Self.pageLimit,
        ])
        subscription.introductoryOffers = introductory.data.filter { $0.type == "subscriptionIntroductoryOffers" }.map { offer in
            let price = Self.price(offer, in: introductory)
            return CatalogIntroductoryOffer(appleId: offer.id, duration: offer.string("duration"), offerMode: offer.string("offerMode"),
                                            numberOfPeriods: offer.int("numberOfPeriods"), territory: price?.territory,
                                            currency: price?.currency, customerPrice: price?.customerPrice)
        }
        let winBack = try list(budget, "/v1/subscriptions/\(id)/winBackOffers", [Self.pageLimit])
        subscription.winBackOffers = winBack.data.filter { $0.type == "winBackOffers" }.map { offer in
            let since = offer.attributes["customerEligibilityTimeSinceLastSubscribedInMonths"]
            func bound(_ name: String) -> Int? {
                if case .dictionary(let range)? = since, case .int(let value)? = range[name] { return value }
                return nil
            }
            return CatalogWinBackOffer(
                appleId: offer.id, offerId: offer.string("offerId") ?? "", referenceName: offer.string("referenceName"),
                duration: offer.string("duration"), offerMode: offer.string("offerMode"), periodCount: offer.int("periodCount"),
                paidSubscriptionDurationInMonths: offer.int("customerEligibilityPaidSubscriptionDurationInMonths"),
                timeSinceLastSubscribedMinMonths: bound("minimum"), timeSinceLastSubscribedMaxMonths: bound("maximum"),
                waitBetweenOffersInMonths: offer.int("customerEligibilityWaitBetweenOffersInMonths"),
                startDate: offer.string("startDate"), endDate: offer.string("endDate"), priority: offer.string("priority"))
        }
        let codes = try list(budget, "/v1/subscriptions/\(id)/offerCodes", [Self.pageLimit])
        subscription.offerCodes = codes.data.filter { $0.type == "subscriptionOfferCodes" }.map { code in
            var eligibilities: [String] = []
            if case .array(let values)? = code.attributes["customerEligibilities"] {
                eligibilities = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
            }
            return CatalogOfferCode(appleId: code.id, name: code.string("name") ?? "", duration: code.string("duration"),
                                    offerMode: code.string("offerMode"), numberOfPeriods: code.int("numberOfPeriods"),
                                    active: code.bool("active"), customerEligibilities: eligibilities,
                                    offerEligibility: code.string("offerEligibility"))
        }
        return subscription
    }

    /// A price resource's territory (with its currency) and price point (with its customer
    /// price), from the document's included resources.
    static func price(_ resource: JSONAPIResource, in document: JSONAPIDocument) -> CatalogPrice? {
        guard let territory = resource.related("territory") else { return nil }
        let point = resource.related("subscriptionPricePoint")
        return CatalogPrice(territory: territory.id, currency: document.included(territory)?.string("currency"),
                            customerPrice: document.included(point)?.string("customerPrice"), pricePointId: point?.id)
    }

    /// Every page of a listing, within the budget.
    private func list(_ budget: Budget, _ path: String, _ query: [(name: String, value: String)]) throws(CatalogSyncError) -> JSONAPIDocument {
        try budget.spend(0)
        var whole = JSONAPIDocument(data: [])
        var overBudget: CatalogSyncError?
        do throws(AppStoreConnectError) {
            try client.list(path, query: query) { page throws(AppStoreConnectError) in
                whole.data += page.data
                whole.included += page.included
                do throws(CatalogSyncError) {
                    try budget.spend(page.data.count + page.included.count)
                } catch {
                    overBudget = error
                    throw .invalidArgument("the sync's bounds are reached")
                }
            }
        } catch {
            throw overBudget ?? .appStoreConnect(error)
        }
        return whole
    }

    private func segment(_ id: String) throws(CatalogSyncError) -> String {
        do {
            return try AppStoreConnectClient.segment(id)
        } catch {
            throw .appStoreConnect(.malformedResponse("a resource ID '\(id.prefix(60))' that cannot be part of a path"))
        }
    }
}
