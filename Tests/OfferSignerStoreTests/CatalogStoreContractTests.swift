import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: App Store Connect catalogs")
    struct CatalogContract {
        static func catalog(offers: [String]) -> AppStoreCatalog {
            AppStoreCatalog(appAppleId: "1500000001", subscriptionGroups: [CatalogGroup(id: "21000001", referenceName: "Pro")],
                            subscriptions: [CatalogSubscription(
                                appleId: "6400000001", productId: "com.example.app.pro_monthly", name: "Pro Monthly", groupId: "21000001",
                                subscriptionPeriod: "ONE_MONTH", state: "APPROVED", groupLevel: 1,
                                promotionalOffers: offers.map {
                                    CatalogPromotionalOffer(appleId: "71-\($0)", offerCode: $0, name: "Offer é \($0)", duration: "ONE_MONTH",
                                                            offerMode: "PAY_AS_YOU_GO", numberOfPeriods: 2,
                                                            prices: [CatalogPrice(territory: "FRA", currency: "EUR", customerPrice: "4.99",
                                                                                  pricePointId: "pp-1")])
                                },
                                winBackOffers: [CatalogWinBackOffer(appleId: "73", offerId: "wb", referenceName: nil, duration: nil,
                                                                    offerMode: nil, periodCount: nil, paidSubscriptionDurationInMonths: 3,
                                                                    timeSinceLastSubscribedMinMonths: 1, timeSinceLastSubscribedMaxMonths: 6,
                                                                    waitBetweenOffersInMonths: nil, startDate: nil, endDate: nil,
                                                                    priority: nil)])])
        }

        @Test("a catalog is stored whole per app with its sync time; a failure keeps it and records the error; a later sync clears the error",
              arguments: Engine.allCases)
        func catalogs(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let catalogs = stores.catalogs
            let t0 = Date(timeIntervalSince1970: 1_800_000_000)
            #expect(try catalogs.catalog(bundleId: "com.example.app") == nil)

            // A failure before any sync: no catalog, the error kept.
            try catalogs.recordFailure(bundleId: "com.example.app", at: t0, error: "401 NOT_AUTHORIZED")
            #expect(try catalogs.catalog(bundleId: "com.example.app")
                == StoredCatalog(bundleId: "com.example.app", catalog: nil, syncedAt: nil, attemptedAt: t0, lastError: "401 NOT_AUTHORIZED"))

            let first = Self.catalog(offers: ["winback_50", "trial"])
            try catalogs.save(first, bundleId: "com.example.app", syncedAt: t0.addingTimeInterval(60))
            try catalogs.save(Self.catalog(offers: ["other"]), bundleId: "com.example.other", syncedAt: t0.addingTimeInterval(61))
            #expect(try catalogs.catalog(bundleId: "com.example.app")
                == StoredCatalog(bundleId: "com.example.app", catalog: first, syncedAt: t0.addingTimeInterval(60),
                                 attemptedAt: t0.addingTimeInterval(60), lastError: nil))

            try catalogs.recordFailure(bundleId: "com.example.app", at: t0.addingTimeInterval(120), error: "503 UNEXPECTED_ERROR")
            let kept = try #require(try catalogs.catalog(bundleId: "com.example.app"))
            #expect(kept.catalog == first && kept.syncedAt == t0.addingTimeInterval(60))
            #expect(kept.attemptedAt == t0.addingTimeInterval(120) && kept.lastError == "503 UNEXPECTED_ERROR")

            let second = Self.catalog(offers: ["winback_50"])
            try catalogs.save(second, bundleId: "com.example.app", syncedAt: t0.addingTimeInterval(180))
            let replaced = try #require(try catalogs.catalog(bundleId: "com.example.app"))
            #expect(replaced.catalog == second && replaced.lastError == nil && replaced.syncedAt == t0.addingTimeInterval(180))
            #expect(try catalogs.catalog(bundleId: "com.example.other")?.catalog?.promotionalOfferCount == 1)
        }
    }
}
