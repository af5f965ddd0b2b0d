/// Who asked for a logged signature.
public enum SignatureSource: String, Sendable, Codable, CaseIterable {
    /// A caller of the service's API (an app through its API key) or an offline tool; every
    /// record written before sources existed is one.
    case api
    /// The App Store, through a Retention Messaging real-time request (`POST /v1/retention/appstore`).
    case retention
}
