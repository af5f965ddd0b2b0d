import OfferSignerCore

/// What an integrity walk checks besides the hash chain itself.
public struct IntegrityOptions: Sendable {
    /// Chain positions vouched for by checkpoints whose signatures the caller has verified:
    /// the entry at each position must have that hash, and the log must reach it.
    public var checkpoints: [ChainLink]
    /// Checks one record's own signature; returns why it is wrong, or nil. Nil: not checked.
    public var recordCheck: (@Sendable (SignatureRecord) -> String?)?

    public init(checkpoints: [ChainLink] = [], recordCheck: (@Sendable (SignatureRecord) -> String?)? = nil) {
        self.checkpoints = checkpoints
        self.recordCheck = recordCheck
    }
}
