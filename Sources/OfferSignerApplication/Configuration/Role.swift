/// What an API key may do. `admin` may do everything.
public enum Role: String, Sendable, CaseIterable, Codable {
    /// Signs offers and reads a user's offers.
    case client
    /// Manages offer rules.
    case marketing
    /// Reads the audit trail.
    case auditor
    /// Everything.
    case admin
}
