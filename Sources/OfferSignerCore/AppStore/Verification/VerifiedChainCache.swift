import Foundation
import Synchronization

/// Recently verified `x5c` chains, keyed by the leaf and intermediate certificates, so that a
/// burst of notifications signed by the same chain is verified by OpenSSL once.
///
/// Like Apple's `ChainVerifier`: entries live 15 minutes and the cache holds about 32 of them.
/// A hit still has its validity re-checked at each payload's `signedDate` by the caller.
final class VerifiedChainCache: Sendable {
    struct Key: Hashable, Sendable {
        let leafDigest: [UInt8]
        let intermediateDigest: [UInt8]
        /// The `x5c` root (never trusted, but checked to be well-formed when first seen).
        let rootDigest: [UInt8]

        init(leaf: X509Certificate, intermediate: X509Certificate, rootDER: [UInt8] = []) {
            self.init(leafDER: leaf.derBytes, intermediateDER: intermediate.derBytes, rootDER: rootDER)
        }

        init(leafDER: [UInt8], intermediateDER: [UInt8], rootDER: [UInt8]) {
            leafDigest = SHA256Digest.hash(leafDER)
            intermediateDigest = SHA256Digest.hash(intermediateDER)
            rootDigest = SHA256Digest.hash(rootDER)
        }
    }

    private struct Entry {
        let chain: VerifiedChain
        let expires: Date
    }

    static let defaultTimeToLive: TimeInterval = 15 * 60
    static let defaultCapacity = 32

    let timeToLive: TimeInterval
    let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    init(timeToLive: TimeInterval = defaultTimeToLive, capacity: Int = defaultCapacity) {
        self.timeToLive = timeToLive
        self.capacity = max(1, capacity)
    }

    /// The chain cached for `key`, unless absent or older than the time to live.
    func chain(for key: Key, now: Date) -> VerifiedChain? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            return entry.chain
        }
    }

    /// Remembers `chain` for `key`; past capacity, drops expired entries, then the oldest.
    func insert(_ chain: VerifiedChain, for key: Key, now: Date) {
        let capacity = self.capacity
        let expires = now.addingTimeInterval(timeToLive)
        entries.withLock { entries in
            entries[key] = Entry(chain: chain, expires: expires)
            guard entries.count > capacity else { return }
            entries = entries.filter { $0.value.expires > now }
            while entries.count > capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[oldest.key] = nil
            }
        }
    }

    /// How many chains are cached (expired ones included until touched).
    var count: Int { entries.withLock { $0.count } }
}
