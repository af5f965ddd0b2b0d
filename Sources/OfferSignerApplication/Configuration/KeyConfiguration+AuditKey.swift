import Foundation
import OfferSignerCore

/// The key that signs checkpoints of the signature log: a P-256 key of its own, so that
/// neither key can stand in for the other.
public struct AuditKey: Sendable {
    public let keyId: String
    public let privateKey: P256PrivateKey
    /// Cached public half: what auditors verify checkpoints with.
    public let publicKey: P256PublicKey

    public init(keyId: String, privateKey: P256PrivateKey) {
        self.keyId = keyId
        self.privateKey = privateKey
        publicKey = privateKey.publicKey
    }
}

extension KeyConfiguration {
    /// Reads and checks the keys file's `auditKey`: a valid key ID, a readable P-256 PKCS#8
    /// file, and a key that is none of the apps' signing keys.
    static func auditKey(_ entry: KeysFile.AuditKeyEntry, apps: [AppKeys], folder: URL, path: String,
                         warnings: inout [String]) throws(ConfigurationError) -> AuditKey {
        func fail(_ fault: ConfigurationFault) -> ConfigurationError { ConfigurationError(file: path, fault: fault) }
        guard Identifier.isValid(entry.keyId) else { throw fail(.invalidAuditKeyId(entry.keyId)) }
        let url = entry.privateKeyPath.hasPrefix("/") ? URL(fileURLWithPath: entry.privateKeyPath)
            : folder.appendingPathComponent(entry.privateKeyPath)
        let privateKey: P256PrivateKey
        switch Self.privateKey(at: url) {
        case .success(let key): privateKey = key
        case .failure(.unreadable(let reason)): throw fail(.unreadableAuditKey(path: url.path, reason: reason))
        case .failure(.invalid(let error)): throw fail(.invalidAuditKey(path: url.path, error))
        }
        let key = AuditKey(keyId: entry.keyId, privateKey: privateKey)
        for app in apps {
            for signing in app.keys where signing.publicKey.spkiDER == key.publicKey.spkiDER {
                throw fail(.auditKeyIsSigningKey(app: app.bundleId, keyId: signing.keyId))
            }
        }
        if let warning = FilePermissions.warning(for: url.path) { warnings.append(warning) }
        return key
    }
}
