import OfferSignerCore

/// A stored redemption with its match and the facts of its outcome.
public struct RedemptionRecord: Sendable, Hashable {
    /// Its position in the order redemptions were first found (the audit list's cursor).
    public var id: Int64
    public var run: RedemptionRun
    /// The nonce of the signature that explains it; nil when unmatched.
    public var signatureNonce: String?
    /// Whether the service holds a rule for its offer (a managed offer).
    public var managed: Bool

    public var matched: Bool { signatureNonce != nil }
}
