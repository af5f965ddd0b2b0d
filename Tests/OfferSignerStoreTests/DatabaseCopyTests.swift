import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

@Suite("Database copy between engines")
struct DatabaseCopyTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Fills `stores` with some of everything a deployment keeps.
    static func fill(_ stores: Stores) throws {
        let rule = OfferRule(offerId: "winback", bundleId: "com.example.app", productIds: ["pro"], priority: 3)
        _ = try stores.offers.put(rule, by: "m", at: t0)
        var changed = rule
        changed.priority = 5
        _ = try stores.offers.put(changed, by: "ops", at: t0.addingTimeInterval(1))
        _ = try stores.offers.disable(bundleId: "com.example.app", offerId: "winback", by: "m", at: t0.addingTimeInterval(2))
        let transaction = SubscriptionTransaction(
            transactionId: "t1", originalTransactionId: "o1", bundleId: "com.example.app", productId: "pro",
            subscriptionGroupIdentifier: "g1", environment: .sandbox, purchaseDate: t0, expiresDate: t0.addingTimeInterval(86_400),
            revocationReason: 1, isUpgraded: true, price: 4_990, storefront: "USA", appAccountToken: "user-1", signedDate: t0,
            appTransactionId: "app-1", offerPeriod: "P1M", billingPlanType: "MONTHLY_COMMITMENT",
            commitmentInfo: .dictionary(["commitmentPeriodCount": .int(12), "note": .string("a \"quoted\" {1}")]))
        let renewal = SubscriptionRenewalState(originalTransactionId: "o1", environment: .sandbox, productId: "pro", autoRenewStatus: 0,
                                               eligibleWinBackOfferIds: ["wb, \"quoted\" {1}"], signedDate: t0, appTransactionId: "app-1")
        let notification = StoredNotification(notificationUUID: "n-1", notificationType: "DID_RENEW", subtype: nil, bundleId: "com.example.app",
                                              environment: "Sandbox", signedDate: 1, receivedAt: 2, signedPayload: "jws")
        let rescind = StoredNotification(notificationUUID: "n-2", notificationType: "RESCIND_CONSENT", subtype: nil,
                                         bundleId: "com.example.app", environment: "Sandbox", signedDate: 3, receivedAt: 4,
                                         signedPayload: "jws-c", rescindsConsentOf: "app-1")
        _ = try stores.history.record(batch: [
            .notification(notification, StoredTransaction(transaction: transaction, signedTransaction: "jws-t"),
                          StoredRenewal(renewal: renewal, signedRenewalInfo: "jws-r")),
            .notification(rescind, nil, nil),
        ])
        _ = try stores.consents.clear(appTransactionId: "app-1", by: "admin", reason: "consent given again", at: t0)
        for n in 0..<2500 {
            _ = try stores.signatures.append(SignatureRecord(
                nonce: "nonce-\(n)", format: n % 2 == 0 ? .legacy : .jws, bundleId: "com.example.app", productId: "pro", offerId: "winback",
                userId: "user-\(n % 7)", keyId: "KEY", timestamp: 1_800_000_000_000 + Int64(n), signature: "sig-\(n)",
                transactionId: n % 3 == 0 ? nil : "tx-\(n)", apiKeyName: "client", requestId: "req-\(n)", recordedAt: 1_800_000_000_000,
                source: n % 5 == 0 ? .retention : .api, allowIntroductoryOffer: n % 11 == 0 ? n % 2 == 0 : nil), quota: nil)
        }
        let retentionRule = RetentionRule(ruleId: "save", bundleId: "com.example.app", messageIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9",
                                          offerId: "winback")
        _ = try stores.rules.put(retentionRule, by: "m", at: t0)
        _ = try stores.rules.disable(RetentionRule.self, bundleId: "com.example.app", ruleId: "save", by: "m", at: t0.addingTimeInterval(1))
        _ = try StorageContract.ExperimentStoreContract.set(stores.experiments, .running)
        try stores.experiments.record(StorageContract.ExperimentStoreContract.assignment("u1", arm: "half", eligible: true, signedAt: 5), previous: nil)
        _ = try stores.retentionRequests.record(AnsweredRetentionRequest(
            requestIdentifier: "0f3c5e4a-5bd8-4b6e-9d0c-1f2e3a4b5c6d", bundleId: "com.example.app", environment: .sandbox,
            originalTransactionId: "o1", productId: "pro", userLocale: "en-US", userId: "user-1", ruleId: "save", answer: .promotionalOffer,
            signatureNonce: "nonce-5", responseJSON: "{}", signedDate: 1, answeredAt: t0))
        try stores.checkpoints.add(AuditCheckpoint(sequence: 2000, chainHash: String(repeating: "b", count: 64), timestamp: 1, keyId: "A", signature: "s"))
        let offer = OfferKey(bundleId: "com.example.app", offerId: "winback")
        try stores.activity.addRefusals([RefusalCount(day: 20_000, offer: offer, criterion: "", count: 4),
                                         RefusalCount(day: 20_000, offer: offer, criterion: "minPaidDays", count: 3)])
        try stores.sync.recordBackfill([BackfillEntry(bundleId: "com.example.app", transactionId: "t1", outcome: .fetched,
                                                      environment: "Sandbox", finishedAt: 5)])
        try stores.sync.recordRecoveredWindow(RecoveredWindow(bundleId: "com.example.app", environment: "Production", start: 1, end: 2,
                                                              found: 3, stored: 2, completedAt: 9))
        // A redemption of the offer (derived when its transaction is stored, matched to signature nonce-0) and a holdout.
        let redeemed = SubscriptionTransaction(
            transactionId: "t2", originalTransactionId: "o1", bundleId: "com.example.app", productId: "pro", subscriptionGroupIdentifier: "g1",
            environment: .sandbox, purchaseDate: Date(milliseconds: 1_800_000_000_000 + 60_000), expiresDate: t0.addingTimeInterval(2 * 86_400),
            offerType: 2, offerIdentifier: "winback", offerDiscountType: "PAY_AS_YOU_GO", price: 990, appAccountToken: "user-0",
            transactionReason: "PURCHASE", signedDate: t0)
        _ = try stores.history.record(.transaction(StoredTransaction(transaction: redeemed, signedTransaction: "jws-t2")))
        try stores.outcomes.recordHoldout(HoldoutDecision(bundleId: "com.example.app", offerId: "winback", userKey: "user-9",
                                                          environment: .production, decidedAt: 7, percent: 10))
        try stores.links.record(AppAccountTokenLink(bundleId: "com.example.app", environment: .production, originalTransactionId: "o1",
                                                    appAccountToken: "user-0", outcome: .refused, existingToken: "user-9",
                                                    reason: "a different token is set", actor: "service", requestId: "r1", forced: false,
                                                    attempts: 1, at: t0))
        try stores.catalogs.save(AppStoreCatalog(appAppleId: "15", subscriptionGroups: [CatalogGroup(id: "g1", referenceName: "Pro \"1\"")],
                                                 subscriptions: []), bundleId: "com.example.app", syncedAt: t0)
        try stores.catalogs.recordFailure(bundleId: "com.example.app", at: t0.addingTimeInterval(1), error: "429 RATE_LIMIT_EXCEEDED")
        try stores.webhooks.put(StoredWebhook(id: "crm", url: "https://hooks.example.com/", events: [.chainIntegrityFailed],
                                              bundleIds: ["com.example.app"], enabled: true, secret: "whsec_s", previousSecret: "whsec_p",
                                              previousSecretExpiresAt: t0, createdAt: t0, updatedAt: t0),
                                change: WebhookChange(webhookId: "crm", action: .created, actor: "admin", at: t0, document: "{}"))
        try stores.webhooks.enqueue([WebhookEvent(type: .chainIntegrityFailed, occurredAt: t0, bundleId: "com.example.app", environment: nil,
                                                  orderingKey: "chain", data: ["problem": "a \"quoted\" {1}"])], at: t0)
    }

    @Test("SQLite to PostgreSQL and back: every table's rows, the chain verified at each destination, new appends continue it")
    func roundTrip() throws {
        let first = try EngineDatabase(.sqlite)
        defer { first.cleanup() }
        let middle = try EngineDatabase(.postgreSQL)
        defer { middle.cleanup() }
        let last = try EngineDatabase(.sqlite)
        defer { last.cleanup() }
        let source = try first.open()
        defer { source.close() }
        try Self.fill(source)

        let postgres = try middle.open()
        defer { postgres.close() }
        var steps: [String] = []
        let there = try DatabaseCopy.run(from: source, to: postgres) { table, done, total in steps.append("\(table) \(done)/\(total)") }
        #expect(there.verified, "\(there.integrity.problem ?? "")")
        #expect(there.integrity.records == 2500)
        #expect(steps.contains("signatures 2000/2500") && steps.contains("signatures 2500/2500"), "a progress step per page")
        #expect(Dictionary(uniqueKeysWithValues: there.rows.map { ($0.table, $0.count) })
                == ["offers": 1, "offer_changes": 3, "notifications": 2, "transactions": 2, "renewals": 1, "signatures": 2500,
                    "signature_log_gaps": 0, "signature_checkpoints": 1, "signature_chain_head": 1, "offer_refusals_daily": 2,
                    "appstore_backfill": 1, "appstore_recovered_windows": 1, "managed_rules": 2, "managed_rule_changes": 3,
                    "retention_requests": 1, "consent_events": 2, "offer_redemptions": 1, "offer_holdouts": 1,
                    "app_account_token_links": 1, "experiment_placements": 1, "experiment_assignments": 1,
                    "appstore_catalogs": 1,
                    "webhooks": 1, "webhook_changes": 1, "webhook_outbox": 1])

        let back = try last.open()
        defer { back.close() }
        let home = try DatabaseCopy.run(from: postgres, to: back) { _, _, _ in }
        #expect(home.verified)
        for stores in [postgres, back] {
            #expect(try stores.offers.changes(bundleId: nil, offerId: nil, afterId: 0, limit: 10).map(\.action) == ["create", "update", "disable"])
            let history = try stores.history.history(userId: "user-1", bundleId: "com.example.app")
            #expect(history == (try source.history.history(userId: "user-1", bundleId: "com.example.app")))
            #expect(try stores.signatures.signature(nonce: "nonce-3") == (try source.signatures.signature(nonce: "nonce-3")))
            #expect(try stores.checkpoints.latest()?.sequence == 2000)
            #expect(try stores.activity.refusals(bundleId: "com.example.app", offerId: "winback", fromDay: 0, toDay: 30_000).map(\.count) == [4, 3])
            #expect(try stores.sync.backfilled(bundleId: "com.example.app", among: ["t1", "t2"]) == ["t1"])
            #expect(try stores.sync.lastRecoveredWindow(bundleId: "com.example.app", environment: "Production")?.found == 3)
            #expect(try stores.signatures.signature(nonce: "nonce-110") == (try source.signatures.signature(nonce: "nonce-110")))
            #expect(try stores.signatures.signature(nonce: "nonce-110")?.record.allowIntroductoryOffer == true)
            #expect(try stores.signatures.signature(nonce: "nonce-5")?.record.source == .retention)
            #expect(try stores.rules.changes(RetentionRule.self, bundleId: nil, ruleId: nil, afterId: 0, limit: 10).map(\.action)
                    == ["create", "disable"])
            #expect(try stores.retentionRequests.answered(bundleId: "com.example.app", environment: .sandbox, requestIdentifier: "0f3c5e4a-5bd8-4b6e-9d0c-1f2e3a4b5c6d")?.signatureNonce == "nonce-5")
            #expect(try stores.consents.events(bundleId: nil, afterId: 0, limit: 10).map(\.action) == [.rescind, .clear])
            #expect(history.transactions.first { $0.transactionId == "t1" }?.commitmentInfo == .dictionary(["commitmentPeriodCount": .int(12), "note": .string("a \"quoted\" {1}")]))
            #expect(history.renewals.first?.appTransactionId == "app-1")
            #expect(try stores.outcomes.redemptions(matching: RedemptionFilter(), afterId: 0, limit: 10).map(\.signatureNonce) == ["nonce-0"])
            #expect(try stores.outcomes.firstDecisions(bundleId: "com.example.app", offerId: "winback", environment: .production, before: 8)
                    == [UserDecision(userKey: "user-9", decidedAt: 7, heldOut: true)])
        }
        // The copies are live databases: the chain and the change IDs continue.
        let next = try postgres.signatures.append(SignatureRecord(
            nonce: "after-copy", format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "winback", userId: "u",
            keyId: "KEY", timestamp: 1, signature: "s", apiKeyName: "c", requestId: "r", recordedAt: 1), quota: nil)
        #expect(next.sequence == 2501)
        let rule = OfferRule(offerId: "other", bundleId: "com.example.app", productIds: ["pro"])
        _ = try postgres.offers.put(rule, by: "m", at: Self.t0)
        #expect(try postgres.offers.changes(bundleId: nil, offerId: "other", afterId: 0, limit: 1).first?.id == 4)
        _ = try postgres.rules.put(RetentionRule(ruleId: "other", bundleId: "com.example.app", messageIdentifier: "m"), by: "m", at: Self.t0)
        #expect(try postgres.rules.changes(RetentionRule.self, bundleId: nil, ruleId: "other", afterId: 0, limit: 1).first?.id == 4, "after the three copied changes (two of the retention rule, one of the experiment)")
        #expect(try postgres.signatures.verifyIntegrity().ok)
    }

    @Test("a destination with rows is refused, and nothing is written to it", arguments: Engine.allCases)
    func destinationNotEmpty(engine: Engine) throws {
        let from = try EngineDatabase(.sqlite)
        defer { from.cleanup() }
        let to = try EngineDatabase(engine)
        defer { to.cleanup() }
        let source = try from.open()
        defer { source.close() }
        try Self.fill(source)
        let destination = try to.open()
        defer { destination.close() }
        _ = try destination.offers.put(OfferRule(offerId: "mine", bundleId: "com.x", productIds: ["p"]), by: "m", at: Self.t0)
        #expect(throws: DatabaseCopyError.self) { try DatabaseCopy.run(from: source, to: destination) { _, _, _ in } }
        #expect(try destination.signatures.verifyIntegrity().records == 0)
    }

    @Test("every table of the SQLite schema is copied, or named as not copied")
    func everyTable() throws {
        let database = try EngineDatabase(.sqlite)
        defer { database.cleanup() }
        let sqlite = try SQLiteDatabase(path: { if case .sqlite(let path) = database.location { path } else { "" } }())
        let tables = try sqlite.read { db in try db.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(0) } }
        let copied = Set(CopiedTable.all.map(\.name))
        #expect(Set(tables).subtracting(CopiedTable.notCopied) == copied)
    }
}
