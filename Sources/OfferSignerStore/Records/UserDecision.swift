/// A user's first decision about an offer.
public struct UserDecision: Sendable, Hashable {
    public var userKey: String
    /// ms since 1970.
    public var decidedAt: Int64
    /// Held out (true) or signed (false).
    public var heldOut: Bool
}
