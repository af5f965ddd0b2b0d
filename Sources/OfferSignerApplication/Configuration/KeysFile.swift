import Foundation
import OfferSignerCore

/// The keys file as written on disk (see the README's configuration section and
/// keys.example): apps with their signing keys, API keys, and the audit key that signs
/// checkpoints of the signature log. Read with strict keys.
public struct KeysFile: Codable, Sendable {
    public var apps: [App]
    public var apiKeys: [APIKeyEntry]
    public var auditKey: AuditKeyEntry?

    public struct App: Codable, Sendable {
        public var bundleId: String
        public var appAppleId: Int64?
        public var issuerId: String?
        public var signingKeys: [SigningKeyEntry]
        /// The Team API key that reads the app's catalog from App Store Connect (and creates offers there).
        public var appStoreConnect: AppStoreConnectEntry?
    }

    /// A Team API key of App Store Connect: `{issuerId, keyId, privateKeyPath}`, or the key in a
    /// hardware module (`pkcs11`, `pkcs11Module`, `pinEnv`) as for signing keys.
    public struct AppStoreConnectEntry: Codable, Sendable {
        public var issuerId: String
        public var keyId: String
        public var privateKeyPath: String?
        public var pkcs11: String?
        public var pkcs11Module: String?
        public var pinEnv: String?

        var location: KeyLocationEntry {
            KeyLocationEntry(privateKeyPath: privateKeyPath, pkcs11: pkcs11, pkcs11Module: pkcs11Module, pinEnv: pinEnv)
        }
    }

    public struct SigningKeyEntry: Codable, Sendable {
        public var keyId: String
        /// A PKCS#8 `.p8` file; relative paths resolve against the keys file's folder. Or `pkcs11`.
        public var privateKeyPath: String?
        /// An RFC 7512 `pkcs11:` URI of a key in a hardware module, instead of `privateKeyPath`.
        public var pkcs11: String?
        /// The PKCS#11 module (shared library) holding `pkcs11`'s token.
        public var pkcs11Module: String?
        /// The name of the environment variable holding the token's PIN (never the PIN itself).
        public var pinEnv: String?
        public var active: Bool

        var location: KeyLocationEntry {
            KeyLocationEntry(privateKeyPath: privateKeyPath, pkcs11: pkcs11, pkcs11Module: pkcs11Module, pinEnv: pinEnv)
        }
    }

    public struct APIKeyEntry: Codable, Sendable {
        public var name: String
        public var role: String
        /// SHA-256 of the token, 64 lowercase hex characters; the token itself is never stored.
        public var tokenSHA256: String
        /// `"required"` for a client key shipped in apps: its sign requests must carry the
        /// customer's Apple-signed transaction. Absent or `"optional"`: a trusted backend's key.
        public var proof: String?
    }

    /// The P-256 key that signs checkpoints of the signature log; never an App Store key.
    public struct AuditKeyEntry: Codable, Sendable {
        public var keyId: String
        /// Relative paths resolve against the keys file's folder.
        public var privateKeyPath: String?
        /// A key in a hardware module instead (see ``SigningKeyEntry``).
        public var pkcs11: String?
        public var pkcs11Module: String?
        public var pinEnv: String?

        var location: KeyLocationEntry {
            KeyLocationEntry(privateKeyPath: privateKeyPath, pkcs11: pkcs11, pkcs11Module: pkcs11Module, pinEnv: pinEnv)
        }
    }

    enum CodingKeys: String, CodingKey { case apps, apiKeys, auditKey }

    public init(apps: [App], apiKeys: [APIKeyEntry], auditKey: AuditKeyEntry? = nil) {
        self.apps = apps
        self.apiKeys = apiKeys
        self.auditKey = auditKey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        apps = try container.decode([App].self, forKey: .apps)
        apiKeys = try container.decodeIfPresent([APIKeyEntry].self, forKey: .apiKeys) ?? []
        auditKey = try container.decodeIfPresent(AuditKeyEntry.self, forKey: .auditKey)
    }
}

extension KeysFile.SigningKeyEntry {
    enum CodingKeys: String, CodingKey { case keyId, privateKeyPath, pkcs11, pkcs11Module, pinEnv, active }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keyId = try container.decode(String.self, forKey: .keyId)
        privateKeyPath = try container.decodeIfPresent(String.self, forKey: .privateKeyPath)
        pkcs11 = try container.decodeIfPresent(String.self, forKey: .pkcs11)
        pkcs11Module = try container.decodeIfPresent(String.self, forKey: .pkcs11Module)
        pinEnv = try container.decodeIfPresent(String.self, forKey: .pinEnv)
        active = try container.decodeIfPresent(Bool.self, forKey: .active) ?? false
    }
}
