import Foundation
@testable import OfferSignerCore
import Testing

@Suite("A record's own signature")
struct SignatureRecordVerificationTests {
    let key: P256PrivateKey
    let offer = PromotionalOfferRequest(bundleId: "com.example.app", keyIdentifier: "KEY1", productId: "pro", offerId: "winback",
                                        appAccountToken: "user-1", nonce: "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e",
                                        timestamp: 1_800_000_000_123, transactionId: "tx1")

    init() throws {
        key = try P256PrivateKey.generate()
    }

    func record(_ format: PromotionalOfferFormat) throws -> SignatureRecord {
        let signer = PromotionalOfferSigner(keyIdentifier: "KEY1", issuerId: "issuer", privateKey: key)
        return SignatureRecord(try signer.issue(offer, format: format), apiKeyName: "client", requestId: "r", recordedAt: 1)
    }

    @Test("records as issued verify, legacy and JWS", arguments: [PromotionalOfferFormat.legacy, .jws])
    func issued(format: PromotionalOfferFormat) throws {
        #expect(try record(format).signatureProblem(publicKey: key.publicKey) == nil)
    }

    @Test("a legacy record with any signed field changed, or under another key, fails")
    func legacyNegative() throws {
        let original = try record(.legacy)
        let changes: [(inout SignatureRecord) -> Void] = [
            { $0.userId = "user-2" }, { $0.offerId = "free" }, { $0.productId = "pro2" }, { $0.bundleId = "com.other" },
            { $0.nonce = "00000000-0000-0000-0000-000000000000" }, { $0.timestamp += 1 }, { $0.keyId = "KEY2" },
            { $0.signature = "%%%" },
        ]
        for change in changes {
            var changed = original
            change(&changed)
            #expect(changed.signatureProblem(publicKey: key.publicKey) != nil)
        }
        #expect(original.signatureProblem(publicKey: try P256PrivateKey.generate().publicKey) != nil)
    }

    @Test("a JWS record whose fields differ from its claims fails, naming them")
    func jwsNegative() throws {
        let original = try record(.jws)
        let cases: [(String, (inout SignatureRecord) -> Void)] = [
            ("offerIdentifier", { $0.offerId = "free" }), ("productId", { $0.productId = "pro2" }), ("bid", { $0.bundleId = "com.other" }),
            ("nonce", { $0.nonce = "x" }), ("iat", { $0.timestamp += 5_000 }), ("kid", { $0.keyId = "KEY2" }),
            ("transactionId", { $0.transactionId = nil }),
        ]
        for (claim, change) in cases {
            var changed = original
            change(&changed)
            #expect(changed.signatureProblem(publicKey: key.publicKey)?.contains(claim) == true, "\(claim)")
        }
        var garbled = original
        garbled.signature = "a.b"
        #expect(garbled.signatureProblem(publicKey: key.publicKey)?.contains("not a compact JWS") == true)
        var tampered = original
        let parts = original.signature.split(separator: ".")
        tampered.signature = [String(parts[0]), Base64URL.encode(Array(#"{"bid":"x"}"#.utf8)), String(parts[2])].joined(separator: ".")
        #expect(tampered.signatureProblem(publicKey: key.publicKey)?.contains("does not verify") == true)
        #expect(original.signatureProblem(publicKey: try P256PrivateKey.generate().publicKey) != nil)
    }
}

@Suite("A record's own signature: introductory-offer eligibility and retention offers")
struct IntroductoryRecordVerificationTests {
    @Test("an introductory-offer record verifies as issued, and fails when its grant, product or transaction changed")
    func introductory() throws {
        let key = try P256PrivateKey.generate()
        let signer = PromotionalOfferSigner(keyIdentifier: "KEY1", issuerId: "issuer", privateKey: key)
        let issued = try signer.issue(IntroductoryOfferEligibility(
            bundleId: "com.example.app", keyIdentifier: "KEY1", productId: "pro", allowIntroductoryOffer: false, transactionId: "tx1",
            nonce: "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e", timestamp: 1_800_000_000_123))
        let record = SignatureRecord(issued, userId: "user-1", apiKeyName: "client", requestId: "r", recordedAt: 1)
        #expect(record.signatureProblem(publicKey: key.publicKey) == nil)
        let cases: [(String, (inout SignatureRecord) -> Void)] = [
            ("allowIntroductoryOffer", { $0.allowIntroductoryOffer = true }), ("productId", { $0.productId = "pro2" }),
            ("transactionId", { $0.transactionId = "tx2" }), ("offerIdentifier", { $0.offerId = "winback" }),
            ("aud", { $0.format = .jws }),
        ]
        for (claim, change) in cases {
            var changed = record
            change(&changed)
            #expect(changed.signatureProblem(publicKey: key.publicKey)?.contains(claim) == true, "\(claim)")
        }
    }

    @Test("a retention offer's record verifies: its transactionId is the subscription's originalTransactionId")
    func retention() throws {
        let key = try P256PrivateKey.generate()
        let signer = PromotionalOfferSigner(keyIdentifier: "KEY1", issuerId: "issuer", privateKey: key)
        let offer = PromotionalOfferRequest(bundleId: "b", keyIdentifier: "KEY1", productId: "p", offerId: "o", appAccountToken: "u",
                                            nonce: "n", timestamp: 1_800_000_000_000, transactionId: "1000")
        let record = SignatureRecord(try signer.issue(offer, format: .jws), apiKeyName: "app-store", requestId: "r", recordedAt: 1,
                                     source: .retention)
        #expect(record.signatureProblem(publicKey: key.publicKey) == nil)
        var moved = record
        moved.transactionId = "2000"
        #expect(moved.signatureProblem(publicKey: key.publicKey)?.contains("transactionId") == true)
    }
}
