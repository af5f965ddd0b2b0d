import Foundation
import OfferSignerCore

/// The key that signs checkpoints of the signature log: a P-256 key of its own, so that
/// neither key can stand in for the other.
public struct AuditKey: Sendable {
    public let keyId: String
    /// A `.p8` file's key, or a hardware module's.
    public let privateKey: any P256SigningKey
    /// Cached public half: what auditors verify checkpoints with.
    public let publicKey: P256PublicKey
    /// Where the key is held.
    public let source: KeySource

    public init(keyId: String, privateKey: any P256SigningKey, source: KeySource = .file(path: "")) {
        self.keyId = keyId
        self.privateKey = privateKey
        publicKey = privateKey.publicKey
        self.source = source
    }
}

extension KeyConfiguration {
    /// Reads and checks the keys file's `auditKey`: a valid key ID, a readable P-256 PKCS#8
    /// file, and a key that is none of the apps' signing keys.
    static func auditKey(_ entry: KeysFile.AuditKeyEntry, apps: [AppKeys], folder: URL, path: String, environment: [String: String],
                         warnings: inout [String]) throws(ConfigurationError) -> AuditKey {
        func fail(_ fault: ConfigurationFault) -> ConfigurationError { ConfigurationError(file: path, fault: fault) }
        guard Identifier.isValid(entry.keyId) else { throw fail(.invalidAuditKeyId(entry.keyId)) }
        let opened: KeyLocationEntry.Opened
        switch entry.location.open(folder: folder, environment: environment) {
        case .success(let key): opened = key
        case .failure(.unreadable(let keyPath, let reason)): throw fail(.unreadableAuditKey(path: keyPath, reason: reason))
        case .failure(.invalid(let keyPath, let error)): throw fail(.invalidAuditKey(path: keyPath, error))
        case .failure(.location(let reason)): throw fail(.keyLocation(key: "auditKey", reason: reason))
        case .failure(.pkcs11(let error)): throw fail(.pkcs11Key(key: "auditKey", error))
        }
        let key = AuditKey(keyId: entry.keyId, privateKey: opened.key, source: opened.source)
        for app in apps {
            for signing in app.keys where signing.publicKey.spkiDER == key.publicKey.spkiDER {
                throw fail(.auditKeyIsSigningKey(app: app.bundleId, keyId: signing.keyId))
            }
        }
        warnings += opened.warnings
        return key
    }
}
