/// How far the service believes an API key's caller about who the customer is. Set per API
/// key in the keys file with `"proof"`.
public enum CallerTrust: String, Sendable, Hashable, CaseIterable {
    /// A trusted backend (the app's own server, which authenticates its users): it signs on
    /// its word about the `userId`, with or without proof. The default (`"proof": "optional"`).
    case backend
    /// A key shipped inside apps, hence public to anyone who unpacks one
    /// (`"proof": "required"`): a sign request must carry the customer's Apple-signed
    /// transaction, verified and bound to the request, or it is refused.
    case app

    /// The keys file's `"proof"` value for this trust.
    public var proofSetting: String {
        switch self {
        case .backend: "optional"
        case .app: "required"
        }
    }

    /// The trust a keys file's `"proof"` value names (absent: backend), nil for an unknown value.
    public init?(proofSetting: String?) {
        guard let proofSetting else {
            self = .backend
            return
        }
        guard let trust = Self.allCases.first(where: { $0.proofSetting == proofSetting }) else { return nil }
        self = trust
    }

    /// What `keys check` says of a key with this trust.
    public var summary: String {
        switch self {
        case .backend: "proof optional (a trusted backend's key: believed about the user)"
        case .app: "proof required (shipped in apps: sign requests must carry the customer's signedTransaction)"
        }
    }
}
