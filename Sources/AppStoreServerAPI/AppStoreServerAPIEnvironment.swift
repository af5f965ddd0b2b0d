/// Which App Store Server API a client calls.
///
/// [App Store Server API](https://developer.apple.com/documentation/appstoreserverapi)
public enum AppStoreServerAPIEnvironment: String, Hashable, Sendable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"

    /// Apple's base URL for the environment.
    public var baseURL: String {
        switch self {
        case .production: "https://api.storekit.apple.com"
        case .sandbox: "https://api.storekit-sandbox.apple.com"
        }
    }
}
