import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Audit checkpoints")
struct AuditCheckpointTests {
    let link = ChainLink(sequence: 42, hash: String(repeating: "ab", count: 32))

    @Test("a checkpoint verifies under the audit key over exactly the documented text")
    func signsTheDocumentedText() throws {
        let key = try P256PrivateKey.generate()
        let checkpoint = try AuditCheckpoint.sign(link, at: 1_800_000_000_123, keyId: "AUDIT1", key: key)
        #expect(checkpoint.isValid(under: key.publicKey))
        let text = "offer-signer checkpoint v1\nAUDIT1\n42\n\(link.hash)\n1800000000123\n"
        let der = try #require(Data(base64Encoded: checkpoint.signature))
        #expect(key.publicKey.isValidSignature(derSignature: Array(der), of: Array(text.utf8)))
    }

    @Test("changing any field, or another key, makes it invalid")
    func negative() throws {
        let key = try P256PrivateKey.generate()
        let checkpoint = try AuditCheckpoint.sign(link, at: 1, keyId: "AUDIT1", key: key)
        var changed = [checkpoint, checkpoint, checkpoint, checkpoint, checkpoint]
        changed[0].sequence = 43
        changed[1].chainHash = String(repeating: "cd", count: 32)
        changed[2].timestamp = 2
        changed[3].keyId = "AUDIT2"
        changed[4].signature = "not base64!"
        for forged in changed { #expect(!forged.isValid(under: key.publicKey)) }
        #expect(!checkpoint.isValid(under: try P256PrivateKey.generate().publicKey))
        #expect(checkpoint.isValid(underAnyOf: [try P256PrivateKey.generate().publicKey, key.publicKey]))
        #expect(!checkpoint.isValid(underAnyOf: []))
    }

    @Test("JSON round trip with the field names the log and the API use")
    func coding() throws {
        let checkpoint = try AuditCheckpoint.sign(link, at: 7, keyId: "AUDIT1", key: P256PrivateKey.generate())
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(checkpoint)) as? [String: Any]
        #expect(Set(json?.keys.map { $0 } ?? []) == ["sequence", "chainHash", "timestamp", "keyId", "signature"])
        #expect(try JSONDecoder().decode(AuditCheckpoint.self, from: JSONEncoder().encode(checkpoint)) == checkpoint)
    }
}

@Suite("Accepted gaps")
struct ChainGapTests {
    @Test("the hash covers every field, so a changed gap no longer matches it")
    func hashCoversEveryField() {
        let gap = ChainGap(sequence: 5, resumedAfter: ChainLink(sequence: 2, hash: "h2"), lostThrough: ChainLink(sequence: 4, hash: "h4"),
                           acceptedBy: "cli:ops", reason: "lost", acceptedAt: 1)
        #expect(gap.hash == gap.computedHash && gap.hash.count == 64)
        var variants = Array(repeating: gap, count: 7)
        variants[0].sequence = 6
        variants[1].resumedAfter.hash = "hx"
        variants[2].lostThrough = nil
        variants[3].lostThrough?.hash = "hy"
        variants[4].acceptedBy = "cli:mallory"
        variants[5].reason = "nothing"
        variants[6].acceptedAt = 2
        for variant in variants { #expect(variant.computedHash != gap.hash) }
        #expect(gap.lostFrom == 3 && gap.summary.hasPrefix("records 3–4 were lost; accepted by cli:ops at 1970-01-01T00:00:00Z"))
        #expect(variants[2].summary.contains("how many is unknown"))
    }
}
