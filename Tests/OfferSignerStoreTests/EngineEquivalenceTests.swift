import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// The stores are written once (Sources/OfferSignerStore/SQL) over both engines: the same
/// calls, in the same order, on a fresh database of each engine, give the same answers.
@Suite("Stores written once behave the same on both engines")
struct EngineEquivalenceTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let bundle = "com.example.app"

    @Test("every method of every store, called in the same order on SQLite and PostgreSQL, answers the same")
    func sameAnswers() throws {
        let sqlite = try Self.transcript(.sqlite)
        let postgreSQL = try Self.transcript(.postgreSQL)
        #expect(sqlite.count == postgreSQL.count)
        for (index, (left, right)) in zip(sqlite, postgreSQL).enumerated() {
            #expect(left == right, "call \(index): SQLite and PostgreSQL differ")
        }
        #expect(sqlite.count >= 50, "the scenario ran to its end")
    }

    /// Runs the scenario on a fresh database of `engine`; one line per answer.
    static func transcript(_ engine: Engine) throws -> [String] {
        let database = try EngineDatabase(engine)
        defer { database.cleanup() }
        let stores = try database.open(followOfferChanges: false)
        defer { stores.close() }
        var lines: [String] = []
        func note(_ label: String, _ answer: @autoclosure () throws -> Any) {
            do {
                lines.append("\(label): \(try answer())")
            } catch {
                lines.append("\(label): threw \(error)")
            }
        }
        history(stores.history, note)
        rules(stores.rules, note)
        retention(stores.retentionRequests, note)
        sync(stores.sync, note)
        offers(stores.offers, note)
        signatures(stores.signatures, note)
        activity(stores.activity, note)
        checkpoints(stores.checkpoints, stores.signatures, note)
        outcomes(stores, note)
        return lines
    }

    typealias Note = (String, @autoclosure () throws -> Any) -> Void

    static func transaction(_ id: String, original: String, user: String?, environment: AppStoreEnvironment = .production,
                            signed: TimeInterval = 0) -> HistoryItem {
        .transaction(StoredTransaction(transaction: SubscriptionTransaction(
            transactionId: id, originalTransactionId: original, bundleId: bundle, productId: "pro", subscriptionGroupIdentifier: "g1",
            environment: environment, purchaseDate: t0, expiresDate: t0.addingTimeInterval(30 * 86_400), revocationReason: 1,
            isUpgraded: true, offerType: 2, price: 4_990, storefront: "USA", appAccountToken: user,
            signedDate: t0.addingTimeInterval(signed)), signedTransaction: "jws-\(id)"))
    }

    static func history(_ store: any SubscriptionHistoryStore, _ note: Note) {
        let renewal = SubscriptionRenewalState(originalTransactionId: "o1", environment: .production, productId: "pro", autoRenewStatus: 1,
                                               eligibleWinBackOfferIds: ["wb"], signedDate: t0)
        let notification = StoredNotification(notificationUUID: "n1", notificationType: "DID_RENEW", subtype: nil, bundleId: bundle,
                                               environment: "Production", signedDate: 1, receivedAt: 2, signedPayload: "jws")
        note("record", try store.record(transaction("t2", original: "o1", user: "user-1")))
        note("record older", try store.record(transaction("t2", original: "o1", user: "user-1", signed: -10)))
        note("record batch", try store.record(batch: [transaction("t1", original: "o1", user: nil), transaction("t3", original: "o2", user: "user-1"),
                                                      transaction("t4", original: "o3", user: "user-2", environment: .sandbox),
                                                      .renewal(StoredRenewal(renewal: renewal, signedRenewalInfo: "r"))]))
        let renewed = StoredTransaction(transaction: SubscriptionTransaction(
            transactionId: "t5", originalTransactionId: "o2", bundleId: bundle, productId: "pro", subscriptionGroupIdentifier: "g1",
            environment: .production, purchaseDate: t0, expiresDate: nil, signedDate: t0), signedTransaction: "jws-t5")
        note("notification", try store.record(.notification(notification, renewed, nil)))
        note("notification again", try store.record(.notification(notification, renewed, nil)))
        note("user history", try store.history(userId: "user-1", bundleId: bundle))
        note("user history, other app", try store.history(userId: "user-1", bundleId: "com.other"))
        note("subscription history", try store.history(originalTransactionId: "o1", environment: .production, bundleId: bundle))
        note("subscription history, none", try store.history(originalTransactionId: "o1", environment: .sandbox, bundleId: bundle))
        note("group", try store.subscriptionGroup(productId: "pro", bundleId: bundle, environment: .production) as Any)
        note("group, none", try store.subscriptionGroup(productId: "other", bundleId: bundle, environment: .production) as Any)
        note("known users", try store.knownUsers(bundleId: bundle, environment: .production, afterUserId: "", limit: 10))
        note("known users, sandbox", try store.knownUsers(bundleId: bundle, environment: .sandbox, afterUserId: "", limit: 10))
        note("known users, after", try store.knownUsers(bundleId: bundle, environment: .production, afterUserId: "user-1", limit: 10))
        note("known users, limit 0", try store.knownUsers(bundleId: bundle, environment: .production, afterUserId: "", limit: 0))
    }

    static func rules(_ store: any RuleStore, _ note: Note) {
        let message = "11111111-2222-3333-4444-555555555555"
        var rule = RetentionRule(ruleId: "save", bundleId: "com.a", messageIdentifier: message, offerId: "winback")
        note("put", try store.put(rule, by: "m", at: t0))
        note("put same", try store.put(rule, by: "m", at: t0 + 5))
        rule.priority = 3
        note("put changed", try store.put(rule, by: "n", at: t0 + 10))
        note("put other app", try store.put(RetentionRule(ruleId: "save", bundleId: "com.b", messageIdentifier: message), by: "m", at: t0))
        note("put other kind", try store.put(IntroductoryOfferRule(ruleId: "save", bundleId: "com.a", productIds: ["p"]), by: "m", at: t0))
        note("rule", try store.rule(RetentionRule.self, bundleId: "com.a", ruleId: "save") as Any)
        note("rule, none", try store.rule(RetentionRule.self, bundleId: "com.a", ruleId: "none") as Any)
        note("rules", try store.rules(RetentionRule.self, bundleId: nil))
        note("rules of app", try store.rules(IntroductoryOfferRule.self, bundleId: "com.a"))
        note("disable", try store.disable(RetentionRule.self, bundleId: "com.a", ruleId: "save", by: "m", at: t0 + 20) as Any)
        note("disable, none", try store.disable(RetentionRule.self, bundleId: "com.a", ruleId: "none", by: "m", at: t0) as Any)
        note("changes", try store.changes(RetentionRule.self, bundleId: nil, ruleId: nil, afterId: 0, limit: 10))
        note("changes filtered", try store.changes(RetentionRule.self, bundleId: "com.a", ruleId: "save", afterId: 1, limit: 1))
        note("changes, limit 0", try store.changes(IntroductoryOfferRule.self, bundleId: nil, ruleId: nil, afterId: 0, limit: 0))
    }

    static func retention(_ store: any RetentionRequestStore, _ note: Note) {
        let request = AnsweredRetentionRequest(requestIdentifier: "req-1", bundleId: "com.a", environment: .sandbox, originalTransactionId: "1000",
                                               productId: "p", userLocale: "en-US", userId: nil, ruleId: "save", answer: .promotionalOffer,
                                               signatureNonce: "nonce", responseJSON: "{\"first\":1}", signedDate: 5, answeredAt: t0)
        note("answered, none", try store.answered(bundleId: "com.a", environment: .sandbox, requestIdentifier: "req-1") as Any)
        note("record", try store.record(request))
        var second = request
        second.responseJSON = "{\"second\":2}"
        note("record again", try store.record(second))
        note("answered", try store.answered(bundleId: "com.a", environment: .sandbox, requestIdentifier: "req-1") as Any)
        note("answered, other app", try store.answered(bundleId: "com.b", environment: .sandbox, requestIdentifier: "req-1") as Any)
        note("prune, none old enough", try store.prune(answeredBefore: t0, limit: 10))
        note("prune", try store.prune(answeredBefore: t0 + 1, limit: 10))
        note("answered after prune", try store.answered(bundleId: "com.a", environment: .sandbox, requestIdentifier: "req-1") as Any)
    }

    static func sync(_ store: any AppStoreSyncStore, _ note: Note) {
        note("backfilled, none", try store.backfilled(bundleId: "com.a", among: ["t1"]).sorted())
        note("record backfill", try store.recordBackfill([
            BackfillEntry(bundleId: "com.a", transactionId: "t1", outcome: .fetched, environment: "Production", finishedAt: 1),
            BackfillEntry(bundleId: "com.a", transactionId: "t,\"2", outcome: .covered, environment: nil, coveredBy: "t1", finishedAt: 2),
            BackfillEntry(bundleId: "com.b", transactionId: "t3", outcome: .notFound, environment: nil, finishedAt: 3),
        ]))
        note("record backfill again", try store.recordBackfill([
            BackfillEntry(bundleId: "com.a", transactionId: "t1", outcome: .notFound, environment: nil, finishedAt: 4)]))
        note("backfilled", try store.backfilled(bundleId: "com.a", among: ["t1", "t,\"2", "t3", "NULL"]).sorted())
        note("window, none", try store.lastRecoveredWindow(bundleId: "com.a", environment: "Production") as Any)
        for end: Int64 in [20, 10] {
            note("record window", try store.recordRecoveredWindow(RecoveredWindow(bundleId: "com.a", environment: "Production", start: end - 10,
                                                                                  end: end, found: Int(end), stored: 1, completedAt: 99)))
        }
        note("window", try store.lastRecoveredWindow(bundleId: "com.a", environment: "Production") as Any)
    }

    static func offers(_ store: any OfferStore, _ note: Note) {
        var rule = OfferRule(offerId: "winback", bundleId: bundle, productIds: ["pro"], startsAt: t0,
                             eligibility: EligibilityCriteria(requireLapsed: true, minPaidDays: 30), limits: OfferLimits(maxSignaturesPerUserPerDay: 2))
        note("put", try store.put(rule, by: "m", at: t0))
        note("put same", try store.put(rule, by: "m", at: t0 + 1))
        rule.productIds = ["pro", "max"]
        var other = rule
        other.bundleId = "com.other"
        note("apply", try store.apply([rule, other], by: "n", at: t0 + 2))
        note("offer", try store.offer(bundleId: bundle, offerId: "winback") as Any)
        note("offer, none", try store.offer(bundleId: bundle, offerId: "none") as Any)
        note("disable", try store.disable(bundleId: "com.other", offerId: "winback", by: "m", at: t0 + 3) as Any)
        note("disable, none", try store.disable(bundleId: "com.other", offerId: "none", by: "m", at: t0 + 3) as Any)
        note("offers", try store.offers())
        note("changes", try store.changes(bundleId: nil, offerId: nil, afterId: 0, limit: 10))
        note("changes filtered", try store.changes(bundleId: "com.other", offerId: "winback", afterId: 0, limit: 1))
    }

    static func signatures(_ log: any RepairableSignatureLog, _ note: Note) {
        func record(_ nonce: String, user: String, at timestamp: Int64, source: SignatureSource = .api) -> SignatureRecord {
            SignatureRecord(nonce: nonce, format: .legacy, bundleId: bundle, productId: "pro", offerId: "winback", userId: user, keyId: "K",
                            timestamp: timestamp, signature: "s", transactionId: user.isEmpty ? "1000" : nil, apiKeyName: "c",
                            requestId: "r", recordedAt: timestamp, source: source)
        }
        let day: Int64 = 20_000 * 86_400_000
        let quota = SignatureQuota(maxCount: 2)
        for (index, user) in ["u1", "u1", "u1", "", "", "", "u2"].enumerated() {
            note("append \(index)", try log.append(record("n\(index)", user: user, at: day + Int64(index) * 1000), quota: quota))
        }
        note("by nonce", try log.signature(nonce: "n1") as Any)
        note("by nonce, none", try log.signature(nonce: "none") as Any)
        note("all", try log.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 100).map(\.sequence))
        note("filtered", try log.signatures(matching: SignatureFilter(userId: "u1", offerId: "winback", bundleId: bundle, fromTimestamp: day,
                                                                     toTimestamp: day + 10_000), afterSequence: 1, limit: 5))
        note("limit 0", try log.signatures(matching: SignatureFilter(), afterSequence: 0, limit: 0))
        note("integrity", try log.verifyIntegrity(IntegrityOptions()).ok)
        note("committed end", log.committedEnd())
        note("nothing lost", String(describing: Result { () throws(TruncationRefusal) in try log.acceptTruncation(by: "op", reason: "r", at: t0) }))
    }

    static func activity(_ store: any OfferActivityStore, _ note: Note) {
        let offer = OfferKey(bundleId: bundle, offerId: "winback")
        note("add", try store.addRefusals([RefusalCount(day: 20_000, offer: offer, criterion: "", count: 1),
                                           RefusalCount(day: 20_000, offer: offer, criterion: "storefronts", count: 2),
                                           RefusalCount(day: 20_001, offer: offer, criterion: "", count: 4)]))
        note("add again", try store.addRefusals([RefusalCount(day: 20_000, offer: offer, criterion: "", count: 5)]))
        note("refusals", try store.refusals(bundleId: bundle, offerId: "winback", fromDay: 19_999, toDay: 20_001))
        note("refused requests", try sorted(store.refusedRequests(fromDay: 20_000, toDay: 20_001)))
        note("signatures per day", try sorted(store.signaturesPerDay(bundleId: bundle, offerId: "winback", from: 0, to: 30_000 * 86_400_000)))
        note("signatures", try sorted(store.signatures(from: 0, to: 30_000 * 86_400_000)))
    }

    /// A dictionary's entries in one order, whatever order it was built in.
    static func sorted<Key, Value>(_ dictionary: [Key: Value]) -> [String] {
        dictionary.map { "\($0.key)=\($0.value)" }.sorted()
    }

    static func checkpoints(_ store: any CheckpointStore, _ log: any SignatureLog, _ note: Note) {
        let end = log.committedEnd()
        note("latest, none", try store.latest() as Any)
        note("add", try store.add(AuditCheckpoint(sequence: end.sequence, chainHash: end.hash, timestamp: 1, keyId: "A", signature: "x")))
        note("add older", try store.add(AuditCheckpoint(sequence: 1, chainHash: "h", timestamp: 2, keyId: "B", signature: "y")))
        note("checkpoints", try store.checkpoints(afterId: 0, limit: 10))
        note("checkpoints after", try store.checkpoints(afterId: 1, limit: 10))
        note("latest", try store.latest() as Any)
        note("integrity with checkpoints", try log.verifyIntegrity(IntegrityOptions(checkpoints: [end])).ok)
    }

    /// After `signatures`: redemptions of `winback` by u1 (token) and by subscription 1000 (no
    /// token) a minute after the signatures, a holdout, and every read of the outcome store.
    static func outcomes(_ stores: Stores, _ note: Note) {
        let day: Int64 = 20_000 * 86_400_000
        func redeemed(_ id: String, original: String, user: String?, offer: Bool = true, at ms: Int64) -> HistoryItem {
            .transaction(StoredTransaction(transaction: SubscriptionTransaction(
                transactionId: id, originalTransactionId: original, bundleId: bundle, productId: "pro", subscriptionGroupIdentifier: "g1",
                purchaseDate: Date(milliseconds: ms), expiresDate: Date(milliseconds: ms + 30 * 86_400_000),
                offerType: offer ? 2 : nil, offerIdentifier: offer ? "winback" : nil, offerDiscountType: offer ? "PAY_AS_YOU_GO" : nil,
                price: offer ? 990 : 9_990, appAccountToken: user, transactionReason: "PURCHASE", signedDate: Date(milliseconds: ms)),
                signedTransaction: "x.eyJjdXJyZW5jeSI6IkVVUiJ9.y"))
        }
        note("redeem u1", try stores.history.record(redeemed("r1", original: "500", user: "u1", at: day + 60_000)))
        note("redeem again u1", try stores.history.record(redeemed("r2", original: "501", user: "u1", at: day + 61_000)))
        note("redeem 1000", try stores.history.record(redeemed("r3", original: "1000", user: nil, at: day + 62_000)))
        note("renew u1", try stores.history.record(redeemed("r4", original: "500", user: "u1", offer: false, at: day + 31 * 86_400_000)))
        note("redemptions", try stores.outcomes.redemptions(matching: RedemptionFilter(), afterId: 0, limit: 10).map {
            "\($0.run.transactionId) \($0.signatureNonce ?? "-") \($0.run.outcome(at: Date(milliseconds: day))) \($0.run.revenue) \($0.managed)"
        })
        note("unmatched", try stores.outcomes.redemptions(matching: RedemptionFilter(matched: false), afterId: 0, limit: 10).map(\.run.transactionId))
        note("in window", try stores.outcomes.redemptions(matching: RedemptionFilter(bundleId: bundle, offerId: "winback",
                                                                                       from: day + 61_000, to: day + 62_000), afterId: 0, limit: 10).count)
        note("holdout", try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: bundle, offerId: "winback", userKey: "u9",
                                                                          environment: .production, decidedAt: day, percent: 10)))
        note("holdout again", try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: bundle, offerId: "winback", userKey: "u9",
                                                                                environment: .production, decidedAt: day + 5, percent: 10)))
        note("first decisions", try stores.outcomes.firstDecisions(bundleId: bundle, offerId: "winback", environment: .production,
                                                                   before: day + 86_400_000))
        note("decision returns", try stores.outcomes.decisionReturns(bundleId: bundle, offerId: "winback", environment: .production,
                                                                     groupId: "g1", from: day - 1, to: day + 86_400_000))
        note("signature count", try stores.outcomes.signatureCount(bundleId: bundle, offerId: "winback", from: day, to: day + 3_000))
        note("with offers", try stores.outcomes.subscriptionsWithOffers().map(\.originalTransactionId).sorted())
        note("delete all", try stores.outcomes.deleteAllRedemptions())
        note("refresh 500", try stores.outcomes.refresh(SubscriptionRef(bundleId: bundle, environment: .production, originalTransactionId: "500")).count)
        note("after rebuild", try stores.outcomes.redemptions(matching: RedemptionFilter(), afterId: 0, limit: 10).map(\.run.transactionId))
    }
}
