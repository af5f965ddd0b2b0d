import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// The App Store Connect catalog (issue 36): synced from a mock of App Store Connect that
/// checks every request's JWT, stored, served, and used to check rules, signatures and store pages.
@Suite("App Store Connect catalog")
struct CatalogTests {
    static let user = "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"

    func sync(_ env: TestEnvironment, _ bundleId: String? = nil) -> TestResponse {
        env.send("POST", "/v1/admin/catalog/sync", role: .admin, query: bundleId.map { ["bundleId": $0] } ?? [:])
    }

    func sign(_ env: TestEnvironment, offerId: String, product: String = CatalogFixture.monthly) -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(product)", "offerId": "\#(offerId)", "userId": "\#(Self.user)", "bundleId": "\#(TestEnvironment.bundleId)"}"#)
    }

    @Test("sync of two apps: groups, subscriptions, offers with prices, introductory, win-back, offer codes; every request's JWT checked, every page followed")
    func syncTwoApps() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let response = sync(env)
        #expect(response.status == 200, "\(response.text)")
        let results = try #require(response.json["results"] as? [[String: Any]])
        #expect(results.map { $0["bundleId"] as? String } == [TestEnvironment.bundleId, TestEnvironment.otherBundleId])
        #expect(results.map { $0["outcome"] as? String } == ["synced", "synced"])
        #expect(results.first?["subscriptions"] as? Int == 2 && results.first?["promotionalOffers"] as? Int == 2)
        #expect(results.first?["syncedAt"] as? String == "2027-01-15T08:00:00Z")

        let requests = fixture.connect.requests
        #expect(!requests.isEmpty && requests.allSatisfy { $0.claims != nil }, "\(requests.compactMap(\.refusal))")
        #expect(requests.contains { $0.request.queryValue("cursor") != nil })  // one item a page: links.next followed

        let catalog = env.send("GET", "/v1/admin/catalog", role: .marketing, query: ["bundleId": TestEnvironment.bundleId])
        #expect(catalog.status == 200, "\(catalog.text)")
        #expect(catalog.json["appAppleId"] as? String == "1500000001")
        #expect(catalog.json["fresh"] as? Bool == true && catalog.json["lastError"] is NSNull)
        #expect((catalog.json["subscriptionGroups"] as? [[String: Any]])?.map { $0["id"] as? String } == ["21000001"])
        let subscriptions = try #require(catalog.json["subscriptions"] as? [[String: Any]])
        #expect(subscriptions.map { $0["productId"] as? String } == [CatalogFixture.monthly, CatalogFixture.yearly])
        let monthly = subscriptions[0]
        #expect(monthly["groupId"] as? String == "21000001" && monthly["subscriptionPeriod"] as? String == "ONE_MONTH"
            && monthly["state"] as? String == "APPROVED" && monthly["groupLevel"] as? Int == 2)
        let regular = try #require(monthly["regularPrices"] as? [[String: Any]])
        #expect(regular.map { "\($0["territory"]!) \($0["customerPrice"]!) \($0["currency"]!) \($0["startDate"] ?? "-")" }
            == ["FRA 9.99 EUR -", "USA 9.99 USD 2026-06-01"])
        #expect((monthly["scheduledPrices"] as? [[String: Any]])?.map { "\($0["territory"]!) \($0["customerPrice"]!) \($0["startDate"]!)" }
            == ["USA 12.99 2027-03-01"])
        #expect((subscriptions[1]["regularPrices"] as? [Any])?.isEmpty == true)
        let offers = try #require(monthly["promotionalOffers"] as? [[String: Any]])
        #expect(offers.map { $0["offerCode"] as? String } == ["winback_50", "trial_week"])
        #expect(offers[0]["duration"] as? String == "THREE_MONTHS" && offers[0]["offerMode"] as? String == "PAY_AS_YOU_GO"
            && offers[0]["numberOfPeriods"] as? Int == 3)
        let prices = try #require(offers[0]["prices"] as? [[String: Any]])
        #expect(prices.map { "\($0["territory"]!) \($0["customerPrice"]!) \($0["currency"]!)" } == ["USA 4.99 USD", "FRA 4.99 EUR"])
        #expect((offers[1]["prices"] as? [[String: Any]])?.allSatisfy { $0["customerPrice"] == nil } == true)
        #expect((monthly["introductoryOffers"] as? [[String: Any]])?.first?["offerMode"] as? String == "FREE_TRIAL")
        let winBack = try #require((monthly["winBackOffers"] as? [[String: Any]])?.first)
        #expect(winBack["offerId"] as? String == "wb_spring" && winBack["paidSubscriptionDurationInMonths"] as? Int == 3
            && winBack["timeSinceLastSubscribedMinMonths"] as? Int == 1 && winBack["timeSinceLastSubscribedMaxMonths"] as? Int == 12)
        #expect((monthly["offerCodes"] as? [[String: Any]])?.first?["name"] as? String == "Spring codes")

        let other = env.send("GET", "/v1/admin/catalog", role: .auditor, query: ["bundleId": TestEnvironment.otherBundleId])
        #expect((other.json["subscriptions"] as? [[String: Any]])?.map { $0["productId"] as? String } == [TestEnvironment.otherProduct])
        #expect(env.send("GET", "/v1/admin/catalog", role: .client, query: ["bundleId": TestEnvironment.bundleId]).status == 403)
        #expect(env.send("POST", "/v1/admin/catalog/sync", role: .marketing).status == 403)
        #expect(env.metrics.render().contains("offer_signer_catalog_syncs_total{bundle_id=\"com.example.app\",outcome=\"synced\"} 1"))
    }

    @Test("a failed sync keeps the previous catalog and says why, naming Apple's code; no catalog yet is 404")
    func failedSyncKeepsCatalog() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        #expect(env.send("GET", "/v1/admin/catalog", role: .marketing, query: ["bundleId": TestEnvironment.bundleId]).code
            == "catalog_not_found")
        let synced = sync(env, TestEnvironment.bundleId)
        #expect((synced.json["results"] as? [[String: Any]])?.first?["outcome"] as? String == "synced", "\(synced.text)")

        var app = try #require(fixture.connect.app(bundleId: TestEnvironment.bundleId))
        app.groups[0].subscriptions[0].promotionalOffers.removeAll()
        fixture.connect.replace(app)
        fixture.connect.inject(.error(status: 403, code: "FORBIDDEN_ERROR", title: "This request is forbidden for security reasons",
                                      detail: "The API key in use does not allow this request"), pathContains: "/winBackOffers")
        env.clock = .fixed(env.now.addingTimeInterval(600))
        let failed = sync(env, TestEnvironment.bundleId)
        let result = try #require((failed.json["results"] as? [[String: Any]])?.first)
        #expect(result["outcome"] as? String == "failed")
        #expect((result["error"] as? String ?? "").contains("403 (FORBIDDEN_ERROR: The API key in use does not allow this request)"))
        #expect(result["syncedAt"] as? String == "2027-01-15T08:00:00Z")

        let catalog = env.send("GET", "/v1/admin/catalog", role: .marketing, query: ["bundleId": TestEnvironment.bundleId])
        #expect(((catalog.json["subscriptions"] as? [[String: Any]])?.first?["promotionalOffers"] as? [[String: Any]])?.count == 2)
        #expect((catalog.json["lastError"] as? String ?? "").contains("FORBIDDEN_ERROR"))
        #expect(catalog.json["syncedAt"] as? String == "2027-01-15T08:00:00Z")
    }

    @Test("rules checked: a rule naming an offer its products lack at Apple is 400 naming each and what it has; present: saved; no catalog: saved with a warning")
    func rulesChecked() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        defer { withExtendedLifetime(fixture) {} }
        func put(_ offerId: String, _ products: [String]) -> TestResponse {
            let list = products.map { "\"\($0)\"" }.joined(separator: ", ")
            return env.send("PUT", "/v1/admin/offers/\(offerId)", role: .marketing,
                            json: #"{"offerId": "\#(offerId)", "bundleId": "\#(TestEnvironment.bundleId)", "productIds": [\#(list)]}"#)
        }
        let unchecked = put("spring_sale", [CatalogFixture.monthly])
        #expect(unchecked.status == 201)
        #expect((unchecked.json["warnings"] as? [String])?.first?.hasPrefix("not checked against App Store Connect") == true)

        let synced = sync(env, TestEnvironment.bundleId)
        #expect((synced.json["results"] as? [[String: Any]])?.first?["outcome"] as? String == "synced", "\(synced.text)")
        let present = put("winback_50", [CatalogFixture.monthly])
        #expect(present.status == 201, "\(present.text)")
        #expect(present.json["warnings"] == nil)

        let missing = put("spring_sale", [CatalogFixture.monthly, CatalogFixture.yearly, "com.example.app.gone"])
        #expect(missing.status == 400 && missing.code == "offer_not_at_apple", "\(missing.text)")
        #expect(missing.json["detail"] as? String ?? "" == "product 'com.example.app.pro_monthly' has no promotional offer 'spring_sale' in "
            + "App Store Connect (it has 'winback_50', 'trial_week'); product 'com.example.app.pro_yearly' has no promotional offer "
            + "'spring_sale' in App Store Connect (it has none); product 'com.example.app.gone' is not a subscription of the app in "
            + "App Store Connect (catalog synced 2027-01-15T08:00:00Z; create the offer in App Store Connect, then POST /v1/admin/catalog/sync)")
        let products = try #require(missing.json["products"] as? [[String: Any]])
        #expect(products.map { $0["productId"] as? String } == [CatalogFixture.monthly, CatalogFixture.yearly, "com.example.app.gone"])
        #expect(products[0]["promotionalOffers"] as? [String] == ["winback_50", "trial_week"])
        #expect(products[2]["inCatalog"] as? Bool == false)
        #expect(try env.offers.offer(bundleId: TestEnvironment.bundleId, offerId: "spring_sale")?.rule.productIds == [CatalogFixture.monthly])

        let winBack = put("wb_spring", [CatalogFixture.monthly])
        #expect(winBack.code == "offer_not_at_apple" && (winBack.json["detail"] as? String ?? "").contains("'wb_spring' is a win-back offer"))
    }

    @Test("signing: 409 offer_not_at_apple with what exists while the catalog is fresh; signed once it is stale; counted")
    func signingChecked() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        defer { withExtendedLifetime(fixture) {} }
        try env.putOffer(OfferRule(offerId: "gone_offer", bundleId: TestEnvironment.bundleId, productIds: [CatalogFixture.monthly]))
        try env.putOffer(OfferRule(offerId: "winback_50", bundleId: TestEnvironment.bundleId, productIds: [CatalogFixture.monthly]))
        #expect(sign(env, offerId: "gone_offer").status == 200)  // no catalog: never blocks

        let synced = sync(env, TestEnvironment.bundleId)
        #expect((synced.json["results"] as? [[String: Any]])?.first?["outcome"] as? String == "synced", "\(synced.text)")
        let refused = sign(env, offerId: "gone_offer")
        #expect(refused.status == 409 && refused.code == "offer_not_at_apple", "\(refused.text)")
        #expect(refused.json["promotionalOffers"] as? [String] == ["winback_50", "trial_week"])
        #expect(refused.json["productId"] as? String == CatalogFixture.monthly)
        #expect(sign(env, offerId: "winback_50").status == 200)
        #expect(env.metrics.render().contains("offer_signer_offers_not_at_apple_total{bundle_id=\"com.example.app\",offer_id=\"gone_offer\"} 1"))

        env.clock = .fixed(env.now.addingTimeInterval(2 * 3600 + 1))  // two intervals of an hour have passed: stale
        let stale = sign(env, offerId: "gone_offer")
        #expect(stale.status == 200, "\(stale.text)")
        #expect(env.send("GET", "/v1/admin/catalog", role: .marketing, query: ["bundleId": TestEnvironment.bundleId]).json["fresh"] as? Bool
            == false)
    }

    @Test("GET /v1/me names the apps with a Team key (the console asks only their catalogs)")
    func meNamesCatalogApps() throws {
        let env = try TestEnvironment(secondApp: true)
        #expect(env.send("GET", "/v1/me", role: .marketing).json["catalogApps"] as? [String] == [])
        _ = try CatalogFixture(env)
        for role in [Role.marketing, .auditor, .admin] {
            #expect(env.send("GET", "/v1/me", role: role).json["catalogApps"] as? [String] == [TestEnvironment.bundleId, TestEnvironment.otherBundleId])
        }
    }

    @Test("a store page knows a product nobody has bought, from the catalog, with its subscription group")
    func storePageKnowsUnboughtProduct() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        defer { withExtendedLifetime(fixture) {} }
        func page() -> TestResponse {
            env.send("POST", "/v1/offers/introductory-eligibility",
                     json: #"{"productIds": ["\#(CatalogFixture.yearly)"], "userId": "\#(Self.user)", "bundleId": "\#(TestEnvironment.bundleId)", "transactionId": "2000000777"}"#)
        }
        let unknown = page()
        #expect(unknown.status == 404, "\(unknown.text)")
        let synced = sync(env, TestEnvironment.bundleId)
        #expect((synced.json["results"] as? [[String: Any]])?.first?["outcome"] as? String == "synced", "\(synced.text)")
        let known = page()
        #expect(known.status == 200, "\(known.text)")
        #expect((known.json["items"] as? [[String: Any]])?.first?["allowIntroductoryOffer"] as? Bool == true)
        let group = try EligibilityCheck(history: env.history, catalogs: env.catalogs)
            .group(of: [CatalogFixture.yearly], bundleId: TestEnvironment.bundleId, environment: .production, userHistory: UserHistory())
        #expect(group == "21000001")
    }

    @Test("offer-signer catalog sync runs the same sync (one app, or refused for an unknown one); the settings' interval and URL")
    func commandLineAndSettings() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        var settings = try ServiceSettings.resolve(arguments: [], environment: [
            "OFFER_SIGNER_KEYS": env.keysPath, "OFFER_SIGNER_APPSTORE_CONNECT_URL": fixture.server.baseURL,
        ])
        #expect(settings.catalogSyncInterval == 3600)
        let results = try CatalogTool.sync(settings: settings, catalogs: env.catalogStore, bundleId: TestEnvironment.otherBundleId)
        #expect(results.map(CatalogTool.line) == ["synced: com.example.other: 1 subscriptions, 1 promotional offers"])
        #expect(try env.catalogStore.catalog(bundleId: TestEnvironment.otherBundleId)?.catalog?.appAppleId == "1500000002")
        #expect(throws: CatalogSync.Refusal.unknownApp("com.example.nope")) {
            try CatalogTool.sync(settings: settings, catalogs: env.catalogStore, bundleId: "com.example.nope")
        }
        settings = try ServiceSettings.resolve(arguments: ["--catalog-sync-interval", "off"], environment: [:])
        #expect(settings.catalogSyncInterval == nil)
        #expect(try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_CATALOG_SYNC_INTERVAL": "15m"]).catalogSyncInterval == 900)
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_CATALOG_SYNC_INTERVAL": "30s"]) }
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_APPSTORE_CONNECT_URL": "ftp://x"]) }
    }
}
