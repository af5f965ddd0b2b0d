import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("SQLite history store")
struct HistoryStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func transaction(_ id: String, original: String = "o1", environment: AppStoreEnvironment = .production,
                            user: String? = "user-1", product: String = "pro", group: String = "g1",
                            signed: TimeInterval = 0) -> SubscriptionTransaction {
        SubscriptionTransaction(
            transactionId: id, originalTransactionId: original, bundleId: "com.example.app", productId: product,
            subscriptionGroupIdentifier: group, environment: environment, purchaseDate: t0,
            expiresDate: t0.addingTimeInterval(30 * 86_400), appAccountToken: user, signedDate: t0.addingTimeInterval(signed))
    }

    static func stored(_ transaction: SubscriptionTransaction) -> HistoryItem {
        .transaction(StoredTransaction(transaction: transaction, signedTransaction: "jws-\(transaction.transactionId)"))
    }

    @Test("every field of a transaction and a renewal info reads back as it was stored")
    func roundTrip() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let store = SQLiteHistoryStore(database: try temp.open())
        defer { store.close() }
        let full = SubscriptionTransaction(
            transactionId: "t1", originalTransactionId: "o1", bundleId: "com.example.app", productId: "pro",
            subscriptionGroupIdentifier: "g1", environment: .sandbox, purchaseDate: Self.t0,
            expiresDate: Self.t0.addingTimeInterval(86_400), revocationDate: Self.t0.addingTimeInterval(3_600), revocationReason: 0,
            revocationType: "REFUND_PRORATED", revocationPercentage: 40_000, isUpgraded: false, offerType: 2,
            offerIdentifier: "winback", offerDiscountType: "PAY_AS_YOU_GO", price: 4_990, storefront: "USA",
            appAccountToken: "user-1", inAppOwnershipType: "FAMILY_SHARED", transactionReason: "RENEWAL",
            signedDate: Self.t0.addingTimeInterval(7_200))
        let renewal = SubscriptionRenewalState(
            originalTransactionId: "o1", environment: .sandbox, productId: "pro", autoRenewStatus: 0, isInBillingRetryPeriod: true,
            gracePeriodExpiresDate: Self.t0.addingTimeInterval(86_400), expirationIntent: 3,
            eligibleWinBackOfferIds: ["wb1", "wb2"], signedDate: Self.t0.addingTimeInterval(7_200))
        #expect(try store.record(batch: [Self.stored(full), .renewal(StoredRenewal(renewal: renewal, signedRenewalInfo: "jws-r"))]) == [true, true])
        let history = try store.history(userId: "user-1", bundleId: "com.example.app")
        #expect(history.transactions == [full])
        #expect(history.renewals == [renewal])
    }

    @Test("one subscription's history: its transactions whatever token they carry, its renewal info, in one environment and app")
    func subscriptionHistory() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let store = SQLiteHistoryStore(database: try temp.open())
        defer { store.close() }
        let renewal = SubscriptionRenewalState(originalTransactionId: "o1", environment: .production, expirationIntent: 1, signedDate: Self.t0)
        _ = try store.record(batch: [
            Self.stored(Self.transaction("t1", user: nil)), Self.stored(Self.transaction("t2", user: "user-1")),
            Self.stored(Self.transaction("t3", original: "o2", user: nil)),
            Self.stored(Self.transaction("t4", environment: .sandbox, user: nil)),
            .renewal(StoredRenewal(renewal: renewal, signedRenewalInfo: "r")),
        ])
        let history = try store.history(originalTransactionId: "o1", environment: .production, bundleId: "com.example.app")
        #expect(history.transactions.map(\.transactionId).sorted() == ["t1", "t2"])
        #expect(history.renewals == [renewal])
        #expect(try store.history(originalTransactionId: "o1", environment: .sandbox, bundleId: "com.example.app")
                    .transactions.map(\.transactionId) == ["t4"])
        #expect(try store.history(originalTransactionId: "o1", environment: .production, bundleId: "com.example.other") == UserHistory(),
                "another app knows nothing of it, not even its renewal info")
        #expect(try store.history(originalTransactionId: "o9", environment: .production, bundleId: "com.example.app") == UserHistory())
    }

    @Test("the same transaction and subscription IDs in Production and Sandbox are kept apart; the newest copy wins in each")
    func environmentsApart() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let store = SQLiteHistoryStore(database: try temp.open())
        defer { store.close() }
        #expect(try store.record(Self.stored(Self.transaction("t1", signed: 10))))
        #expect(try store.record(Self.stored(Self.transaction("t1", environment: .sandbox, group: "g-sandbox", signed: 5))),
                "a Sandbox copy of the same ID is another transaction")
        #expect(try !store.record(Self.stored(Self.transaction("t1", group: "older", signed: 1))), "an older copy changes nothing")
        #expect(try store.record(Self.stored(Self.transaction("t1", environment: .sandbox, group: "g-sandbox-2", signed: 6))))
        for environment in [AppStoreEnvironment.production, .sandbox] {
            let renewal = SubscriptionRenewalState(originalTransactionId: "o1", environment: environment,
                                                   expirationIntent: environment == .sandbox ? 1 : 3, signedDate: Self.t0)
            #expect(try store.record(.renewal(StoredRenewal(renewal: renewal, signedRenewalInfo: "r"))))
        }

        let history = try store.history(userId: "user-1", bundleId: "com.example.app")
        let groups = Dictionary(uniqueKeysWithValues: history.transactions.map { ($0.environment, $0.subscriptionGroupIdentifier) })
        #expect(groups == [.production: "g1", .sandbox: "g-sandbox-2"])
        let intents = Dictionary(uniqueKeysWithValues: history.renewals.map { ($0.environment, $0.expirationIntent) })
        #expect(intents == [.production: 3, .sandbox: 1])
        #expect(try store.subscriptionGroup(productId: "pro", bundleId: "com.example.app", environment: .sandbox) == "g-sandbox-2")
        #expect(try store.subscriptionGroup(productId: "pro", bundleId: "com.example.app", environment: .production) == "g1")
    }

    @Test("known users are those of one environment")
    func knownUsers() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let store = SQLiteHistoryStore(database: try temp.open())
        defer { store.close() }
        _ = try store.record(batch: [
            Self.stored(Self.transaction("p1", original: "p1", user: "prod")),
            Self.stored(Self.transaction("s1", original: "s1", environment: .sandbox, user: "tester")),
            Self.stored(Self.transaction("s2", original: "s2", environment: .sandbox, user: "prod")),
        ])
        #expect(try store.knownUsers(bundleId: "com.example.app", environment: .production, afterUserId: "", limit: 10) == ["prod"])
        #expect(try store.knownUsers(bundleId: "com.example.app", environment: .sandbox, afterUserId: "", limit: 10) == ["prod", "tester"])
    }
}
