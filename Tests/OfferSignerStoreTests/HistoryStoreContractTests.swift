import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
@Suite("Storage contract: history store")
struct HistoryStoreContract {
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

    @Test("every field of a transaction and a renewal info reads back as it was stored", arguments: Engine.allCases)
    func roundTrip(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.history
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

    /// Subscription o1 in Production (t1 without a token, t2 of user-1, its renewal info), o2
    /// (t3), and t4 of o1 in Sandbox; returns o1's renewal state.
    static func recordTwoSubscriptions(in store: any SubscriptionHistoryStore) throws -> SubscriptionRenewalState {
        let renewal = SubscriptionRenewalState(originalTransactionId: "o1", environment: .production, expirationIntent: 1, signedDate: t0)
        _ = try store.record(batch: [
            stored(transaction("t1", user: nil)), stored(transaction("t2", user: "user-1")),
            stored(transaction("t3", original: "o2", user: nil)),
            stored(transaction("t4", environment: .sandbox, user: nil)),
            .renewal(StoredRenewal(renewal: renewal, signedRenewalInfo: "r")),
        ])
        return renewal
    }

    @Test("one subscription's history: its transactions whatever token they carry, its renewal info, in one environment and app",
          arguments: Engine.allCases)
    func subscriptionHistory(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.history
        let renewal = try Self.recordTwoSubscriptions(in: store)
        let history = try store.history(originalTransactionId: "o1", environment: .production, bundleId: "com.example.app")
        #expect(history.transactions.map(\.transactionId).sorted() == ["t1", "t2"])
        #expect(history.renewals == [renewal])
        #expect(try store.history(originalTransactionId: "o1", environment: .sandbox, bundleId: "com.example.app")
                    .transactions.map(\.transactionId) == ["t4"])
        #expect(try store.history(originalTransactionId: "o1", environment: .production, bundleId: "com.example.other") == UserHistory(),
                "another app knows nothing of it, not even its renewal info")
        #expect(try store.history(originalTransactionId: "o9", environment: .production, bundleId: "com.example.app") == UserHistory())
    }

    @Test("a named transaction's subscription: by any of its transaction IDs or its original's, in one environment and app",
          arguments: Engine.allCases)
    func namedTransactionHistory(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.history
        let renewal = try Self.recordTwoSubscriptions(in: store)
        for named in ["t2", "o1"] {
            let history = try store.history(transactionId: named, environment: .production, bundleId: "com.example.app")
            #expect(history.transactions.map(\.transactionId).sorted() == ["t1", "t2"], "\(named)")
            #expect(history.renewals == [renewal], "\(named)")
        }
        #expect(try store.history(transactionId: "t3", environment: .production, bundleId: "com.example.app")
                    .transactions.map(\.transactionId) == ["t3"])
        #expect(try store.history(transactionId: "t2", environment: .sandbox, bundleId: "com.example.app") == UserHistory())
        #expect(try store.history(transactionId: "t2", environment: .production, bundleId: "com.example.other") == UserHistory())
        #expect(try store.history(transactionId: "t9", environment: .production, bundleId: "com.example.app") == UserHistory())
    }

    @Test("consent events: one by its ID; a rescinding signed ahead of its receipt is dated at the receipt; a clearing when made",
          arguments: Engine.allCases)
    func consentEvents(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let received = Self.t0
        let notification = StoredNotification(notificationUUID: "n-1", notificationType: "RESCIND_CONSENT", subtype: nil,
                                              bundleId: "com.example.app", environment: "Production",
                                              signedDate: received.addingTimeInterval(86_400).milliseconds, receivedAt: received.milliseconds,
                                              signedPayload: "p", rescindsConsentOf: "")
        #expect(try stores.history.record(.notification(notification, nil, nil)))
        let rescinding = try #require(try stores.consents.events(bundleId: nil, afterId: 0, limit: 10).first)
        #expect(rescinding.appTransactionId == "" && rescinding.at == received && rescinding.recordedAt == received)
        #expect(try stores.consents.event(id: rescinding.id) == rescinding)
        #expect(try stores.consents.event(id: rescinding.id + 100) == nil)
        let clearedAt = received.addingTimeInterval(60)
        let cleared = try stores.consents.clear(appTransactionId: "", by: "admin", reason: "ok", at: clearedAt)
        #expect(cleared.count == 1 && cleared[0].at == clearedAt && cleared[0].recordedAt == clearedAt)
        #expect(try stores.consents.rescinded(appTransactionIds: [""], environment: .production).isEmpty)
    }

    @Test("the same transaction and subscription IDs in Production and Sandbox are kept apart; the newest copy wins in each", arguments: Engine.allCases)
    func environmentsApart(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.history
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

    @Test("known users are those of one environment", arguments: Engine.allCases)
    func knownUsers(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let store = stores.history
        _ = try store.record(batch: [
            Self.stored(Self.transaction("p1", original: "p1", user: "prod")),
            Self.stored(Self.transaction("s1", original: "s1", environment: .sandbox, user: "tester")),
            Self.stored(Self.transaction("s2", original: "s2", environment: .sandbox, user: "prod")),
        ])
        #expect(try store.knownUsers(bundleId: "com.example.app", environment: .production, afterUserId: "", limit: 10) == ["prod"])
        #expect(try store.knownUsers(bundleId: "com.example.app", environment: .sandbox, afterUserId: "", limit: 10) == ["prod", "tester"])
    }

    @Test("the same notification delivered to two openings of the database at once is stored once", arguments: Engine.allCases)
    func notificationOnce(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let first = try database.open()
        defer { first.close() }
        let second = try database.open()
        defer { second.close() }
        let uuids = (0..<20).map { _ in UUID().uuidString.lowercased() }
        let stored = LockedArray<String>()
        DispatchQueue.concurrentPerform(iterations: uuids.count * 2) { index in
            let uuid = uuids[index / 2]
            let notification = StoredNotification(notificationUUID: uuid, notificationType: "DID_RENEW", subtype: nil,
                                                  bundleId: "com.example.app", environment: "Production", signedDate: 1,
                                                  receivedAt: 2, signedPayload: "jws")
            let transaction = StoredTransaction(transaction: Self.transaction("t-\(uuid)", original: "o-\(uuid)"), signedTransaction: "jws")
            let store = index % 2 == 0 ? first.history : second.history
            if (try? store.record(.notification(notification, transaction, nil))) == true { stored.append(uuid) }
        }
        #expect(stored.values.sorted() == uuids.sorted())
        #expect(try first.history.history(userId: "user-1", bundleId: "com.example.app").transactions.count == 20)
    }
}
}
