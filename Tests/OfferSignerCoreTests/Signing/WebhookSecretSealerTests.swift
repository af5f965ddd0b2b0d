import Foundation
import Testing
@testable import OfferSignerCore

@Suite("AES-256-GCM and the webhook secrets sealed with it")
struct WebhookSecretSealerTests {
    let key = AES256GCMKey(bytes: Array(0..<32))!

    @Test("NIST's AES-256-GCM test case 16 (the GCM specification's, with associated data) decrypts to its plaintext")
    func knownAnswer() throws {
        let keyBytes = try #require([UInt8](hexString: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
        let key = try #require(AES256GCMKey(bytes: keyBytes))
        let nonce = try #require([UInt8](hexString: "cafebabefacedbaddecaf888"))
        let aad = try #require([UInt8](hexString: "feedfacedeadbeeffeedfacedeadbeefabaddad2"))
        let plaintext = try #require([UInt8](hexString: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"))
        let ciphertext = try #require([UInt8](hexString: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"))
        let tag = try #require([UInt8](hexString: "76fc6ece0f4e1768cddf8853bb2d551b"))
        #expect(key.open(nonce + ciphertext + tag, associatedData: aad) == plaintext)
        var changed = tag
        changed[0] ^= 1
        #expect(key.open(nonce + ciphertext + changed, associatedData: aad) == nil)
    }

    @Test("seal then open gives the plaintext back; another key, other associated data, a changed or cut text open to nothing")
    func roundTrip() throws {
        let sealed = key.seal(Array("whsec_abc".utf8), associatedData: Array("crm".utf8))
        #expect(sealed.count == 12 + 9 + 16)
        #expect(key.open(sealed, associatedData: Array("crm".utf8)) == Array("whsec_abc".utf8))
        #expect(key.seal(Array("whsec_abc".utf8), associatedData: []) != key.seal(Array("whsec_abc".utf8), associatedData: []), "a fresh nonce each time")
        #expect(AES256GCMKey(bytes: Array(1..<33))!.open(sealed, associatedData: Array("crm".utf8)) == nil)
        #expect(key.open(sealed, associatedData: Array("other".utf8)) == nil)
        var flipped = sealed
        flipped[14] ^= 0x80
        #expect(key.open(flipped, associatedData: Array("crm".utf8)) == nil)
        #expect(key.open(Array(sealed.dropLast()), associatedData: Array("crm".utf8)) == nil)
        #expect(key.open(Array(sealed.prefix(20)), associatedData: Array("crm".utf8)) == nil)
        #expect(AES256GCMKey(bytes: Array(0..<31)) == nil && AES256GCMKey(bytes: Array(0..<33)) == nil)
    }

    @Test("a sealed secret names its scheme, hides the secret, opens only for its webhook; plain text passes through; no key: refused")
    func sealer() throws {
        let sealer = WebhookSecretSealer(key: key)
        let stored = sealer.seal("whsec_secret", webhookId: "crm")
        #expect(stored.hasPrefix("aes256gcm:v1:") && !stored.contains("whsec") && WebhookSecretSealer.isSealed(stored))
        #expect(try sealer.open(stored, webhookId: "crm") == "whsec_secret")
        #expect(throws: WebhookSecretError.wrongKey(webhookId: "other")) { try sealer.open(stored, webhookId: "other") }
        #expect(throws: WebhookSecretError.wrongKey(webhookId: "crm")) { try sealer.open(stored + "A", webhookId: "crm") }
        #expect(throws: WebhookSecretError.wrongKey(webhookId: "crm")) { try sealer.open("aes256gcm:v1:!!", webhookId: "crm") }
        #expect(try sealer.open("whsec_plain", webhookId: "crm") == "whsec_plain")
        #expect(try WebhookSecretSealer.open("whsec_plain", webhookId: "crm", with: nil) == "whsec_plain")
        #expect(throws: WebhookSecretError.keyMissing(webhookId: "crm")) { try WebhookSecretSealer.open(stored, webhookId: "crm", with: nil) }
        #expect(WebhookSecretError.keyMissing(webhookId: "crm").description.contains("OFFER_SIGNER_WEBHOOK_SECRETS_KEY"))
    }
}
