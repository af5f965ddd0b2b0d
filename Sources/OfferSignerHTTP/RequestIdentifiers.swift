import Foundation
import OfferSignerCore
import Synchronization

/// The request IDs of requests that bring none (`X-Request-Id`): lowercase version-4 UUIDs,
/// made without asking OpenSSL's generator for every request (issue 38: `RAND_bytes` took
/// ~8,000 instructions of each signing request, the ID's only use of it).
///
/// Each ID is SipHash-2-4 of a per-process counter under two 128-bit keys drawn once from
/// ``SecureRandom`` (one key per 64-bit half). Within a process no counter value repeats; without
/// the keys the outputs cannot be told from random ones, so the IDs are as unique across
/// processes, restarts and instances as random UUIDs are (122 bits that look random), and they
/// reveal neither the counter nor how many requests the process served. What a request ID is
/// for: finding a request in the logs, the signature log and webhooks; it is no secret and
/// grants nothing (a client may choose its own).
public final class RequestIdentifiers: Sendable {
    /// The process's generator.
    public static let shared = RequestIdentifiers(keys: SecureRandom.bytes(32))

    private let first: SipHash24
    private let second: SipHash24
    private let counter = Atomic<UInt64>(0)

    /// A generator keyed by `keys` (32 bytes: the two halves' keys).
    init(keys: [UInt8]) {
        precondition(keys.count == 32, "RequestIdentifiers needs 32 bytes of keys")
        first = SipHash24(key: Array(keys[0 ..< 16]))
        second = SipHash24(key: Array(keys[16 ..< 32]))
    }

    /// The next request ID.
    public func next() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        let high = first.hash(count), low = second.hash(count)
        var bytes = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
                     UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        withUnsafeMutableBytes(of: &bytes) { out in
            for index in 0 ..< 8 {
                out[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
                out[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
            }
            out[6] = (out[6] & 0x0f) | 0x40  // version 4
            out[8] = (out[8] & 0x3f) | 0x80  // RFC 4122 variant
        }
        return SecureRandom.lowercasedString(UUID(uuid: bytes))
    }
}

/// SipHash-2-4 (Aumasson and Bernstein) of one 64-bit word (its 8 bytes, little-endian) under a
/// 128-bit key: a keyed pseudo-random function.
struct SipHash24: Sendable {
    private let k0: UInt64
    private let k1: UInt64

    /// `key`: 16 bytes, read as two little-endian words.
    init(key: [UInt8]) {
        precondition(key.count == 16, "SipHash-2-4 takes a 16-byte key")
        var k0: UInt64 = 0, k1: UInt64 = 0
        for index in 0 ..< 8 {
            k0 |= UInt64(key[index]) << (8 * UInt64(index))
            k1 |= UInt64(key[8 + index]) << (8 * UInt64(index))
        }
        self.k0 = k0
        self.k1 = k1
    }

    /// The hash of the 8 bytes of `word`, least significant first.
    func hash(_ word: UInt64) -> UInt64 {
        var v0 = k0 ^ 0x736f_6d65_7073_6575, v1 = k1 ^ 0x646f_7261_6e64_6f6d
        var v2 = k0 ^ 0x6c79_6765_6e65_7261, v3 = k1 ^ 0x7465_6462_7974_6573
        func round() {
            v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
            v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
        }
        v3 ^= word; round(); round(); v0 ^= word
        let last: UInt64 = 8 << 56  // the message's length (8) in the last block's top byte, no bytes left
        v3 ^= last; round(); round(); v0 ^= last
        v2 ^= 0xff; round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

private extension UInt64 {
    func rotatedLeft(_ bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
}
