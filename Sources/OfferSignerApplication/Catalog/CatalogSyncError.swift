import AppStoreServerAPI

/// Why an app's catalog could not be read from App Store Connect (the previous one is kept).
public enum CatalogSyncError: Error, Sendable, CustomStringConvertible {
    /// The keys file gives the app no `appStoreConnect` Team key.
    case noCredentials(bundleId: String)
    /// No app of the key's team has this bundle ID.
    case appNotFound(bundleId: String, keyId: String)
    /// App Store Connect failed or refused a request.
    case appStoreConnect(AppStoreConnectError)
    /// The catalog is larger than a sync reads (`what` says which bound).
    case tooLarge(String)
    /// The sync took longer than it may.
    case timedOut(seconds: Int)
    /// The catalog could not be stored.
    case store(String)

    public var description: String {
        switch self {
        case .noCredentials(let bundleId):
            "the keys file gives \(bundleId) no appStoreConnect Team key (issuerId, keyId, privateKeyPath)"
        case .appNotFound(let bundleId, let keyId):
            "App Store Connect shows key \(keyId) no app with bundle ID \(bundleId)"
        case .appStoreConnect(let error): error.description
        case .tooLarge(let what): "the catalog is larger than a sync reads: \(what)"
        case .timedOut(let seconds): "the sync took more than \(seconds) s and was stopped"
        case .store(let reason): "the catalog could not be stored: \(reason)"
        }
    }
}
