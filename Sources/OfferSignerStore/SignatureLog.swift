import Foundation
import OfferSignerCore

/// The append-only, hash-chained log of every issued signature.
public protocol SignatureLog: Sendable {
    /// Appends `record` and returns only once it is durably committed. With a `quota`, the
    /// append is refused (`quotaExceeded`) when the user already has that many signatures of
    /// the offer (the record's app and offer ID) in the quota's window, checked inside the same transaction, so concurrent
    /// requests cannot overrun it.
    func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature

    /// The record with this nonce.
    func signature(nonce: String) throws -> LoggedSignature?

    /// Records matching `filter` with sequence above `afterSequence`, oldest first.
    func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature]

    /// Walks the whole chain and reports the first record that does not link.
    func verifyIntegrity() throws -> IntegrityReport

    /// Whether the log can be read and written now.
    func isReady() -> Bool
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

    public var description: String {
        switch self {
        case .quotaExceeded(let seconds): "signature quota used up; retry in \(seconds) s"
        case .unavailable(let reason): "the signature log cannot be written: \(reason)"
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
    /// Inclusive lower bound on `timestamp`, milliseconds.
    public var fromTimestamp: Int64?
    /// Exclusive upper bound on `timestamp`, milliseconds.
    public var toTimestamp: Int64?

    public init(userId: String? = nil, offerId: String? = nil, productId: String? = nil, bundleId: String? = nil,
                keyId: String? = nil, fromTimestamp: Int64? = nil, toTimestamp: Int64? = nil) {
        self.userId = userId
        self.offerId = offerId
        self.productId = productId
        self.bundleId = bundleId
        self.keyId = keyId
        self.fromTimestamp = fromTimestamp
        self.toTimestamp = toTimestamp
    }
}

/// The outcome of walking the hash chain.
public struct IntegrityReport: Sendable, Hashable {
    public var ok: Bool
    public var records: Int
    /// The first record that does not link to the one before it, or whose hash is wrong.
    public var firstBadRecord: LoggedSignature?
    /// What is wrong with it.
    public var problem: String?

    public init(ok: Bool, records: Int, firstBadRecord: LoggedSignature? = nil, problem: String? = nil) {
        self.ok = ok
        self.records = records
        self.firstBadRecord = firstBadRecord
        self.problem = problem
    }
}
