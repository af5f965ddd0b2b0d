import OfferSignerCore
import OfferSignerPKCS11

/// Bad configuration: which file, and what is wrong with it.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file at fault.
    public let file: String
    public let fault: ConfigurationFault

    public init(file: String, fault: ConfigurationFault) {
        self.file = file
        self.fault = fault
    }

    public var description: String { "\(file): \(fault)" }
}

/// What is wrong with a keys file or an offer rules file.
public enum ConfigurationFault: Sendable, Equatable, CustomStringConvertible {
    /// The keys file cannot be read.
    case unreadableKeysFile(reason: String)
    /// The keys file is not JSON of the expected shape (the decoding fault, naming the field).
    case malformedKeysFile(String)
    case noApps
    case invalidBundleId(String)
    case duplicateApp(String)
    case invalidKeyId(app: String, keyId: String)
    case duplicateKeyId(app: String, keyId: String)
    case unreadablePrivateKey(app: String, keyId: String, path: String, reason: String)
    case invalidPrivateKey(app: String, keyId: String, path: String, KeyError)
    case noActiveKey(app: String)
    case severalActiveKeys(app: String, keyIds: [String])
    case invalidIssuerId(app: String)
    case invalidAPIKeyName(String)
    case duplicateAPIKeyName(String)
    case unknownRole(apiKey: String, role: String)
    case invalidTokenHash(apiKey: String)
    case duplicateToken(apiKey: String)
    /// An API key's `"proof"` is neither `"required"` nor `"optional"`.
    case invalidProofSetting(apiKey: String, value: String)
    /// `"proof": "required"` (a key shipped in apps) on a key whose role is not `client`.
    case proofOnNonClientKey(apiKey: String, role: Role)
    /// A key entry names no key, or two (`key` says which entry: an app's key, or the audit key).
    case keyLocation(key: String, reason: String)
    /// A key in a hardware module could not be used: the module, the token, the PIN or the object.
    case pkcs11Key(key: String, PKCS11Error)
    case invalidAuditKeyId(String)
    case unreadableAuditKey(path: String, reason: String)
    case invalidAuditKey(path: String, KeyError)
    /// The audit key is one of the App Store signing keys; it must be a key of its own.
    case auditKeyIsSigningKey(app: String, keyId: String)
    /// An app's `appStoreConnect` entry is wrong (`reason` says how).
    case appStoreConnectKey(app: String, reason: String)
    /// The apps cannot be checked against App Store signed data (e.g. a bundle ID twice).
    case appStoreVerification(SignedDataConfigurationError)
    /// The offer rules file cannot be read.
    case unreadableOfferRules
    /// The offer rules file is not a JSON array of rules (the decoding fault).
    case malformedOfferRules(String)
    /// An offer rules file's faults, each naming its rule.
    case invalidOfferRules([String])

    public var description: String {
        switch self {
        case .unreadableKeysFile(let reason): "cannot read the keys file (\(reason))"
        case .malformedKeysFile(let fault): "malformed keys file: \(fault)"
        case .unreadableOfferRules: "cannot read the offer rules file"
        case .malformedOfferRules(let fault): "not a JSON array of offer rules: \(fault)"
        case .noApps: "no apps are configured"
        case .invalidBundleId(let bundleId): "bundleId '\(bundleId)' is not a valid bundle ID"
        case .duplicateApp(let bundleId): "app \(bundleId) is configured twice"
        case .invalidKeyId(let app, let keyId): "app \(app): keyId '\(keyId)' is not a valid key ID"
        case .duplicateKeyId(let app, let keyId): "app \(app): duplicate key ID \(keyId)"
        case .unreadablePrivateKey(let app, let keyId, let path, let reason): "app \(app), key \(keyId): cannot read \(path) (\(reason))"
        case .invalidPrivateKey(let app, let keyId, let path, let error): "app \(app), key \(keyId): \(path) is \(error)"
        case .noActiveKey(let app): "app \(app) has no active signing key (exactly one must be \"active\": true)"
        case .severalActiveKeys(let app, let keyIds):
            "app \(app) has \(keyIds.count) active signing keys (\(keyIds.joined(separator: ", "))); exactly one may be active"
        case .invalidIssuerId(let app): "app \(app): issuerId is not valid"
        case .invalidAPIKeyName(let name): "API key name '\(name)' is not valid"
        case .duplicateAPIKeyName(let name): "API key name \(name) is used twice"
        case .unknownRole(let apiKey, let role):
            "API key \(apiKey): unknown role '\(role)' (use \(Role.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .invalidTokenHash(let apiKey):
            "API key \(apiKey): tokenSHA256 must be 64 lowercase hex characters (see `offer-signer keys hash-token`)"
        case .duplicateToken(let apiKey): "API key \(apiKey) has the same token as another key"
        case .invalidProofSetting(let apiKey, let value):
            "API key \(apiKey): proof '\(value)' is not known (use \"required\" for a key shipped in apps, \"optional\" or nothing for a backend's)"
        case .proofOnNonClientKey(let apiKey, let role):
            "API key \(apiKey): \"proof\": \"required\" marks a key shipped in apps, which must have role client, not \(role.rawValue)"
        case .keyLocation(let key, let reason): "\(key): \(reason)"
        case .pkcs11Key(let key, let error): "\(key): \(error)"
        case .invalidAuditKeyId(let keyId): "auditKey: keyId '\(keyId)' is not a valid key ID"
        case .unreadableAuditKey(let path, let reason): "auditKey: cannot read \(path) (\(reason))"
        case .invalidAuditKey(let path, let error): "auditKey: \(path) is \(error)"
        case .auditKeyIsSigningKey(let app, let keyId):
            "auditKey: it is the signing key \(keyId) of app \(app); the audit key must be a P-256 key of its own"
        case .appStoreConnectKey(let app, let reason): "app \(app), appStoreConnect: \(reason)"
        case .appStoreVerification(let error): "cannot verify App Store data with these apps: \(error)"
        case .invalidOfferRules(let faults): faults.joined(separator: "; ")
        }
    }
}
