import Foundation
import OfferSignerCore
import Synchronization
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: webhooks and their outbox")
    struct WebhookContract {
        static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

        func record(user: String, bundle: String = "com.example.app", at ms: Int64 = 1_800_000_000_000) -> SignatureRecord {
            SignatureRecord(nonce: UUID().uuidString.lowercased(), format: .legacy, bundleId: bundle, productId: "pro", offerId: "offer-1",
                            userId: user, keyId: "KEY", timestamp: ms, signature: "MEUCsecret-signature", apiKeyName: "client",
                            requestId: "req", recordedAt: ms)
        }

        func webhook(_ id: String, events: [WebhookEventType] = [.offerSigned], bundleIds: [String]? = nil,
                     enabled: Bool = true) -> StoredWebhook {
            StoredWebhook(id: id, url: "https://hooks.example.com/\(id)", events: events, bundleIds: bundleIds, enabled: enabled,
                          secret: "whsec_\(id)", createdAt: Self.t0, updatedAt: Self.t0)
        }

        func change(_ id: String, _ action: WebhookChange.Action = .created) -> WebhookChange {
            WebhookChange(webhookId: id, action: action, actor: "admin-key", at: Self.t0, document: #"{"url":"…"}"#)
        }

        @Test("webhooks are created, replaced, listed and deleted; every change is recorded with who made it", arguments: Engine.allCases)
        func administration(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.webhooks
            try store.put(webhook("crm", events: [.offerSigned, .consentRescinded], bundleIds: ["com.example.app", "com.example.other"]),
                          change: change("crm"))
            var replaced = webhook("crm", enabled: false)
            replaced.previousSecret = "whsec_old"
            replaced.previousSecretExpiresAt = Self.t0.addingTimeInterval(86400)
            try store.put(webhook("analytics"), change: change("analytics"))
            let read = try #require(try store.webhook(id: "crm"))
            #expect(read.events == [.offerSigned, .consentRescinded] && read.bundleIds == ["com.example.app", "com.example.other"])
            #expect(read.secret == "whsec_crm" && read.enabled)
            try store.put(replaced, change: change("crm", .updated))
            #expect(try store.webhook(id: "crm") == replaced)
            #expect(try store.webhooks().map(\.id) == ["analytics", "crm"])
            #expect(try store.delete(id: "analytics", change: change("analytics", .deleted)))
            #expect(try !store.delete(id: "analytics", change: change("analytics", .deleted)))
            #expect(try store.webhook(id: "analytics") == nil)
            let changes = try store.changes(webhookId: "crm", afterId: 0, limit: 10)
            #expect(changes.map(\.action) == [.created, .updated] && changes.allSatisfy { $0.actor == "admin-key" })
            #expect(try store.changes(webhookId: "analytics", afterId: 0, limit: 10).map(\.action) == [.created, .deleted])
        }

        @Test("offer.signed goes into the outbox in the signature batch's commit, only for enabled webhooks that take it and its app",
              arguments: Engine.allCases)
        func signedEvents(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.webhooks
            _ = try stores.signatures.append(record(user: "nobody-listens"), quota: nil)
            #expect(try stores.webhooks.claim(limit: 10, now: Date(), lease: .seconds(30)).isEmpty)

            try store.put(webhook("signed"), change: change("signed"))
            try store.put(webhook("other-app", bundleIds: ["com.example.other"]), change: change("other-app"))
            try store.put(webhook("off", enabled: false), change: change("off"))
            try store.put(webhook("consent-only", events: [.consentRescinded]), change: change("consent-only"))
            let logged = try stores.signatures.append(record(user: "user-a"), quota: nil)

            let claimed = try store.claim(limit: 10, now: Date(), lease: .seconds(30))
            #expect(claimed.map(\.webhookId) == ["signed"])
            let body = try #require(claimed.first?.body)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect(Set(document.keys) == ["id", "type", "occurredAt", "bundleId", "environment", "data"])
            #expect(document["type"] as? String == "offer.signed" && document["bundleId"] as? String == "com.example.app")
            #expect(document["occurredAt"] as? String == "2027-01-15T08:00:00Z")
            let data = try #require(document["data"] as? [String: Any])
            #expect(data["userId"] as? String == "user-a" && data["nonce"] as? String == logged.record.nonce)
            #expect(data["sequence"] as? Int == Int(logged.sequence))
            #expect(!body.contains("secret-signature"), "no event carries the signature")
        }

        @Test("offer.signed is prepared on the appending thread: the log's writer only numbers and inserts it, for each way of appending",
              arguments: Engine.allCases)
        func signedPreparedBeforeTheWriter(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let outbox = try #require((stores.webhooks as? SQLWebhookStore<SQLiteDatabase>)?.outbox
                ?? (stores.webhooks as? SQLWebhookStore<PostgreSQLDatabase>)?.outbox)
            try stores.webhooks.put(webhook("signed"), change: change("signed"))
            var logged = [try stores.signatures.append(record(user: "user-a"), quota: nil)]
            logged += try stores.signatures.append(all: (0..<3).map { record(user: "user-\($0)") })
            _ = try stores.signatures.append(record(user: "user-other-app", bundle: "com.example.other"), quota: nil)
            let claimed = try stores.webhooks.claim(limit: 10, now: Date(), lease: .seconds(30))
            #expect(claimed.count == 5, "one event per record appended, the other app's too (the webhook takes every app)")
            for entry in logged {
                let delivery = try #require(claimed.first { $0.body.contains(entry.record.nonce) })
                #expect(delivery.body == WebhookEvents.signed(entry, id: delivery.eventId).document)
            }
            #expect(outbox.signedMadeByWriter == 0, "every event was prepared before its record reached the writer")
        }

        @Test("a batch's events for two webhooks go in statements of at most 64 rows, every row written once (64, 65 and 130 rows)",
              arguments: Engine.allCases)
        func signedInChunks(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.webhooks.put(webhook("first"), change: change("first"))
            try stores.webhooks.put(webhook("second"), change: change("second"))
            var nonces: [String] = []
            for events in [32, 1, 32, 65] {  // rows: 64, 2, 64, 130
                nonces += try stores.signatures.append(all: (0..<events).map { record(user: "user-\(nonces.count + $0)") }).map(\.record.nonce)
            }
            var claimed: [ClaimedDelivery] = []
            while true {
                let next = try stores.webhooks.claim(limit: 50, now: Date(), lease: .seconds(60))
                if next.isEmpty { break }
                claimed += next
            }
            #expect(claimed.count == 2 * nonces.count)
            for webhookId in ["first", "second"] {
                let bodies = claimed.filter { $0.webhookId == webhookId }.map(\.body)
                #expect(bodies.count == nonces.count && Set(bodies).count == nonces.count)
                #expect(Set(nonces.compactMap { nonce in bodies.first { $0.contains(nonce) } }).count == nonces.count)
            }
        }

        @Test("claims keep each user's order per webhook, skip leased deliveries, and a lapsed claim cannot record",
              arguments: Engine.allCases)
        func claimOrder(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.webhooks
            try store.put(webhook("w"), change: change("w"))
            let a1 = try stores.signatures.append(record(user: "user-a"), quota: nil)
            let a2 = try stores.signatures.append(record(user: "user-a"), quota: nil)
            let b1 = try stores.signatures.append(record(user: "user-b"), quota: nil)
            func nonce(_ delivery: ClaimedDelivery) -> String {
                let document = try? JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [String: Any]
                return (document?["data"] as? [String: Any])?["nonce"] as? String ?? ""
            }
            let now = Date()
            let first = try store.claim(limit: 10, now: now, lease: .seconds(30))
            #expect(first.map(nonce) == [a1.record.nonce, b1.record.nonce], "user-a's second event waits for the first")
            #expect(try store.claim(limit: 10, now: now, lease: .seconds(30)).isEmpty, "leased deliveries are not claimed twice")
            // user-a's first fails: it is retried later, and the second still waits behind it.
            #expect(try store.record(DeliveryAttempt(delivery: first[0], at: now, outcome: .retry(at: now.addingTimeInterval(60)),
                                                     status: 500, answer: "oops", error: nil)))
            #expect(try store.record(DeliveryAttempt(delivery: first[1], at: now, outcome: .delivered, status: 204, answer: "", error: nil)))
            #expect(try store.claim(limit: 10, now: now, lease: .seconds(30)).isEmpty)
            let retried = try store.claim(limit: 10, now: now.addingTimeInterval(61), lease: .seconds(30))
            #expect(retried.map(nonce) == [a1.record.nonce] && retried[0].attempts == 1)
            // Its claim lapses; another claim takes it, and the first holder can no longer record.
            let again = try store.claim(limit: 10, now: now.addingTimeInterval(200), lease: .seconds(30))
            #expect(again.map(nonce) == [a1.record.nonce])
            #expect(try !store.record(DeliveryAttempt(delivery: retried[0], at: now, outcome: .delivered, status: 200, answer: nil, error: nil)))
            #expect(try store.record(DeliveryAttempt(delivery: again[0], at: now, outcome: .delivered, status: 200, answer: nil, error: nil)))
            let next = try store.claim(limit: 10, now: now.addingTimeInterval(201), lease: .seconds(30))
            #expect(next.map(nonce) == [a2.record.nonce])

            let listed = try store.deliveries(webhookId: "w", state: nil, beforeId: nil, limit: 10)
            #expect(listed.map(\.state) == [.delivered, .pending, .delivered], "newest first: user-b's, user-a's second, user-a's first")
            #expect(listed[2].attempts == 2 && listed[2].lastStatus == 200, "the lapsed claim's try is not counted")
            #expect(try store.deliveries(webhookId: "w", state: .delivered, beforeId: nil, limit: 1).count == 1)
        }

        @Test("retry, replay, dead letters, the oldest undelivered age and pruning delivered events in batches", arguments: Engine.allCases)
        func retryReplayPrune(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let store = stores.webhooks
            try store.put(webhook("w"), change: change("w"))
            for index in 0..<5 { _ = try stores.signatures.append(record(user: "user-\(index)", at: 1_800_000_000_000 + Int64(index) * 1000), quota: nil) }
            #expect(try store.oldestUndelivered() != nil)
            let now = Date()
            let claimed = try store.claim(limit: 10, now: now, lease: .seconds(30))
            #expect(claimed.count == 5)
            try store.record(DeliveryAttempt(delivery: claimed[0], at: now, outcome: .dead, status: 500, answer: nil, error: nil))
            for delivery in claimed.dropFirst() {
                try store.record(DeliveryAttempt(delivery: delivery, at: now.addingTimeInterval(-40 * 86400), outcome: .delivered,
                                                 status: 200, answer: nil, error: nil))
            }
            #expect(try store.oldestUndelivered() == nil, "a dead letter is not waiting")
            #expect(try store.deliveries(webhookId: "w", state: .dead, beforeId: nil, limit: 10).map(\.eventId) == [claimed[0].eventId])
            #expect(try store.retry(webhookId: "w", eventId: claimed[0].eventId, at: now))
            #expect(try !store.retry(webhookId: "w", eventId: "no-such-event", at: now))
            #expect(try store.deliveries(webhookId: "w", state: .pending, beforeId: nil, limit: 10).map(\.attempts) == [0])
            // Replay the events that occurred in the second and third seconds.
            let replayed = try store.replay(webhookId: "w", from: Date(timeIntervalSince1970: 1_800_000_001),
                                            to: Date(timeIntervalSince1970: 1_800_000_003), at: now)
            #expect(replayed == 2)
            #expect(try store.deliveries(webhookId: "w", state: .pending, beforeId: nil, limit: 10).count == 3)
            // Two delivered 40 days ago remain; pruned one at a time.
            #expect(try store.pruneDelivered(before: now.addingTimeInterval(-30 * 86400), batchSize: 1) == 1)
            #expect(try store.pruneDelivered(before: now.addingTimeInterval(-30 * 86400), batchSize: 1) == 1)
            #expect(try store.pruneDelivered(before: now.addingTimeInterval(-30 * 86400), batchSize: 1) == 0)
            #expect(try store.deliveries(webhookId: "w", state: nil, beforeId: nil, limit: 10).count == 3)
        }

        @Test("consent rescinded (in the notification's commit) and cleared, a redemption matched, a link: each event in its cause's transaction",
              arguments: Engine.allCases)
        func causedEvents(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.webhooks.put(webhook("all", events: [.consentRescinded, .consentCleared, .redemptionMatched, .redemptionUnmatched,
                                                            .outcomeChanged, .appAccountTokenLinked]), change: change("all"))
            let t0 = Self.t0
            _ = try stores.offers.put(OfferRule(offerId: "winback", bundleId: "com.example.app", productIds: ["pro"], priority: 3), by: "m", at: t0)
            let rescind = StoredNotification(notificationUUID: "n-2", notificationType: "RESCIND_CONSENT", subtype: nil,
                                             bundleId: "com.example.app", environment: "Sandbox", signedDate: 3, receivedAt: 4,
                                             signedPayload: "jws-c", rescindsConsentOf: "app-1")
            _ = try stores.history.record(.notification(rescind, nil, nil))
            _ = try stores.history.record(.notification(rescind, nil, nil))  // Apple's retry: recorded once, announced once
            _ = try stores.consents.clear(appTransactionId: "app-1", by: "admin", reason: "consent given again", at: t0)
            let signed = try stores.signatures.append(record(user: "user-0"), quota: nil)
            let redeemed = SubscriptionTransaction(
                transactionId: "t2", originalTransactionId: "o1", bundleId: "com.example.app", productId: "pro", subscriptionGroupIdentifier: "g1",
                environment: .sandbox, purchaseDate: Date(milliseconds: 1_800_000_000_000 + 60_000), expiresDate: t0.addingTimeInterval(2 * 86_400),
                offerType: 2, offerIdentifier: "offer-1", offerDiscountType: "PAY_AS_YOU_GO", price: 990, appAccountToken: "user-0",
                transactionReason: "PURCHASE", signedDate: t0)
            _ = try stores.history.record(.transaction(StoredTransaction(transaction: redeemed, signedTransaction: "jws-t2")))
            try stores.links.record(AppAccountTokenLink(bundleId: "com.example.app", environment: .production, originalTransactionId: "o1",
                                                        appAccountToken: "user-0", outcome: .linked, actor: "service", attempts: 1, at: t0))
            try stores.links.record(AppAccountTokenLink(bundleId: "com.example.app", environment: .production, originalTransactionId: "o2",
                                                        appAccountToken: "user-0", outcome: .failed, reason: "down", actor: "service",
                                                        attempts: 3, at: t0))
            // One per user at a time: deliver each round's and claim again.
            var claimed: [ClaimedDelivery] = []
            for _ in 0..<10 {
                let round = try stores.webhooks.claim(limit: 20, now: Date(), lease: .seconds(30))
                for delivery in round {
                    try stores.webhooks.record(DeliveryAttempt(delivery: delivery, at: Date(), outcome: .delivered, status: 200,
                                                               answer: nil, error: nil))
                }
                claimed += round
            }
            let documents = claimed.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any] }
            let types = documents.compactMap { $0["type"] as? String }
            #expect(types.sorted() == ["appAccountToken.linked", "consent.cleared", "consent.rescinded", "redemption.matched"], "\(types)")
            let matched = try #require(documents.first { $0["type"] as? String == "redemption.matched" })
            #expect((matched["data"] as? [String: Any])?["signatureNonce"] as? String == signed.record.nonce)
            #expect(matched["environment"] as? String == "Sandbox")
            let cleared = try #require(documents.first { $0["type"] as? String == "consent.cleared" })
            #expect((cleared["data"] as? [String: Any])?["reason"] as? String == "consent given again")
        }

        @Test("two instances on one PostgreSQL database never claim one delivery at the same time")
        func twoInstances() throws {
            let database = try EngineDatabase(.postgreSQL)
            defer { database.cleanup() }
            let first = try database.open()
            defer { first.close() }
            let second = try database.open()
            defer { second.close() }
            try first.webhooks.put(webhook("w"), change: change("w"))
            let records = (0..<200).map { record(user: "user-\($0)") }
            _ = try first.signatures.append(all: records)
            let claims = Mutex<[Int64]>([])
            let group = DispatchGroup()
            for stores in [first, second, first, second] {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    while let batch = try? stores.webhooks.claim(limit: 3, now: Date(), lease: .seconds(60)), !batch.isEmpty {
                        claims.withLock { $0 += batch.map(\.id) }
                        for delivery in batch {
                            _ = try? stores.webhooks.record(DeliveryAttempt(delivery: delivery, at: Date(), outcome: .delivered,
                                                                            status: 200, answer: nil, error: nil))
                        }
                    }
                }
            }
            group.wait()
            let all = claims.withLock { $0 }
            #expect(all.count == 200 && Set(all).count == 200, "each delivery claimed once")
        }
    }
}
