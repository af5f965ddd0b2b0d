/// The App Store server environment that signed the data.
///
/// [environment](https://developer.apple.com/documentation/appstoreserverapi/environment)
public enum AppStoreEnvironment: String, Codable, Hashable, Sendable, CaseIterable {
    case sandbox = "Sandbox"
    case production = "Production"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
}
