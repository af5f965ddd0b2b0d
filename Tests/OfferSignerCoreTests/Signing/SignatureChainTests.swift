import Testing
@testable import OfferSignerCore

@Suite("Signature log hash chain")
struct SignatureChainTests {
    func record(_ n: Int) -> SignatureRecord {
        SignatureRecord(nonce: "nonce-\(n)", format: .legacy, bundleId: "b", productId: "p", offerId: "o", userId: "u",
                        keyId: "k", timestamp: Int64(n), signature: "sig", apiKeyName: "client", requestId: "r", recordedAt: Int64(n))
    }

    func chain(_ count: Int) -> [LoggedSignature] {
        var previous = SignatureChain.genesis
        return (1...count).map { n in
            let hash = SignatureChain.hash(of: record(n), sequence: Int64(n), previousHash: previous)
            defer { previous = hash }
            return LoggedSignature(sequence: Int64(n), record: record(n), previousHash: previous, hash: hash)
        }
    }

    func firstBad(_ entries: [LoggedSignature]) -> Int64? {
        var previous = SignatureChain.genesis
        var sequence: Int64 = 1
        return SignatureChain.firstBrokenLink(in: entries, expectedPrevious: &previous, expectedSequence: &sequence)?.sequence
    }

    @Test("an intact chain passes; a changed, removed or swapped record is found")
    func tampering() {
        let entries = chain(5)
        #expect(firstBad(entries) == nil)
        var changed = entries
        changed[2].record.userId = "someone-else"
        #expect(firstBad(changed) == 3)
        var removed = entries
        removed.remove(at: 1)
        #expect(firstBad(removed) == 3)
        var swapped = entries
        swapped.swapAt(1, 2)
        #expect(firstBad(swapped) == 3)
    }

    @Test("field boundaries are unambiguous")
    func unambiguous() {
        var a = record(1)
        var b = record(1)
        a.productId = "ab"
        a.offerId = "c"
        b.productId = "a"
        b.offerId = "bc"
        #expect(SignatureChain.hash(of: a, sequence: 1, previousHash: SignatureChain.genesis)
                != SignatureChain.hash(of: b, sequence: 1, previousHash: SignatureChain.genesis))
        var c = record(1)
        c.transactionId = "-"
        #expect(SignatureChain.hash(of: c, sequence: 1, previousHash: SignatureChain.genesis)
                != SignatureChain.hash(of: record(1), sequence: 1, previousHash: SignatureChain.genesis))
    }
}
