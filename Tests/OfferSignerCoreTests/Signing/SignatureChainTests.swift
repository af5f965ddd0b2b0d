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

@Suite("Signature log hash chain: sources and introductory-offer eligibility")
struct SignatureChainVersionTests {
    func record(format: SignatureFormat = .legacy, transactionId: String? = nil, source: SignatureSource = .api,
                allow: Bool? = nil) -> SignatureRecord {
        SignatureRecord(nonce: "nonce-1", format: format, bundleId: "b", productId: "p", offerId: "o", userId: "u", keyId: "k",
                        timestamp: 1, signature: "sig", transactionId: transactionId, apiKeyName: "client", requestId: "r",
                        recordedAt: 1, source: source, allowIntroductoryOffer: allow)
    }

    func hash(_ record: SignatureRecord) -> String {
        SignatureChain.hash(of: record, sequence: 1, previousHash: SignatureChain.genesis)
    }

    @Test("records of the API's promotional offers hash exactly as before sources existed (v1)")
    func version1Unchanged() {
        // SHA-256 of the v1 input, computed outside Swift from the format's definition:
        // "offer-signer.signature.v1", previous hash, sequence, then every field, "len:value;" or "-;".
        #expect(hash(record()) == "4a84bf90f222432c406c5b8fe5a374f6413ad1e717ed365bbf4f4745a6e5a96a")
        #expect(hash(record(format: .jws, transactionId: "2000000001"))
                == "ca48b5d354c02cc854ada12d2c12bc3e98098fedd1db24980a42e8e6fa2b8e15")
        #expect(SignatureChain.usesVersion1(record()) && SignatureChain.usesVersion1(record(format: .jws)))
    }

    @Test("retention and introductory-offer records are hashed with v2, covering source and allowIntroductoryOffer")
    func version2() {
        let retention = record(format: .jws, transactionId: "1000", source: .retention)
        #expect(!SignatureChain.usesVersion1(retention))
        // Every byte of the v2 input, written out from the format's definition.
        #expect(String(decoding: SignatureChain.canonicalBytes(of: retention, sequence: 1, previousHash: SignatureChain.genesis),
                       as: UTF8.self)
                == "25:offer-signer.signature.v2;64:\(SignatureChain.genesis);1:1;7:nonce-1;3:jws;9:retention;1:b;1:p;1:o;1:u;1:k;"
                + "1:1;3:sig;4:1000;-;6:client;1:r;1:1;")
        #expect(SignatureChain.canonicalBytes(fields: ["", nil, String(repeating: "x", count: 100)])
                == Array("0:;-;100:\(String(repeating: "x", count: 100));".utf8))
        // Relabelling a retention record as the API's changes its hash, and so does flipping a grant.
        var relabelled = retention
        relabelled.source = .api
        #expect(hash(relabelled) != hash(retention))
        let allowed = record(format: .introductoryOfferEligibility, transactionId: "1000", allow: true)
        var denied = allowed
        denied.allowIntroductoryOffer = false
        #expect(hash(allowed) != hash(denied))
        var unset = allowed
        unset.allowIntroductoryOffer = nil
        #expect(hash(unset) != hash(allowed))
    }

    @Test("a chain mixing both versions verifies, and tampering with a v2 field is found")
    func mixedChain() {
        let records = [record(), record(format: .jws, transactionId: "7", source: .retention),
                       record(format: .introductoryOfferEligibility, transactionId: "8", allow: false), record(format: .jws)]
        var previous = SignatureChain.genesis
        var entries: [LoggedSignature] = []
        for (index, var record) in records.enumerated() {
            record.nonce = "n\(index)"
            let hash = SignatureChain.hash(of: record, sequence: Int64(index + 1), previousHash: previous)
            entries.append(LoggedSignature(sequence: Int64(index + 1), record: record, previousHash: previous, hash: hash))
            previous = hash
        }
        func firstBad(_ entries: [LoggedSignature]) -> Int64? {
            var previous = SignatureChain.genesis
            var sequence: Int64 = 1
            return SignatureChain.firstBrokenLink(in: entries, expectedPrevious: &previous, expectedSequence: &sequence)?.sequence
        }
        #expect(firstBad(entries) == nil)
        var tampered = entries
        tampered[2].record.allowIntroductoryOffer = true
        #expect(firstBad(tampered) == 3)
        tampered = entries
        tampered[1].record.source = .api
        #expect(firstBad(tampered) == 2)
    }
}
