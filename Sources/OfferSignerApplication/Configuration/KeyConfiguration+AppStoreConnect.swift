import Foundation
import OfferSignerCore

/// An app's Team API key for the App Store Connect API: the issuer and key IDs App Store
/// Connect shows (Users and Access → Integrations → Team Keys) and the `.p8` (or a hardware
/// module's key).
public struct AppStoreConnectKey: Sendable {
    public let issuerId: String
    public let keyId: String
    public let privateKey: any P256SigningKey
    /// Where the key is held.
    public let source: KeySource

    public init(issuerId: String, keyId: String, privateKey: any P256SigningKey, source: KeySource = .file(path: "")) {
        self.issuerId = issuerId
        self.keyId = keyId
        self.privateKey = privateKey
        self.source = source
    }
}

extension KeyConfiguration {
    /// Reads and checks an app's `appStoreConnect`: valid IDs, a readable P-256 key, and not one
    /// of the app's In-App Purchase keys (App Store Connect refuses those).
    static func appStoreConnectKey(_ entry: KeysFile.AppStoreConnectEntry, app: String, signingKeys: [SigningKey], folder: URL,
                                   path: String, environment: [String: String],
                                   warnings: inout [String]) throws(ConfigurationError) -> AppStoreConnectKey {
        func fail(_ reason: String) -> ConfigurationError {
            ConfigurationError(file: path, fault: .appStoreConnectKey(app: app, reason: reason))
        }
        guard Identifier.isValid(entry.keyId) else { throw fail("keyId '\(entry.keyId)' is not a valid key ID") }
        guard Identifier.isValid(entry.issuerId) else { throw fail("issuerId '\(entry.issuerId)' is not valid") }
        let opened: KeyLocationEntry.Opened
        switch entry.location.open(folder: folder, environment: environment) {
        case .success(let key): opened = key
        case .failure(.unreadable(let keyPath, let reason)): throw fail("cannot read \(keyPath) (\(reason))")
        case .failure(.invalid(let keyPath, let error)): throw fail("\(keyPath) is \(error)")
        case .failure(.location(let reason)): throw fail(reason)
        case .failure(.pkcs11(let error)): throw fail("\(error)")
        }
        for signing in signingKeys where signing.publicKey.spkiDER == opened.key.publicKey.spkiDER {
            throw fail("the key is the In-App Purchase key \(signing.keyId); App Store Connect needs a Team key "
                       + "(Users and Access → Integrations → Team Keys, with the App Manager role)")
        }
        warnings += opened.warnings
        return AppStoreConnectKey(issuerId: entry.issuerId, keyId: entry.keyId, privateKey: opened.key, source: opened.source)
    }
}
