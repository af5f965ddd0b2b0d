import Foundation
import OfferSignerCore

/// The append-only, hash-chained log of every issued signature.
public protocol SignatureLog: Sendable {
    /// Appends `record` and returns only once it is durably committed. With a `quota`, the
    /// append is refused (`quotaExceeded`) when the user already has that many signatures of
    /// the offer (the record's app and offer ID) in the quota's window, checked inside the same transaction, so concurrent
    /// requests cannot overrun it.
    func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature

    /// Appends every one of `records` in one commit (no quota) and returns only once all of
    /// them are durably committed, in order; when any cannot be appended the error is thrown
    /// and none of them may be handed out.
    func append(all records: [SignatureRecord]) throws(SignatureLogError) -> [LoggedSignature]

    /// The record with this nonce.
    func signature(nonce: String) throws -> LoggedSignature?

    /// Records matching `filter` with sequence above `afterSequence`, oldest first.
    func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature]

    /// Walks the whole chain (records and accepted gaps) and reports the first entry that
    /// does not link, does not match a checkpoint of `options`, or fails its record check.
    func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport

    /// Whether the log can be read and written now. After an append failed (disk full, the
    /// chain's end not matching its recorded end) it is not ready until a write succeeds again.
    func readiness() -> SignatureLogReadiness

    /// The chain's end as this process last committed it (or found it when opening the log).
    func committedEnd() -> ChainLink
}

extension SignatureLog {
    /// `verifyIntegrity` of the hash chain alone.
    public func verifyIntegrity() throws -> IntegrityReport {
        try verifyIntegrity(IntegrityOptions())
    }
}

/// Whether the signature log can take appends.
public enum SignatureLogReadiness: Sendable, Equatable {
    case ready
    /// Why not.
    case notReady(String)

    public var isReady: Bool { self == .ready }
}

/// At most `maxCount` signatures of one offer (app and offer ID) to one user within `window`
/// before the record's timestamp. The user is the record's `userId`; for an empty one (a
/// customer without an app account token, proven by an Apple-signed transaction) it is the
/// record's `transactionId`, the proven subscription, so such customers do not share one quota.
public struct SignatureQuota: Sendable, Hashable {
    public var maxCount: Int
    public var windowMilliseconds: Int64

    public init(maxCount: Int, windowMilliseconds: Int64 = 86_400_000) {
        self.maxCount = maxCount
        self.windowMilliseconds = windowMilliseconds
    }
}

/// Why an append did not happen.
public enum SignatureLogError: Error, CustomStringConvertible, Sendable {
    /// The quota is used up; a slot frees in `retryAfterSeconds`.
    case quotaExceeded(retryAfterSeconds: Int)
    /// The record could not be durably written (disk full, database error, shutting down).
    case unavailable(String)
    /// The log does not end where its last commit said it ends (records cut off its end, the
    /// recorded end deleted or changed): nothing is appended until an operator acts.
    case endMismatch(ChainEndMismatch)

    public var description: String {
        switch self {
        case .quotaExceeded(let seconds): "signature quota used up; retry in \(seconds) s"
        case .unavailable(let reason): "the signature log cannot be written: \(reason)"
        case .endMismatch(let mismatch): "the signature log was tampered with and takes no appends: \(mismatch)"
        }
    }
}

/// Which records an audit query wants; nil fields do not filter.
public struct SignatureFilter: Sendable, Hashable {
    public var userId: String?
    public var offerId: String?
    public var productId: String?
    public var bundleId: String?
    public var keyId: String?
    /// Who asked: the API or the App Store's retention request.
    public var source: SignatureSource?
    public var format: SignatureFormat?
    /// Inclusive lower bound on `timestamp`, milliseconds.
    public var fromTimestamp: Int64?
    /// Exclusive upper bound on `timestamp`, milliseconds.
    public var toTimestamp: Int64?

    public init(userId: String? = nil, offerId: String? = nil, productId: String? = nil, bundleId: String? = nil,
                keyId: String? = nil, source: SignatureSource? = nil, format: SignatureFormat? = nil,
                fromTimestamp: Int64? = nil, toTimestamp: Int64? = nil) {
        self.userId = userId
        self.offerId = offerId
        self.productId = productId
        self.bundleId = bundleId
        self.keyId = keyId
        self.source = source
        self.format = format
        self.fromTimestamp = fromTimestamp
        self.toTimestamp = toTimestamp
    }
}

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
