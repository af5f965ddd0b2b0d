import Foundation
import Testing
@testable import OfferSignerCore

/// Small draws served from one block of OpenSSL's bytes: never the same bytes twice, across
/// the block's end, from many threads at once.
@Suite struct RandomBlocksTests {
    private func draw(_ blocks: RandomBlocks, _ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { blocks.fill($0) }
        return out
    }

    /// Several blocks' worth of draws of uneven sizes: every draw differs from every other, and
    /// none is left zero (a draw that did not advance, or read past what was filled, repeats).
    @Test func drawsAcrossBlocksNeverRepeat() {
        let blocks = RandomBlocks()
        var seen = Set<[UInt8]>()
        var drawn = 0
        for index in 0 ..< 2_000 {
            let size = [16, 15, 7, 64, 33][index % 5]
            let bytes = draw(blocks, size)
            #expect(bytes.count == size)
            #expect(bytes.contains { $0 != 0 })
            #expect(seen.insert(bytes).inserted)
            drawn += size
        }
        #expect(drawn > 8 * RandomBlocks.blockSize)
    }

    /// One call to OpenSSL serves a block's worth of UUIDs: 256 draws of 16 bytes, then the next block.
    @Test func oneBlockServesManyDraws() {
        let blocks = RandomBlocks()
        for _ in 0 ..< RandomBlocks.blockSize / 16 { _ = draw(blocks, 16) }
        #expect(blocks.blocksDrawn.load(ordering: .relaxed) == 1)
        _ = draw(blocks, 16)
        #expect(blocks.blocksDrawn.load(ordering: .relaxed) == 2)
        _ = draw(blocks, 1_000)  // larger than a block serves: OpenSSL's directly
        #expect(blocks.blocksDrawn.load(ordering: .relaxed) == 2)
    }

    /// A draw larger than the block serves goes to OpenSSL directly and is filled whole.
    @Test func largeDrawFilledWhole() {
        let bytes = draw(RandomBlocks(), 10_000)
        #expect(bytes.count == 10_000)
        #expect(bytes.suffix(64).contains { $0 != 0 })
        #expect(Set(bytes).count > 200)
    }

    /// Consecutive draws look independent: about half their bits differ.
    @Test func consecutiveDrawsLookIndependent() {
        let blocks = RandomBlocks()
        let draws = (0 ..< 1_000).map { _ in draw(blocks, 16) }
        let differing = zip(draws, draws.dropFirst()).reduce(0) { total, pair in
            total + zip(pair.0, pair.1).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
        }
        let mean = Double(differing) / 999
        #expect(mean > 58 && mean < 70)  // 128 random bits: 64 differ on average
    }

    /// Request IDs and nonces from many threads at once: all distinct version-4 and version-7 UUIDs.
    @Test func uuidsFromManyThreadsAreDistinct() async {
        let all = await withTaskGroup(of: [String].self) { group in
            for thread in 0 ..< 8 {
                group.addTask {
                    (0 ..< 5_000).map { _ in
                        SecureRandom.lowercasedString(thread % 2 == 0 ? SecureRandom.uuid() : SecureRandom.timeOrderedUUID())
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(all.count == 40_000)
        #expect(Set(all).count == all.count)
        for id in all.prefix(200) {
            let uuid = UUID(uuidString: id)
            #expect(uuid.map { [4, 7].contains($0.uuid.6 >> 4) } == true)
            #expect(uuid.map { $0.uuid.8 >> 6 } == 2)
        }
    }
}
