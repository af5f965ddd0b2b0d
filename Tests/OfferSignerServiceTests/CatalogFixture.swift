import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerCore

/// A mock App Store Connect with the catalogs of the test environment's two apps, the Team key
/// it trusts written beside the keys file, and the environment's catalog sync pointed at it.
final class CatalogFixture {
    static let keyId = "TEAMKEY001"
    static let issuerId = "69a6de7e-1234-47e3-e053-5b8c7c11a4d1"
    static let monthly = TestEnvironment.product
    static let yearly = "com.example.app.pro_yearly"

    let connect: MockAppStoreConnect
    let server: MockHTTPServer

    init(_ env: TestEnvironment, pageSize: Int = 1) throws {
        let key = try P256PrivateKey.generate()
        let keyPath = env.folder.appendingPathComponent("team.p8")
        try key.pkcs8PEM.write(to: keyPath, atomically: true, encoding: .utf8)
        chmod(keyPath.path, 0o600)
        connect = MockAppStoreConnect(jwt: MockAppStoreConnectJWT(keyId: Self.keyId, issuerId: Self.issuerId, publicKey: key.publicKey),
                                      pageSize: pageSize)
        server = try connect.start()
        for app in Self.apps { connect.add(app) }
        var file = try JSONDecoder().decode(KeysFile.self, from: try TestEnvironment.keysFile(secondApp: true))
        for index in file.apps.indices {
            file.apps[index].appStoreConnect = KeysFile.AppStoreConnectEntry(issuerId: Self.issuerId, keyId: Self.keyId,
                                                                             privateKeyPath: "team.p8")
        }
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: env.keysPath))
        env.keyRing.replace(with: try KeyConfiguration.load(path: env.keysPath))
        let clients = try AppStoreConnectClients(configuration: AppStoreConnectConfiguration(
            baseURL: server.baseURL, timeout: .seconds(10), connectTimeout: .seconds(5),
            retry: AppStoreServerAPIRetryPolicy(maxRetries: 1, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(20),
                                                maxRateLimitRetries: 2, maxRetryAfterWait: .seconds(5)),
            requestsPerSecond: 1000))
        let clock = env.clock
        env.catalogSync = CatalogSync(keyRing: env.keyRing, clients: clients, store: env.catalogStore, catalogs: env.catalogs,
                                      clock: clock, logger: .silent, metrics: env.metrics)
    }

    deinit { server.stop() }

    /// com.example.app: one group with the monthly product (regular prices in two territories,
    /// one scheduled; a promotional offer with prices in two territories, a free trial, an introductory offer, a win-back offer and an offer code)
    /// and the yearly product nobody has bought, without offers; com.example.app.pro, whose
    /// bundle ID starts with the first's; com.example.other with one offer.
    static let apps: [MockConnectApp] = [
        MockConnectApp(id: "1500000001", bundleId: TestEnvironment.bundleId, groups: [
            MockConnectGroup(id: "21000001", referenceName: "Pro", subscriptions: [
                MockConnectSubscription(
                    id: "6400000001", productId: monthly, name: "Pro Monthly", subscriptionPeriod: "ONE_MONTH", groupLevel: 2,
                    promotionalOffers: [
                        MockConnectPromotionalOffer(id: "7100000001", offerCode: "winback_50", name: "Win back 50%", duration: "THREE_MONTHS",
                                                    offerMode: "PAY_AS_YOU_GO", numberOfPeriods: 3,
                                                    prices: [("USA", "pp-usa-499"), ("FRA", "pp-fra-499")]),
                        MockConnectPromotionalOffer(id: "7100000002", offerCode: "trial_week", name: "A free week", duration: "ONE_WEEK",
                                                    offerMode: "FREE_TRIAL", numberOfPeriods: 1, prices: [("USA", nil), ("FRA", nil)]),
                    ],
                    introductoryOffers: [MockConnectIntroductoryOffer(id: "7200000001", duration: "ONE_WEEK", offerMode: "FREE_TRIAL",
                                                                      territory: "USA")],
                    winBackOffers: [MockConnectWinBackOffer(id: "7300000001", offerId: "wb_spring")],
                    offerCodes: [MockConnectOfferCode(id: "7400000001", name: "Spring codes")],
                    pricePoints: [
                        MockConnectPricePoint(id: "pp-usa-499", territory: "USA", customerPrice: "4.99", equalizations: ["pp-fra-499"]),
                        MockConnectPricePoint(id: "pp-fra-499", territory: "FRA", customerPrice: "4.99"),
                        MockConnectPricePoint(id: "pp-usa-999", territory: "USA", customerPrice: "9.99", equalizations: ["pp-fra-999"]),
                        MockConnectPricePoint(id: "pp-usa-799", territory: "USA", customerPrice: "7.99"),
                        MockConnectPricePoint(id: "pp-usa-1299", territory: "USA", customerPrice: "12.99"),
                        MockConnectPricePoint(id: "pp-fra-999", territory: "FRA", customerPrice: "9.99"),
                    ],
                    prices: [
                        MockConnectSubscriptionPrice(id: "sp-usa-1", pricePointId: "pp-usa-799"),
                        MockConnectSubscriptionPrice(id: "sp-usa-2", pricePointId: "pp-usa-999", startDate: "2026-06-01"),
                        MockConnectSubscriptionPrice(id: "sp-usa-3", pricePointId: "pp-usa-1299", startDate: "2027-03-01"),
                        MockConnectSubscriptionPrice(id: "sp-fra-1", pricePointId: "pp-fra-999"),
                    ]),
                MockConnectSubscription(id: "6400000002", productId: yearly, name: "Pro Yearly", subscriptionPeriod: "ONE_YEAR", groupLevel: 1),
            ]),
        ]),
        MockConnectApp(id: "1500000009", bundleId: TestEnvironment.bundleId + ".pro", groups: [
            MockConnectGroup(id: "21000009", referenceName: "Elsewhere", subscriptions: [
                MockConnectSubscription(id: "6400000009", productId: "com.example.app.pro.elsewhere"),
            ]),
        ]),
        MockConnectApp(id: "1500000002", bundleId: TestEnvironment.otherBundleId, groups: [
            MockConnectGroup(id: "21000002", referenceName: "Plus", subscriptions: [
                MockConnectSubscription(id: "6400000003", productId: TestEnvironment.otherProduct, promotionalOffers: [
                    MockConnectPromotionalOffer(id: "7100000003", offerCode: "other_20", prices: [("GBR", "pp-gbr-399")]),
                ], pricePoints: [MockConnectPricePoint(id: "pp-gbr-399", territory: "GBR", customerPrice: "3.99")]),
            ]),
        ]),
    ]
}
