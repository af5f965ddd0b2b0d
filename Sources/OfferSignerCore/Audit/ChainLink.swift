/// A position in the signature log's hash chain: an entry's sequence and hash.
public struct ChainLink: Hashable, Sendable, Codable {
    /// 1 for the first entry, then consecutive (an accepted gap skips the numbers it lost).
    public var sequence: Int64
    /// The entry's SHA-256, 64 lowercase hex characters.
    public var hash: String

    public init(sequence: Int64, hash: String) {
        self.sequence = sequence
        self.hash = hash
    }

    /// Before the first entry.
    public static let genesis = ChainLink(sequence: 0, hash: SignatureChain.genesis)
}
