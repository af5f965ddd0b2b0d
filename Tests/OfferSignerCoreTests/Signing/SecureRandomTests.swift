import Foundation
import Testing
@testable import OfferSignerCore

@Suite("Nonces and tokens")
struct SecureRandomTests {
    @Test("time-ordered nonces are version 7 UUIDs carrying the time, unique, and sort by time")
    func timeOrdered() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let first = SecureRandom.timeOrderedUUID(now: t0).uuidString.lowercased()
        let second = SecureRandom.timeOrderedUUID(now: t0.addingTimeInterval(0.001)).uuidString.lowercased()
        #expect(first.count == 36)
        #expect(Array(first)[14] == "7", "version 7")
        #expect("89ab".contains(Array(first)[19]), "RFC 4122 variant")
        #expect(first.hasPrefix("01a3185c-5000"), "48 bits of Unix milliseconds: 0x01a3185c5000 = 1800000000000")
        #expect(first < second)
        let many = Set((0..<10_000).map { _ in SecureRandom.timeOrderedUUID(now: t0) })
        #expect(many.count == 10_000, "74 random bits keep nonces of the same millisecond apart")
    }

    @Test("random UUIDs are version 4; tokens are 43 base64url characters")
    func random() {
        let uuid = SecureRandom.uuid().uuidString
        #expect(Array(uuid)[14] == "4")
        let token = SecureRandom.token()
        #expect(token.count == 43 && Base64URL.decode(token)?.count == 32)
        #expect(SecureRandom.token() != token)
    }

    @Test("the lower-case text of a UUID is Foundation's text, lower-cased")
    func lowercasedText() throws {
        for _ in 0..<100 {
            let uuid = SecureRandom.uuid()
            #expect(SecureRandom.lowercasedString(uuid) == uuid.uuidString.lowercased())
        }
        let fixed = try #require(UUID(uuidString: "01A3185C-5000-7ABC-8DEF-0123456789AB"))
        #expect(SecureRandom.lowercasedString(fixed) == "01a3185c-5000-7abc-8def-0123456789ab")
    }
}
