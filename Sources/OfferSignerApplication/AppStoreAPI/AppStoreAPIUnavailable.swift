/// Why no App Store Server API client exists for an app.
public enum AppStoreAPIUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
    /// No app with this bundle ID is configured.
    case unknownApp(bundleId: String)
    /// The app's entry in the keys file has no `issuerId`, which the API's tokens need.
    case noIssuerId(bundleId: String)
    /// The environment is not among `OFFER_SIGNER_ENVIRONMENTS`.
    case environmentNotAccepted(String)
    /// The service runs without App Store Server API clients.
    case notConfigured

    public var description: String {
        switch self {
        case .unknownApp(let bundleId):
            "no app with bundleId '\(bundleId)' is configured"
        case .noIssuerId(let bundleId):
            "the keys file gives no issuerId for \(bundleId); the App Store Server API needs it "
                + "(App Store Connect → Users and Access → Integrations → In-App Purchase shows it above the keys)"
        case .environmentNotAccepted(let environment):
            "the \(environment) environment is not accepted (OFFER_SIGNER_ENVIRONMENTS)"
        case .notConfigured:
            "the App Store Server API is not configured in this service"
        }
    }
}
