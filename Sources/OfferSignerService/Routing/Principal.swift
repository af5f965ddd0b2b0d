import OfferSignerApplication

/// An authenticated caller: the API key's name, role and trust (a backend's or shipped in apps).
public struct Principal: Sendable, Hashable {
    public var name: String
    public var role: Role
    public var trust: CallerTrust

    public init(name: String, role: Role, trust: CallerTrust = .backend) {
        self.name = name
        self.role = role
        self.trust = trust
    }
}
