import Testing
@testable import OfferSignerCore

/// `SignatureChain.canonicalBytes(of:sequence:previousHash:)` writes the record's fields straight
/// into its buffer (issue 38); these hold it to the definition, written here independently: each
/// field `length:bytes;` or `-;`, the integers as `String(_:)` writes them, v1 or v2 by the record.
@Suite("The chain's canonical bytes, written in place, are the format's bytes")
struct SignatureChainBytesTests {
    static func reference(_ record: SignatureRecord, sequence: Int64, previousHash: String) -> [UInt8] {
        let version1 = record.source == .api && record.format != .introductoryOfferEligibility && record.allowIntroductoryOffer == nil
        var fields: [String?] = [version1 ? "offer-signer.signature.v1" : "offer-signer.signature.v2", previousHash,
                                 String(sequence), record.nonce, record.format.rawValue]
        if !version1 { fields.append(record.source.rawValue) }
        fields += [record.bundleId, record.productId, record.offerId, record.userId, record.keyId, String(record.timestamp),
                   record.signature, record.transactionId]
        if !version1 { fields.append(record.allowIntroductoryOffer.map { $0 ? "true" : "false" }) }
        fields += [record.apiKeyName, record.requestId, String(record.recordedAt)]
        var text = ""
        for field in fields { text += field.map { "\($0.utf8.count):\($0);" } ?? "-;" }
        return Array(text.utf8)
    }

    @Test("issue 38: 20,000 random records of every format and source, integers at their extremes, against the definition")
    func randomRecords() {
        var random = SeededGenerator(seed: 20_261_203)
        let texts = ["", "-", ";", ":", "0:", "a", "nonce-1", "é", "用户", "🦊", "\u{2063}", "com.example.app.pro_monthly",
                     String(repeating: "x", count: 300)]
        let integers: [Int64] = [0, 1, 9, 10, 99, 100, -1, -10, 1_764_720_000_000, .max, .min, .max - 1, .min + 1]
        func text() -> String {
            random.below(3) == 0 ? texts[random.below(texts.count)]
                : String((0..<random.below(40)).map { _ in Character(UnicodeScalar(UInt8(0x21 + random.below(94)))) })
        }
        func integer() -> Int64 { random.below(2) == 0 ? integers[random.below(integers.count)] : Int64(bitPattern: random.next()) }
        for _ in 0..<20_000 {
            let record = SignatureRecord(
                nonce: text(), format: SignatureFormat.allCases[random.below(SignatureFormat.allCases.count)], bundleId: text(),
                productId: text(), offerId: text(), userId: text(), keyId: text(), timestamp: integer(), signature: text(),
                transactionId: random.below(2) == 0 ? nil : text(), apiKeyName: text(), requestId: text(), recordedAt: integer(),
                source: SignatureSource.allCases[random.below(SignatureSource.allCases.count)],
                allowIntroductoryOffer: [nil, true, false][random.below(3)])
            let sequence = integer(), previous = random.below(2) == 0 ? SignatureChain.genesis : text()
            #expect(SignatureChain.canonicalBytes(of: record, sequence: sequence, previousHash: previous)
                    == Self.reference(record, sequence: sequence, previousHash: previous))
        }
    }
}
