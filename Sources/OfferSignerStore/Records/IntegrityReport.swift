import OfferSignerCore

/// The outcome of walking the hash chain.
public struct IntegrityReport: Sendable, Hashable {
    public var ok: Bool
    /// Signature records in the log (accepted gaps not counted).
    public var records: Int
    /// The first record that does not link to the one before it, or whose hash is wrong.
    public var firstBadRecord: LoggedSignature?
    /// The sequence of the first entry at fault (a record or a gap), when one is.
    public var firstBadSequence: Int64?
    /// What is wrong with it.
    public var problem: String?
    /// Gaps operators accepted after records were cut off the end: always listed, so a loss stays visible.
    public var gaps: [ChainGap]
    /// Checkpoints that matched the chain.
    public var checkpointsMatched: Int
    /// Checkpoints that fall in an accepted gap, so there is nothing left to compare them with.
    public var checkpointsInGaps: Int
    /// Records whose signature was checked (nil when signatures were not asked for).
    public var signaturesChecked: Int?

    public init(ok: Bool, records: Int, firstBadRecord: LoggedSignature? = nil, firstBadSequence: Int64? = nil,
                problem: String? = nil, gaps: [ChainGap] = [], checkpointsMatched: Int = 0, checkpointsInGaps: Int = 0,
                signaturesChecked: Int? = nil) {
        self.ok = ok
        self.records = records
        self.firstBadRecord = firstBadRecord
        self.firstBadSequence = firstBadSequence ?? firstBadRecord?.sequence
        self.problem = problem
        self.gaps = gaps
        self.checkpointsMatched = checkpointsMatched
        self.checkpointsInGaps = checkpointsInGaps
        self.signaturesChecked = signaturesChecked
    }
}
