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

        public init(bundleId: String, appAppleId: Int64?, issuerId: String?, signingKeys: [SigningKeyEntry]) {
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.issuerId = issuerId
            self.signingKeys = signingKeys
        }
    }

    public struct SigningKeyEntry: Codable, Sendable {
        public var keyId: String
        /// Relative paths resolve against the keys file's folder.
        public var privateKeyPath: String
        public var active: Bool

        enum CodingKeys: String, CodingKey { case keyId, privateKeyPath, active }

        public init(keyId: String, privateKeyPath: String, active: Bool) {
            self.keyId = keyId
            self.privateKeyPath = privateKeyPath
            self.active = active
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            keyId = try container.decode(String.self, forKey: .keyId)
            privateKeyPath = try container.decode(String.self, forKey: .privateKeyPath)
            active = try container.decodeIfPresent(Bool.self, forKey: .active) ?? false
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

        public init(name: String, role: String, tokenSHA256: String, proof: String? = nil) {
            self.name = name
            self.role = role
            self.tokenSHA256 = tokenSHA256
            self.proof = proof
        }
    }

    /// The P-256 key that signs checkpoints of the signature log; never an App Store key.
    public struct AuditKeyEntry: Codable, Sendable {
        public var keyId: String
        /// Relative paths resolve against the keys file's folder.
        public var privateKeyPath: String

        public init(keyId: String, privateKeyPath: String) {
            self.keyId = keyId
            self.privateKeyPath = privateKeyPath
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
