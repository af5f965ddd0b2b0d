import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// Promotional offers created, re-priced and deleted at App Store Connect through the service
/// (issue 36, item 4), against the mock App Store Connect, which checks each request's JWT and
/// each body against Apple's specification; the bytes sent are checked here too.
@Suite("App Store Connect promotional offers")
struct AppStoreOfferTests {
    static let offers = "/v1/admin/appstore/promotional-offers"

    func create(_ env: TestEnvironment, _ json: String) -> TestResponse {
        env.send("POST", Self.offers, role: .marketing, json: json)
    }

    static func draft(code: String = "spring_half", mode: String = "PAY_AS_YOU_GO", duration: String = "ONE_MONTH", periods: Int = 2,
                      pricing: String = #""prices": [{"territory": "USA", "customerPrice": "4.99"}, {"territory": "FRA", "customerPrice": "4.99"}]"#) -> String {
        #"{"bundleId": "\#(TestEnvironment.bundleId)", "productId": "\#(CatalogFixture.monthly)", "offerCode": "\#(code)", "name": "Half off", "duration": "\#(duration)", "offerMode": "\#(mode)", "numberOfPeriods": \#(periods), \#(pricing)}"#
    }

    /// The requests that changed something at Apple (POST, PATCH, DELETE).
    func writes(_ fixture: CatalogFixture) -> [MockConnectRequest] {
        fixture.connect.requests.filter { $0.request.method != "GET" }
    }

    func offerCodes(_ fixture: CatalogFixture) -> [String] {
        fixture.connect.app(bundleId: TestEnvironment.bundleId)?.groups[0].subscriptions[0].promotionalOffers.map(\.offerCode) ?? []
    }

    @Test("create with a price per territory: the exact JSON:API body Apple's spec defines, each price's point looked up, audited, the catalog refreshed")
    func createWithPrices() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let response = create(env, Self.draft())
        #expect(response.status == 201, "\(response.text)")
        #expect(response.json["outcome"] as? String == "created")
        #expect(response.json["appleId"] as? String == "7190000001")
        let prices = try #require(response.json["prices"] as? [[String: Any]])
        #expect(prices.map { "\($0["territory"]!) \($0["customerPrice"]!) \($0["currency"]!) \($0["pricePointId"]!)" }
            == ["USA 4.99 USD pp-usa-499", "FRA 4.99 EUR pp-fra-499"])
        #expect((response.json["catalog"] as? [String: Any])?["outcome"] as? String == "synced")

        let sent = try #require(writes(fixture).first)
        #expect(writes(fixture).count == 1)
        #expect(sent.request.method == "POST" && sent.request.path == "/v1/subscriptionPromotionalOffers")
        #expect(sent.claims != nil && sent.request.contentType == "application/json")
        #expect(String(decoding: sent.request.body, as: UTF8.self) == #"""
            {"data":{"attributes":{"duration":"ONE_MONTH","name":"Half off","numberOfPeriods":2,"offerCode":"spring_half","offerMode":"PAY_AS_YOU_GO"},\#
            "relationships":{"prices":{"data":[{"id":"${price-0}","type":"subscriptionPromotionalOfferPrices"},{"id":"${price-1}","type":"subscriptionPromotionalOfferPrices"}]},\#
            "subscription":{"data":{"id":"6400000001","type":"subscriptions"}}},"type":"subscriptionPromotionalOffers"},\#
            "included":[{"id":"${price-0}","relationships":{"subscriptionPricePoint":{"data":{"id":"pp-usa-499","type":"subscriptionPricePoints"}},\#
            "territory":{"data":{"id":"USA","type":"territories"}}},"type":"subscriptionPromotionalOfferPrices"},\#
            {"id":"${price-1}","relationships":{"subscriptionPricePoint":{"data":{"id":"pp-fra-499","type":"subscriptionPricePoints"}},\#
            "territory":{"data":{"id":"FRA","type":"territories"}}},"type":"subscriptionPromotionalOfferPrices"}]}
            """#)
        #expect(fixture.connect.requests.allSatisfy { $0.claims != nil })
        #expect(offerCodes(fixture) == ["winback_50", "trial_week", "spring_half"])

        // The catalog has it: a rule naming it is saved without a refusal.
        let catalog = try #require(env.catalogStore.catalog(bundleId: TestEnvironment.bundleId)?.catalog)
        #expect(catalog.subscription(productId: CatalogFixture.monthly)?.promotionalOffer("spring_half")?.prices.count == 2)
        let rule = env.send("PUT", "/v1/admin/offers/spring_half", role: .marketing,
                            json: #"{"offerId": "spring_half", "bundleId": "\#(TestEnvironment.bundleId)", "productIds": ["\#(CatalogFixture.monthly)"]}"#)
        #expect(rule.status == 201, "\(rule.text)")

        // Audited like rule changes: the request before it was sent, then Apple's answer.
        let audit = env.send("GET", "/v1/audit/appstore-changes", role: .auditor, query: ["bundleId": TestEnvironment.bundleId])
        #expect(audit.status == 200, "\(audit.text)")
        let items = try #require(audit.json["items"] as? [[String: Any]])
        #expect(items.map { ($0["after"] as? [String: Any])?["state"] as? String } == ["sending", "created"])
        #expect(items.allSatisfy { $0["apiKeyName"] as? String == "marketing-key" && $0["ruleId"] as? String == "\(CatalogFixture.monthly):spring_half" })
        let after = try #require(items.last?["after"] as? [String: Any])
        #expect(after["appleStatus"] as? Int == 201 && after["offerAppleId"] as? String == "7190000001")
        #expect(((after["request"] as? [String: Any])?["body"] as? [String: Any])?["included"] as? [Any] != nil)
        #expect(env.send("GET", "/v1/audit/appstore-changes", role: .marketing).status == 403)
    }

    @Test("create with equalizeFrom: the base territory's point and Apple's equalizations of it")
    func createEqualized() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let response = create(env, Self.draft(pricing: #""equalizeFrom": {"territory": "USA", "customerPrice": "9.99"}"#))
        #expect(response.status == 201, "\(response.text)")
        let prices = try #require(response.json["prices"] as? [[String: Any]])
        #expect(prices.map { "\($0["territory"]!) \($0["pricePointId"]!)" } == ["USA pp-usa-999", "FRA pp-fra-999"])
        #expect(fixture.connect.requests.contains { $0.request.path == "/v1/subscriptionPricePoints/pp-usa-999/equalizations" })
        let body = try MockConnectOfferBody.create(try #require(writes(fixture).first).request.body).get()
        #expect(body.prices == [.init(territory: "USA", pricePointId: "pp-usa-999"), .init(territory: "FRA", pricePointId: "pp-fra-999")])

        let missing = create(env, Self.draft(code: "other", pricing: #""equalizeFrom": {"territory": "USA", "customerPrice": "9.99", "territories": ["JPN"]}"#))
        #expect(missing.status == 400 && missing.code == "price_not_available", "\(missing.text)")
    }

    @Test("a free trial carries territories without price points")
    func createFreeTrial() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let response = create(env, Self.draft(code: "free_month", mode: "FREE_TRIAL", periods: 1, pricing: #""territories": ["USA", "FRA"]"#))
        #expect(response.status == 201, "\(response.text)")
        let body = String(decoding: try #require(writes(fixture).first).request.body, as: UTF8.self)
        #expect(body.contains(#"{"id":"${price-0}","relationships":{"territory":{"data":{"id":"USA","type":"territories"}}},"type":"subscriptionPromotionalOfferPrices"}"#))
        #expect(!body.contains("subscriptionPricePoints"))
        #expect((response.json["prices"] as? [[String: Any]])?.allSatisfy { $0["customerPrice"] is NSNull } == true)
    }

    @Test("refused before sending: fields, a price no point has (with the nearest), the 10-offer limit, a code taken with other terms")
    func refusedBeforeSending() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let invalid = create(env, Self.draft(code: "bad code", mode: "PAY_UP_FRONT", duration: "TEN_DAYS", periods: 3,
                                             pricing: #""prices": [{"territory": "us", "customerPrice": "-1"}]"#))
        #expect(invalid.status == 400 && invalid.code == "invalid_request", "\(invalid.text)")
        #expect((invalid.json["errors"] as? [String])?.count == 5)
        let free = create(env, Self.draft(code: "free", mode: "FREE_TRIAL", periods: 1))
        #expect(free.status == 400 && (free.json["detail"] as? String ?? "").contains("a FREE_TRIAL offer has no prices"))

        let price = create(env, Self.draft(pricing: #""prices": [{"territory": "USA", "customerPrice": "5.55"}]"#))
        #expect(price.status == 400 && price.code == "price_not_available", "\(price.text)")
        #expect(price.json["nearest"] as? [String] == ["4.99", "7.99"])

        let taken = create(env, Self.draft(code: "winback_50"))
        #expect(taken.status == 409 && taken.code == "offer_code_taken", "\(taken.text)")

        var app = try #require(fixture.connect.app(bundleId: TestEnvironment.bundleId))
        for index in 3...10 {
            app.groups[0].subscriptions[0].promotionalOffers.append(MockConnectPromotionalOffer(id: "71000001\(index)", offerCode: "extra_\(index)",
                                                                                                prices: [("USA", "pp-usa-499")]))
        }
        fixture.connect.replace(app)
        let full = create(env, Self.draft())
        #expect(full.status == 409 && full.code == "promotional_offer_limit" && full.json["count"] as? Int == 10, "\(full.text)")
        #expect(writes(fixture).isEmpty)
    }

    @Test("Apple's 409 comes back as 409 naming Apple's code and detail, recorded as failed")
    func applesConflict() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        #expect(env.send("POST", "/v1/admin/catalog/sync", role: .admin).status == 200)
        fixture.connect.inject(.error(status: 409, code: "ENTITY_ERROR.ATTRIBUTE.INVALID", title: "An attribute value is invalid.",
                                      detail: "The offer's duration is not allowed for this subscription period."),
                               pathContains: "/v1/subscriptionPromotionalOffers")
        let response = create(env, Self.draft())
        #expect(response.status == 409 && response.code == "appstore_connect_conflict", "\(response.text)")
        let errors = try #require(response.json["appleErrors"] as? [[String: Any]])
        #expect(errors.first?["code"] as? String == "ENTITY_ERROR.ATTRIBUTE.INVALID")
        #expect(errors.first?["detail"] as? String == "The offer's duration is not allowed for this subscription period.")
        let stored = try #require(try env.rules.rule(AppStoreOfferRecord.self, bundleId: TestEnvironment.bundleId,
                                                     ruleId: "\(CatalogFixture.monthly):spring_half"))
        #expect(stored.rule.state == .failed && stored.rule.appleStatus == 409 && !stored.rule.enabled)
    }

    @Test("retries are safe: a lost answer (Apple's 409 to the client's retry) is the offer created once; asking again answers alreadyAtApple")
    func idempotentRetry() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        #expect(env.send("POST", "/v1/admin/catalog/sync", role: .admin).status == 200)
        fixture.connect.inject(.lostAnswer(status: 503), pathContains: "/v1/subscriptionPromotionalOffers")
        let response = create(env, Self.draft())
        #expect(response.status == 201 && response.json["outcome"] as? String == "created", "\(response.text)")
        #expect(writes(fixture).count == 2)  // the client's retry met Apple's 409 duplicate
        #expect(offerCodes(fixture).filter { $0 == "spring_half" }.count == 1)

        fixture.connect.clearRequests()
        let again = create(env, Self.draft())
        #expect(again.status == 200 && again.json["outcome"] as? String == "alreadyAtApple", "\(again.text)")
        #expect(writes(fixture).isEmpty)
        let changes = try env.rules.changes(AppStoreOfferRecord.self, bundleId: TestEnvironment.bundleId, ruleId: nil, afterId: 0, limit: 10)
        #expect(changes.map { $0.after?.state } == [.sending, .created])  // the repeat changed nothing
    }

    @Test("re-price: PATCH with the spec's update body replaces the prices at Apple")
    func reprice() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let response = env.send("PATCH", "\(Self.offers)/winback_50/prices", role: .marketing,
                                json: #"{"prices": [{"territory": "USA", "customerPrice": "7.99"}]}"#,
                                query: ["bundleId": TestEnvironment.bundleId, "productId": CatalogFixture.monthly])
        #expect(response.status == 200 && response.json["outcome"] as? String == "repriced", "\(response.text)")
        let sent = try #require(writes(fixture).first)
        #expect(sent.request.method == "PATCH" && sent.request.path == "/v1/subscriptionPromotionalOffers/7100000001")
        #expect(String(decoding: sent.request.body, as: UTF8.self) == #"""
            {"data":{"id":"7100000001","relationships":{"prices":{"data":[{"id":"${price-0}","type":"subscriptionPromotionalOfferPrices"}]}},\#
            "type":"subscriptionPromotionalOffers"},"included":[{"id":"${price-0}","relationships":{"subscriptionPricePoint":\#
            {"data":{"id":"pp-usa-799","type":"subscriptionPricePoints"}},"territory":{"data":{"id":"USA","type":"territories"}}},\#
            "type":"subscriptionPromotionalOfferPrices"}]}
            """#)
        let offer = try #require(fixture.connect.app(bundleId: TestEnvironment.bundleId)?.groups[0].subscriptions[0].promotionalOffers.first)
        #expect(offer.prices.map { "\($0.territory) \($0.pricePointId ?? "-")" } == ["USA pp-usa-799"])
        let catalog = try #require(env.catalogStore.catalog(bundleId: TestEnvironment.bundleId)?.catalog)
        #expect(catalog.subscription(productId: CatalogFixture.monthly)?.promotionalOffer("winback_50")?.prices.map(\.customerPrice) == ["7.99"])

        let unknown = env.send("PATCH", "\(Self.offers)/nope/prices", role: .marketing, json: #"{"prices": [{"territory": "USA", "customerPrice": "7.99"}]}"#,
                               query: ["bundleId": TestEnvironment.bundleId, "productId": CatalogFixture.monthly])
        #expect(unknown.status == 404 && unknown.code == "promotional_offer_not_found", "\(unknown.text)")
    }

    @Test("delete: refused while an enabled rule names the offer; deleted at Apple once disabled; asked again: alreadyDeleted")
    func delete() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        try env.putOffer(OfferRule(offerId: "winback_50", bundleId: TestEnvironment.bundleId, productIds: [CatalogFixture.monthly]))
        let query = ["bundleId": TestEnvironment.bundleId, "productId": CatalogFixture.monthly]
        let refused = env.send("DELETE", "\(Self.offers)/winback_50", role: .marketing, query: query)
        #expect(refused.status == 409 && refused.code == "offer_in_use" && refused.json["offerIds"] as? [String] == ["winback_50"], "\(refused.text)")
        #expect(writes(fixture).isEmpty)

        #expect(env.send("DELETE", "/v1/admin/offers/winback_50", role: .marketing, query: ["bundleId": TestEnvironment.bundleId]).status == 200)
        let deleted = env.send("DELETE", "\(Self.offers)/winback_50", role: .marketing, query: query)
        #expect(deleted.status == 200 && deleted.json["outcome"] as? String == "deleted", "\(deleted.text)")
        #expect(writes(fixture).map { "\($0.request.method) \($0.request.path)" } == ["DELETE /v1/subscriptionPromotionalOffers/7100000001"])
        #expect(offerCodes(fixture) == ["trial_week"])
        let again = env.send("DELETE", "\(Self.offers)/winback_50", role: .marketing, query: query)
        #expect(again.status == 200 && again.json["outcome"] as? String == "alreadyDeleted", "\(again.text)")
        #expect(writes(fixture).count == 1)
    }

    @Test("price points of a territory, and a price's equalizations, for the console's pickers")
    func pricePoints() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        defer { withExtendedLifetime(fixture) {} }
        let points = env.send("GET", "/v1/admin/appstore/price-points", role: .marketing,
                              query: ["bundleId": TestEnvironment.bundleId, "productId": CatalogFixture.monthly, "territory": "USA"])
        #expect(points.status == 200, "\(points.text)")
        #expect((points.json["pricePoints"] as? [[String: Any]])?.map { $0["customerPrice"] as? String } == ["4.99", "7.99", "9.99", "12.99"])
        #expect((points.json["pricePoints"] as? [[String: Any]])?.first?["currency"] as? String == "USD")
        let equal = env.send("GET", "/v1/admin/appstore/price-points/equalizations", role: .marketing,
                             query: ["bundleId": TestEnvironment.bundleId, "productId": CatalogFixture.monthly, "territory": "USA", "customerPrice": "4.99"])
        #expect(equal.status == 200, "\(equal.text)")
        #expect((equal.json["base"] as? [String: Any])?["id"] as? String == "pp-usa-499")
        #expect((equal.json["equalizations"] as? [[String: Any]])?.map { $0["id"] as? String } == ["pp-fra-499"])
        let unknown = env.send("GET", "/v1/admin/appstore/price-points", role: .marketing,
                               query: ["bundleId": TestEnvironment.bundleId, "productId": "com.example.app.gone", "territory": "USA"])
        #expect(unknown.status == 404 && unknown.code == "product_not_at_apple", "\(unknown.text)")
    }

    @Test("offer-signer catalog create-offer / price-points / delete-offer: the same use case, recorded as the CLI's actor; exit 2 before sending")
    func commandLine() throws {
        let env = try TestEnvironment(secondApp: true)
        let fixture = try CatalogFixture(env)
        let settings = try ServiceSettings.resolve(arguments: [], environment: [
            "OFFER_SIGNER_KEYS": env.keysPath, "OFFER_SIGNER_APPSTORE_CONNECT_URL": fixture.server.baseURL,
        ])
        let stores = try OfflineStores(path: env.folder.appendingPathComponent("db.sqlite").path)
        func run(_ command: String, _ arguments: [String], file: String = "") throws -> (Int32, [String], [String]) {
            var out: [String] = []
            var err: [String] = []
            let options = try CommandLineOptions(arguments, allowed: ServiceSettings.flags.union([
                "--bundle-id", "--product-id", "--offer-code", "--territory", "--file",
            ]))
            let code = try CatalogOfferTool.run(command, options: options, settings: settings, stores: stores, actor: "cli:tester",
                                                readFile: { _ in Array(file.utf8) }, output: { out.append($0) }, errors: { err.append($0) })
            return (code, out, err)
        }
        let app = ["--bundle-id", TestEnvironment.bundleId]
        let (created, out, _) = try run("create-offer", app + ["--file", "offer.json"], file: Self.draft())
        #expect(created == 0 && out.first?.contains(#""outcome":"created""#) == true, "\(out)")
        #expect(offerCodes(fixture).contains("spring_half"))
        let points = try run("price-points", app + ["--product-id", CatalogFixture.monthly, "--territory", "FRA"])
        #expect(points.0 == 0 && points.1.first?.contains("pp-fra-499") == true)
        let refused = try run("delete-offer", app + ["--product-id", CatalogFixture.monthly, "--offer-code", "bad code"])
        #expect(refused.0 == 2 && refused.2.first?.contains("'offerCode' must be") == true)
        let deleted = try run("delete-offer", app + ["--product-id", CatalogFixture.monthly, "--offer-code", "spring_half"])
        #expect(deleted.0 == 0, "\(deleted.2)")
        let changes = try env.rules.changes(AppStoreOfferRecord.self, bundleId: TestEnvironment.bundleId, ruleId: nil, afterId: 0, limit: 10)
        #expect(changes.count == 4 && changes.allSatisfy { $0.apiKeyName == "cli:tester" })
    }

    @Test("the mock holds bodies to Apple's schemas: an unknown member, a missing or mistyped one, prices and included that disagree")
    func mockChecksBodies() throws {
        let good = PromotionalOfferRequestBody.create(subscriptionId: "6400000001", name: "n", offerCode: "c", duration: "ONE_MONTH",
                                                      offerMode: "PAY_AS_YOU_GO", numberOfPeriods: 1,
                                                      prices: [.init(territory: "USA", pricePointId: "pp-usa-499")])
        #expect(try MockConnectOfferBody.create(Data(good)).get().prices == [.init(territory: "USA", pricePointId: "pp-usa-499")])
        let text = String(decoding: good, as: UTF8.self)
        for (bad, why) in [
            (text.replacingOccurrences(of: #""name":"n""#, with: #""name":"n","state":"APPROVED""#), "has 'state'"),
            (text.replacingOccurrences(of: #""name":"n","#, with: ""), "data.attributes.name is required"),
            (text.replacingOccurrences(of: #""numberOfPeriods":1"#, with: #""numberOfPeriods":"1""#), "must be an integer"),
            (text.replacingOccurrences(of: #""duration":"ONE_MONTH""#, with: #""duration":"P1M""#), "SubscriptionOfferDuration"),
            (text.replacingOccurrences(of: #""id":"${price-0}","relationships""#, with: #""id":"${price-9}","relationships""#), "different prices"),
            (text.replacingOccurrences(of: #""type":"subscriptions""#, with: #""type":"apps""#), "must be subscriptions"),
        ] {
            #expect(bad != text)
            guard case .failure(let error) = MockConnectOfferBody.create(Data(bad.utf8)) else {
                Issue.record("accepted: \(bad)")
                continue
            }
            #expect(error.description.contains(why), "\(error)")
        }
        let update = PromotionalOfferRequestBody.updatePrices(offerId: "7100000001", prices: [.init(territory: "USA", pricePointId: nil)])
        #expect(try MockConnectOfferBody.update(Data(update)).get().id == "7100000001")
        #expect((try? MockConnectOfferBody.create(Data(update)).get()) == nil, "an update is not a create")
    }

    @Test("an app without a Team key: 409 appstore_connect_not_configured, nothing sent")
    func notConfigured() throws {
        let env = try TestEnvironment(secondApp: true)
        let response = create(env, Self.draft())
        #expect(response.status == 409 && response.code == "appstore_connect_not_configured", "\(response.text)")
    }
}
