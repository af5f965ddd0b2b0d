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
