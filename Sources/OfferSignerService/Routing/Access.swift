import OfferSignerApplication

/// Who may call a route.
public enum Access: Sendable {
    /// No token needed (health, metrics, App Store notifications).
    case open
    /// Any valid token.
    case anyRole
    /// These roles, and admin.
    case roles(Set<Role>)

    /// Whether `role` may call the route.
    public func allows(_ role: Role) -> Bool {
        switch self {
        case .open, .anyRole: true
        case .roles(let roles): role == .admin || roles.contains(role)
        }
    }
}
