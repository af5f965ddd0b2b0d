import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: app account token links, and a page of signature records in one commit")
    struct AppAccountTokenLinkContract {
        func link(_ original: String, token: String, outcome: AppAccountTokenLink.Outcome = .linked, bundle: String = "com.example.app",
                  environment: AppStoreEnvironment = .production, at seconds: Double = 1_800_000_000) -> AppAccountTokenLink {
            AppAccountTokenLink(bundleId: bundle, environment: environment, originalTransactionId: original, appAccountToken: token,
                                outcome: outcome, existingToken: outcome == .refused ? "other" : nil,
                                reason: outcome == .linked ? nil : "why", actor: "service", requestId: "req-\(original)",
                                forced: false, attempts: 2, at: Date(timeIntervalSince1970: seconds))
        }

        @Test("links are kept as recorded, listed oldest first by app and subscription, paged; the latest link counts",
              arguments: Engine.allCases)
        func links(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let links = stores.links
            let first = try links.record(link("100", token: "user-a"))
            #expect(first.id > 0 && first.reason == nil && first.requestId == "req-100" && first.attempts == 2)
            try links.record(link("200", token: "user-a", outcome: .refused))
            try links.record(link("300", token: "user-a", environment: .sandbox))
            try links.record(link("100", token: "user-b", outcome: .failed))
            try links.record(link("400", token: "user-a", bundle: "com.example.other"))

            let all = try links.links(bundleId: nil, originalTransactionId: nil, afterId: 0, limit: 10)
            #expect(all.map(\.originalTransactionId) == ["100", "200", "300", "100", "400"])
            #expect(all[1].outcome == .refused && all[1].existingToken == "other" && all[1].reason == "why")
            #expect(all[2].environment == .sandbox && all[0].at == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(try links.links(bundleId: "com.example.app", originalTransactionId: "100", afterId: 0, limit: 10).count == 2)
            let page = try links.links(bundleId: "com.example.app", originalTransactionId: nil, afterId: 0, limit: 2)
            #expect(page.count == 2)
            #expect(try links.links(bundleId: "com.example.app", originalTransactionId: nil, afterId: page[1].id, limit: 10).count == 2)

            // A failed or refused attempt does not undo a link; only linked rows count.
            #expect(try links.linkedToken(bundleId: "com.example.app", environment: .production, originalTransactionId: "100") == "user-a")
            #expect(try links.linkedToken(bundleId: "com.example.app", environment: .production, originalTransactionId: "200") == nil)
            #expect(try links.linkedSubscriptions(appAccountToken: "user-a", bundleId: "com.example.app", environment: .production) == ["100"])
            #expect(try links.linkedSubscriptions(appAccountToken: "user-a", bundleId: "com.example.app", environment: .sandbox) == ["300"])
            // Linked again, to another user (forced): the subscription is theirs now.
            try links.record(link("100", token: "user-b"))
            #expect(try links.linkedToken(bundleId: "com.example.app", environment: .production, originalTransactionId: "100") == "user-b")
            #expect(try links.linkedSubscriptions(appAccountToken: "user-a", bundleId: "com.example.app", environment: .production).isEmpty)
            #expect(try links.linkedSubscriptions(appAccountToken: "user-b", bundleId: "com.example.app", environment: .production) == ["100"])
        }

        @Test("append(all:) commits a page of records together: consecutive, in order, never interleaved with other appends",
              arguments: Engine.allCases)
        func appendAll(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            let log = stores.signatures
            @Sendable func record(_ nonce: String) -> SignatureRecord {
                SignatureRecord(nonce: nonce, format: .legacy, bundleId: "com.example.app", productId: "pro", offerId: "offer-1",
                                userId: "user-1", keyId: "KEY", timestamp: 1_800_000_000_000, signature: "MEUC", apiKeyName: "client",
                                requestId: "req", recordedAt: 1_800_000_000_000)
            }
            let pages = LockedArray<[Int64]>()
            DispatchQueue.concurrentPerform(iterations: 40) { index in
                if index % 4 == 0 {
                    let nonces = (0..<5).map { "page-\(index)-\($0)" }
                    if let logged = try? log.append(all: nonces.map(record)), logged.map(\.record.nonce) == nonces {
                        pages.append(logged.map(\.sequence))
                    }
                } else {
                    _ = try? log.append(record("single-\(index)"), quota: nil)
                }
            }
            #expect(pages.values.count == 10)
            for sequences in pages.values {
                #expect(sequences == Array(sequences[0]...(sequences[0] + 4)), "a page's records are consecutive")
            }
            let report = try log.verifyIntegrity()
            #expect(report.ok && report.records == 80)
        }
    }
}
