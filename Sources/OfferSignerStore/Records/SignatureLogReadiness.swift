/// Whether the signature log can take appends.
public enum SignatureLogReadiness: Sendable, Equatable {
    case ready
    /// Why not.
    case notReady(String)

    public var isReady: Bool { self == .ready }
}
