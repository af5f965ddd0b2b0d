/// An authenticated caller: the API key's name and role.
public struct Principal: Sendable, Hashable {
    public var name: String
    public var role: Role

    public init(name: String, role: Role) {
        self.name = name
        self.role = role
    }
}
