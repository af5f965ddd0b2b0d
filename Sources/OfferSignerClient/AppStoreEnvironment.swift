/// Whose App Store history decides: Production, or Sandbox for TestFlight and development
/// builds (the service must accept it: `OFFER_SIGNER_ENVIRONMENTS=Production,Sandbox`).
public enum AppStoreEnvironment: String, Sendable, Equatable, Codable {
    /// Purchases made in the App Store.
    case production = "Production"
    /// Purchases made in TestFlight and development builds.
    case sandbox = "Sandbox"
}
