import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

extension StorageContract {
@Suite("Storage contract: offer outcomes")
struct OutcomeStoreContract {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let bundle = "com.example.app"

    static func period(_ id: String, original: String = "o1", user: String? = "user-1", start: Date, offer: Bool = true,
                       revoked: Date? = nil, reason: String = "PURCHASE") -> HistoryItem {
        .transaction(StoredTransaction(transaction: SubscriptionTransaction(
            transactionId: id, originalTransactionId: original, bundleId: bundle, productId: "pro", subscriptionGroupIdentifier: "g1",
            purchaseDate: start, expiresDate: start.addingTimeInterval(30 * 86_400), revocationDate: revoked,
            revocationType: revoked == nil ? nil : "REFUND_FULL", offerType: offer ? 2 : nil, offerIdentifier: offer ? "winback" : nil,
            offerDiscountType: offer ? "PAY_AS_YOU_GO" : nil, price: offer ? 990 : 9_990, appAccountToken: user, transactionReason: reason,
            signedDate: revoked ?? start), signedTransaction: "x.eyJjdXJyZW5jeSI6IlVTRCJ9.y"))
    }

    static func signature(_ nonce: String, user: String = "user-1", transaction: String? = nil, format: SignatureFormat = .legacy,
                          at date: Date) -> SignatureRecord {
        SignatureRecord(nonce: nonce, format: format, bundleId: bundle, productId: "pro", offerId: "winback", userId: user, keyId: "K",
                        timestamp: date.milliseconds, signature: "s", transactionId: transaction, apiKeyName: "c", requestId: "r",
                        recordedAt: date.milliseconds)
    }

    static func all(_ stores: Stores) throws -> [RedemptionRecord] {
        try stores.outcomes.redemptions(matching: RedemptionFilter(), afterId: 0, limit: 100)
    }

    @Test("a redemption is derived when its transaction is stored and matched to a signature of the 24 hours before it; a refund changes its outcome",
          arguments: Engine.allCases)
    func derivedAndMatched(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        _ = try stores.offers.put(OfferRule(offerId: "winback", bundleId: Self.bundle, productIds: ["pro"]), by: "m", at: Self.t0)
        _ = try stores.signatures.append(Self.signature("old", at: Self.t0.addingTimeInterval(-90_000)), quota: nil)
        _ = try stores.signatures.append(Self.signature("good", at: Self.t0.addingTimeInterval(-3_600)), quota: nil)
        let reported = Mutex<[RedemptionRecord]>([])
        stores.history.observe { event in if case .unmatched(let found) = event { reported.withLock { $0 += found } } }
        var unmatched: [RedemptionRecord] { reported.withLock { $0 } }

        #expect(try stores.history.record(Self.period("r1", start: Self.t0)))
        var records = try Self.all(stores)
        #expect(records.map(\.signatureNonce) == ["good"])
        #expect(records.first?.managed == true)
        #expect(records.first?.run.revenue == ["USD": 990])
        #expect(records.first?.run.outcome(at: Self.t0) == .inOffer)

        // A second redemption in the same window: the used signature does not explain it, the older one is out of its window.
        #expect(try stores.history.record(Self.period("r2", original: "o2", start: Self.t0.addingTimeInterval(60))))
        records = try Self.all(stores)
        #expect(records.map(\.run.transactionId) == ["r1", "r2"])
        #expect(records.map(\.signatureNonce) == ["good", nil])
        #expect(unmatched.map(\.run.transactionId) == ["r2"])

        // A refund of r1's period, stored later: the same row, now refunded; nothing reported again.
        #expect(try stores.history.record(Self.period("r1", start: Self.t0, revoked: Self.t0.addingTimeInterval(86_400))))
        records = try Self.all(stores)
        #expect(records.map(\.id) == records.map(\.id).sorted())
        #expect(records.first?.run.outcome(at: Self.t0) == .refunded)
        #expect(unmatched.count == 1)

        // Rebuilt from the history and the log: the same matches.
        try stores.outcomes.deleteAllRedemptions()
        for subscription in try stores.outcomes.subscriptionsWithOffers() { try stores.outcomes.refresh(subscription) }
        #expect(try Self.all(stores).map(\.signatureNonce).sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "good"])
    }

    @Test("a customer without a token is matched by the proven subscription", arguments: Engine.allCases)
    func provenSubscription(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        _ = try stores.signatures.append(Self.signature("proven", user: "", transaction: "o7", at: Self.t0.addingTimeInterval(-60)), quota: nil)
        _ = try stores.signatures.append(Self.signature("other", user: "", transaction: "o8", at: Self.t0.addingTimeInterval(-30)), quota: nil)
        #expect(try stores.history.record(Self.period("r7", original: "o7", user: nil, start: Self.t0)))
        #expect(try Self.all(stores).map(\.signatureNonce) == ["proven"])
        #expect(try Self.all(stores).first?.managed == false)
    }

    @Test("a JWS signature bound to a subscription by its transactionId matches the subscription's token-less redemption whatever its userId; a legacy one does not",
          arguments: Engine.allCases)
    func boundJWSWhateverTheUser(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        _ = try stores.offers.put(OfferRule(offerId: "winback", bundleId: Self.bundle, productIds: ["pro"]), by: "m", at: Self.t0)
        let reported = Mutex<[RedemptionRecord]>([])
        stores.history.observe { event in if case .unmatched(let found) = event { reported.withLock { $0 += found } } }
        _ = try stores.signatures.append(Self.signature("jws", user: "alice", transaction: "o9", format: .jws,
                                                        at: Self.t0.addingTimeInterval(-60)), quota: nil)
        _ = try stores.signatures.append(Self.signature("legacy", user: "bob", transaction: "o10", at: Self.t0.addingTimeInterval(-60)),
                                         quota: nil)
        #expect(try stores.history.record(Self.period("r9", original: "o9", user: nil, start: Self.t0)))
        #expect(try stores.history.record(Self.period("r10", original: "o10", user: nil, start: Self.t0)))
        #expect(try Self.all(stores).map(\.signatureNonce) == ["jws", nil])
        #expect(reported.withLock { $0 }.map(\.run.transactionId) == ["r10"])
    }

    @Test("a redemption at exactly the signature's timestamp is matched, and its user counted as returned", arguments: Engine.allCases)
    func sameMillisecond(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        _ = try stores.signatures.append(Self.signature("s", at: Self.t0), quota: nil)
        #expect(try stores.history.record(Self.period("r1", start: Self.t0)))
        #expect(try Self.all(stores).map(\.signatureNonce) == ["s"])
        #expect(try stores.outcomes.decisionReturns(bundleId: Self.bundle, offerId: "winback", environment: .production, groupId: "g1",
                                                    from: Self.t0.milliseconds, to: Self.t0.milliseconds + 1)
                == DecisionReturns(treatedUsers: 1, treatedReturned: 1))
    }

    @Test("a user held out then signed (after the holdout ended) is treated from the signature, never held out; one user's standing decision",
          arguments: Engine.allCases)
    func signedNeverHeldOut(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let ms = Self.t0.milliseconds
        try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: Self.bundle, offerId: "winback", userKey: "c", environment: .production,
                                                          decidedAt: ms + 1_000, percent: 10))
        try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: Self.bundle, offerId: "winback", userKey: "transaction:o6",
                                                          environment: .production, decidedAt: ms + 1_000, percent: 10))
        #expect(try stores.outcomes.firstDecision(bundleId: Self.bundle, offerId: "winback", userKey: "c")
                == UserDecision(userKey: "c", decidedAt: ms + 1_000, heldOut: true))
        #expect(try stores.outcomes.firstDecision(bundleId: Self.bundle, offerId: "winback", userKey: "d") == nil)
        _ = try stores.signatures.append(Self.signature("c1", user: "c", at: Self.t0.addingTimeInterval(40)), quota: nil)
        _ = try stores.signatures.append(Self.signature("d1", user: "", transaction: "o6", at: Self.t0.addingTimeInterval(50)), quota: nil)
        #expect(try stores.outcomes.firstDecision(bundleId: Self.bundle, offerId: "winback", userKey: "c")
                == UserDecision(userKey: "c", decidedAt: ms + 40_000, heldOut: false))
        #expect(try stores.outcomes.firstDecision(bundleId: Self.bundle, offerId: "winback", userKey: "transaction:o6")
                == UserDecision(userKey: "transaction:o6", decidedAt: ms + 50_000, heldOut: false))
        #expect(try stores.outcomes.firstDecisions(bundleId: Self.bundle, offerId: "winback", environment: .production, before: ms + 60_000)
                == [UserDecision(userKey: "c", decidedAt: ms + 40_000, heldOut: false),
                    UserDecision(userKey: "transaction:o6", decidedAt: ms + 50_000, heldOut: false)])
        #expect(try stores.outcomes.decisionReturns(bundleId: Self.bundle, offerId: "winback", environment: .production, groupId: "g1",
                                                    from: ms, to: ms + 60_000)
                == DecisionReturns(treatedUsers: 2))
    }

    @Test("first decisions: the first signature, else the first holdout, per user; returned: a purchase at or after it",
          arguments: Engine.allCases)
    func decisions(engine: Engine) throws {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open()
        defer { stores.close() }
        let ms = Self.t0.milliseconds
        _ = try stores.signatures.append(Self.signature("a1", user: "a", at: Self.t0.addingTimeInterval(10)), quota: nil)
        _ = try stores.signatures.append(Self.signature("a2", user: "a", at: Self.t0.addingTimeInterval(20)), quota: nil)
        _ = try stores.signatures.append(Self.signature("p", user: "", transaction: "o5", at: Self.t0.addingTimeInterval(30)), quota: nil)
        try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: Self.bundle, offerId: "winback", userKey: "b", environment: .production,
                                                          decidedAt: ms + 5_000, percent: 10))
        try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: Self.bundle, offerId: "winback", userKey: "b", environment: .production,
                                                          decidedAt: ms + 1_000, percent: 10))
        try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: Self.bundle, offerId: "winback", userKey: "a", environment: .production,
                                                          decidedAt: ms + 50_000, percent: 10))
        let decisions = try stores.outcomes.firstDecisions(bundleId: Self.bundle, offerId: "winback", environment: .production, before: ms + 60_000)
        #expect(decisions == [UserDecision(userKey: "a", decidedAt: ms + 10_000, heldOut: false),
                              UserDecision(userKey: "b", decidedAt: ms + 5_000, heldOut: true),
                              UserDecision(userKey: "transaction:o5", decidedAt: ms + 30_000, heldOut: false)])
        #expect(try stores.outcomes.signatureCount(bundleId: Self.bundle, offerId: "winback", from: ms, to: ms + 25_000) == 2)

        _ = try stores.history.record(Self.period("b1", original: "ob", user: "b", start: Self.t0.addingTimeInterval(100), offer: false))
        _ = try stores.history.record(Self.period("p1", original: "o5", user: nil, start: Self.t0.addingTimeInterval(200), offer: false))
        #expect(try stores.outcomes.decisionReturns(bundleId: Self.bundle, offerId: "winback", environment: .production, groupId: "g1",
                                                    from: ms, to: ms + 60_000)
                == DecisionReturns(treatedUsers: 2, treatedReturned: 1, holdoutUsers: 1, holdoutReturned: 1))
        #expect(try stores.outcomes.decisionReturns(bundleId: Self.bundle, offerId: "winback", environment: .production, groupId: "g1",
                                                    from: ms + 6_000, to: ms + 60_000)
                == DecisionReturns(treatedUsers: 2, treatedReturned: 1))
        #expect(try stores.outcomes.decisionReturns(bundleId: Self.bundle, offerId: "winback", environment: .production, groupId: nil,
                                                    from: ms, to: ms + 60_000)
                == DecisionReturns(treatedUsers: 2, holdoutUsers: 1))
    }
}
}
