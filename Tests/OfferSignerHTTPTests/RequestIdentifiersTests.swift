import Foundation
import Testing
@testable import OfferSignerHTTP

@Suite struct RequestIdentifiersTests {
    /// The reference implementation's vectors (key 00 01 … 0f): the 8-byte message 00 01 … 07,
    /// and one more word checked against an independent implementation.
    @Test func sipHashMatchesTheReference() {
        let hash = SipHash24(key: Array(0 ..< 16))
        #expect(hash.hash(0x0706_0504_0302_0100) == 0x93f5_f579_9a93_2462)
        #expect(hash.hash(38) == 0x506a_3e11_c7a9_b7d6)
    }

    /// Many threads at once: every ID distinct, each a lowercase version-4 UUID.
    @Test func identifiersAreUniqueVersion4UUIDsAcrossThreads() async {
        let generator = RequestIdentifiers(keys: Array(repeating: 7, count: 32))
        let all = await withTaskGroup(of: [String].self) { group in
            for _ in 0 ..< 8 { group.addTask { (0 ..< 5_000).map { _ in generator.next() } } }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(all.count == 40_000)
        #expect(Set(all).count == all.count)
        for id in all.prefix(1_000) {
            #expect(id.count == 36)
            #expect(id == id.lowercased())
            let uuid = UUID(uuidString: id)
            #expect(uuid != nil)
            #expect(uuid.map { $0.uuid.6 >> 4 } == 4)
            #expect(uuid.map { $0.uuid.8 >> 6 } == 2)
        }
    }

    /// Two processes (two keys) never walk the same sequence, and consecutive IDs share no
    /// visible counter: about half of their bits differ.
    @Test func identifiersRevealNoCounter() {
        let one = RequestIdentifiers(keys: Array(repeating: 1, count: 32))
        let other = RequestIdentifiers(keys: Array(repeating: 2, count: 32))
        let ones = (0 ..< 1_000).map { _ in one.next() }
        let others = (0 ..< 1_000).map { _ in other.next() }
        #expect(Set(ones).isDisjoint(with: others))
        var differing = 0
        for (a, b) in zip(ones, ones.dropFirst()) {
            let x = UUID(uuidString: a)!.uuid, y = UUID(uuidString: b)!.uuid
            differing += withUnsafeBytes(of: x) { xs in
                withUnsafeBytes(of: y) { ys in zip(xs, ys).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount } }
            }
        }
        let mean = Double(differing) / 999
        #expect(mean > 55 && mean < 67)  // 122 bits that look random: ~61 differ
    }

}
