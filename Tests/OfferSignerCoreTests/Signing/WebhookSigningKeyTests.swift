import Dispatch
import Foundation
import Synchronization
import Testing
@testable import OfferSignerCore

/// The webhook signature's HMAC-SHA256, OpenSSL's, keyed once per secret (issue 37): the same
/// bytes as RFC 4231's vectors and Python's `hmac`, whatever the key's length, from any number
/// of threads signing with one key at once.
@Suite("Webhook signing keys (HMAC-SHA256 keyed once)")
struct WebhookSigningKeyTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.hexString }

    @Test("RFC 4231's test cases 1, 2 and 6 (a key longer than the block), and an empty key as Python's hmac computes it")
    func rfc4231() {
        #expect(Self.hex(WebhookSigningKey(key: [UInt8](repeating: 0x0b, count: 20)).mac(Array("Hi There".utf8)))
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Self.hex(WebhookSignature.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Self.hex(WebhookSigningKey(key: [UInt8](repeating: 0xaa, count: 131))
            .mac(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        // python3 -c 'import hmac, hashlib; print(hmac.new(b"", b"1.", hashlib.sha256).hexdigest())'
        #expect(Self.hex(WebhookSigningKey(secret: "").mac(Array("1.".utf8)))
            == "c026d3e9b78f258f71e236d9191954480d6b609fd93524964f0643741eaf81b3")
    }

    @Test("the header's v1 is Python's hmac of \"t.body\": one secret, two in rotation, a long key, a body of every byte")
    func headerAgainstPython() {
        // python3 -c 'import hmac, hashlib; print(hmac.new(b"whsec_python", b"1800000000." + body, hashlib.sha256).hexdigest())'
        let body = Array(#"{"id":"evt","type":"offer.signed"}"#.utf8)
        let python = "8d3185878ab6daefbfd72fb7e626dfb3f4aee5a549d9b461ae785a5b2be2c895"
        #expect(WebhookSignature.header(body: body, timestamp: 1_800_000_000, secrets: ["whsec_python"]) == "t=1800000000,v1=" + python)
        let keys = [WebhookSigningKey(secret: "whsec_python"), WebhookSigningKey(secret: String(repeating: "k", count: 100))]
        // hmac.new(b"k" * 100, b"1800000001." + bytes(range(256)), hashlib.sha256)
        let everyByte = [UInt8]((0...255).map { UInt8($0) })
        #expect(WebhookSignature.header(body: everyByte, timestamp: 1_800_000_001, keys: keys).hasSuffix(
            ",v1=4473ae53725771eff07d3c1accb5ca51b413075ee5740a95b93c448aa7a6e773"))
        #expect(WebhookSignature.header(body: body, timestamp: 1_800_000_000, keys: keys).hasPrefix("t=1800000000,v1=" + python + ",v1="))
        // The same key signs again and again (each signature from a copy of the keyed context).
        for _ in 0..<3 {
            #expect(WebhookSignature.header(body: body, timestamp: 1_800_000_000, keys: [keys[0]]) == "t=1800000000,v1=" + python)
        }
        #expect(WebhookSignature.verify(header: "t=1800000000,v1=" + python, body: body, secret: "whsec_python") == .success(1_800_000_000))
    }

    @Test("threads signing with one key at once all get its HMAC (the keyed context is only copied, never changed)")
    func concurrent() {
        let key = WebhookSigningKey(secret: "whsec_shared")
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<200 {
                let message = Array("\(thread).\(index)".utf8)
                if key.mac(message) != WebhookSignature.hmacSHA256(key: Array("whsec_shared".utf8), message: message) {
                    wrong.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
