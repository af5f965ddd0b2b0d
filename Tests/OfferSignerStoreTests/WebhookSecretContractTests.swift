import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    @Suite("Storage contract: webhook secrets encrypted at rest")
    struct WebhookSecretContract {
        typealias Hooks = WebhookContract

        static func sealer(_ byte: UInt8 = 7) -> WebhookSecretSealer {
            WebhookSecretSealer(key: AES256GCMKey(bytes: [UInt8](repeating: byte, count: 32))!)
        }

        @Test("with a key, secrets are written sealed and read back plain; the row holds neither secret in plain text",
              arguments: Engine.allCases)
        func sealedAtRest(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open(webhookSecrets: Self.sealer())
            defer { stores.close() }
            var webhook = Hooks().webhook("crm")
            webhook.previousSecret = "whsec_before_rotation"
            webhook.previousSecretExpiresAt = Hooks.t0.addingTimeInterval(86400)
            try stores.webhooks.put(webhook, change: Hooks().change("crm"))
            #expect(try stores.webhooks.webhook(id: "crm") == webhook)
            #expect(try stores.webhooks.webhooks() == [webhook])
            let raw = try database.text("SELECT secret || ' ' || previous_secret FROM webhooks")
            #expect(raw.hasPrefix(WebhookSecretSealer.prefix) && raw.contains(" " + WebhookSecretSealer.prefix), "\(raw)")
            #expect(!raw.contains("whsec_crm") && !raw.contains("whsec_before_rotation"), "\(raw)")
            #expect(try stores.webhooks.sealSecrets() == 0, "nothing left to seal")
        }

        @Test("secrets written before a key was configured are sealed once at start (by one of two instances), and read the same",
              arguments: Engine.allCases)
        func existingRowsSealed(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            do {
                let plain = try database.open()
                defer { plain.close() }
                var rotated = Hooks().webhook("crm")
                rotated.previousSecret = "whsec_old"
                rotated.previousSecretExpiresAt = Hooks.t0.addingTimeInterval(86400)
                try plain.webhooks.put(rotated, change: Hooks().change("crm"))
                try plain.webhooks.put(Hooks().webhook("analytics"), change: Hooks().change("analytics"))
                #expect(try plain.webhooks.sealSecrets() == 0, "no key: nothing is sealed, plain secrets are fine")
                #expect(try database.text("SELECT secret FROM webhooks ORDER BY webhook_id") == "whsec_analytics\nwhsec_crm")
            }
            let first = try database.open(webhookSecrets: Self.sealer())
            defer { first.close() }
            let second = try database.open(webhookSecrets: Self.sealer())
            defer { second.close() }
            #expect(try first.webhooks.sealSecrets() == 2)
            #expect(try second.webhooks.sealSecrets() == 0, "already sealed: a second instance changes nothing")
            let raw = try database.text("SELECT secret || ' ' || COALESCE(previous_secret, '-') FROM webhooks ORDER BY webhook_id")
            #expect(!raw.contains("whsec_"), "\(raw)")
            #expect(raw.split(separator: "\n").allSatisfy { $0.hasPrefix(WebhookSecretSealer.prefix) })
            let crm = try #require(try second.webhooks.webhook(id: "crm"))
            #expect(crm.secret == "whsec_crm" && crm.previousSecret == "whsec_old")
            #expect(try second.webhooks.webhook(id: "analytics")?.secret == "whsec_analytics")
        }

        @Test("sealed secrets without the key, or with another, or moved to another webhook, are refused; subscriptions still load",
              arguments: Engine.allCases)
        func unreadableRefused(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            do {
                let sealed = try database.open(webhookSecrets: Self.sealer())
                defer { sealed.close() }
                try sealed.webhooks.put(Hooks().webhook("crm"), change: Hooks().change("crm"))
                try sealed.webhooks.put(Hooks().webhook("other"), change: Hooks().change("other"))
            }
            let keyless = try database.open()
            defer { keyless.close() }
            #expect(keyless.webhooks.isSubscribed(.offerSigned), "the outbox reads no secret: events are still written")
            #expect(throws: WebhookSecretError.keyMissing(webhookId: "crm")) { try keyless.webhooks.sealSecrets() }
            #expect(throws: WebhookSecretError.keyMissing(webhookId: "crm")) { try keyless.webhooks.webhook(id: "crm") }
            let otherKey = try database.open(webhookSecrets: Self.sealer(8))
            defer { otherKey.close() }
            #expect(throws: WebhookSecretError.wrongKey(webhookId: "crm")) { try otherKey.webhooks.sealSecrets() }
            try database.execute("UPDATE webhooks SET secret = (SELECT secret FROM webhooks WHERE webhook_id = 'other') WHERE webhook_id = 'crm'")
            let rightKey = try database.open(webhookSecrets: Self.sealer())
            defer { rightKey.close() }
            #expect(throws: WebhookSecretError.wrongKey(webhookId: "crm"), "a sealed secret is bound to its webhook") {
                try rightKey.webhooks.sealSecrets()
            }
        }
    }
}
