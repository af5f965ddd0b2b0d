internal import COpenSSL
import Synchronization

/// Small draws of OpenSSL's generator served from a block drawn at once: `RAND_bytes` costs
/// about 6,800 instructions a call whatever its size (the DRBG's lock, its reseed check, its
/// AES-CTR setup), and signing draws 16 bytes three times a request (the request ID, the
/// nonce, the webhook event's ID). One call fills ``blockSize`` bytes; each draw takes the next
/// bytes of the block, under a lock, and clears them there, so no byte is handed out twice or
/// stays in memory after its draw.
///
/// The bytes are OpenSSL's, unchanged: nothing is derived or stretched here. A block outlives a
/// `fork()` in the child only if the process forks without `exec` (it never does: helpers
/// start through `posix_spawn`).
final class RandomBlocks: Sendable {
    /// Bytes drawn from OpenSSL at once: 256 UUIDs' worth.
    static let blockSize = 4096
    /// The largest draw served from the block; larger ones call OpenSSL directly.
    static let largestDraw = 64

    /// The block and the position of its next unused byte.
    private struct Block {
        var bytes = [UInt8](repeating: 0, count: RandomBlocks.blockSize)
        var next = RandomBlocks.blockSize
    }

    private let block = Mutex(Block())
    /// Blocks drawn from OpenSSL so far (draws larger than ``largestDraw`` not counted).
    let blocksDrawn = Atomic<Int>(0)

    /// Fills `out` with random bytes.
    func fill(_ out: UnsafeMutableRawBufferPointer) {
        guard out.count <= Self.largestDraw else {
            Self.draw(out)
            return
        }
        // The caller's buffer, written only inside the lock, during this call.
        nonisolated(unsafe) let out = out
        block.withLock { block in
            let next = block.next
            block.bytes.withUnsafeMutableBytes { bytes in
                var start = next
                if start + out.count > bytes.count {
                    Self.draw(bytes)
                    blocksDrawn.add(1, ordering: .relaxed)
                    start = 0
                }
                let taken = UnsafeMutableRawBufferPointer(rebasing: bytes[start ..< start + out.count])
                out.copyMemory(from: UnsafeRawBufferPointer(taken))
                taken.initializeMemory(as: UInt8.self, repeating: 0)
            }
            block.next = (next + out.count > Self.blockSize ? 0 : next) + out.count
        }
    }

    /// `out` filled by OpenSSL. Traps only if the operating system's entropy source is broken.
    private static func draw(_ out: UnsafeMutableRawBufferPointer) {
        guard let base = out.baseAddress, !out.isEmpty else { return }
        precondition(RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(out.count)) == 1,
                     "OpenSSL's random generator failed")
    }
}
