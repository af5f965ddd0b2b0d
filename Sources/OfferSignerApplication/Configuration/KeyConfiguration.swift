import Foundation
import OfferSignerCore

/// The keys file, loaded and checked: each app's signing keys (read from their PKCS#8 files),
/// the API keys and the audit key. Loading fails with a message naming the file and the fault.
public struct KeyConfiguration: Sendable {
    /// Configured apps by bundle ID.
    public let apps: [String: AppKeys]
    public let apiKeys: [APIKey]
    /// The key that signs checkpoints of the signature log; nil when the file names none.
    public let auditKey: AuditKey?
    /// Things an operator should fix that do not stop the service (e.g. key file permissions).
    public let warnings: [String]

    public init(apps: [AppKeys], apiKeys: [APIKey], auditKey: AuditKey? = nil, warnings: [String] = []) {
        self.apps = Dictionary(apps.map { ($0.bundleId, $0) }, uniquingKeysWith: { first, _ in first })
        self.apiKeys = apiKeys
        self.auditKey = auditKey
        self.warnings = warnings
    }

    /// Reads and validates the keys file at `path`; the PINs of keys in hardware modules are
    /// read from `environment`.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> KeyConfiguration {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError(file: path, fault: .unreadableKeysFile(reason: Self.reason(error)))
        }
        let file: KeysFile
        do {
            file = try JSONDecoder().decodeStrictly(KeysFile.self, from: data)
        } catch {
            throw ConfigurationError(file: path, fault: .malformedKeysFile(DecodingErrorText.describe(error)))
        }
        return try validate(file, path: path, folder: url.deletingLastPathComponent(), environment: environment)
    }

    static func validate(_ file: KeysFile, path: String, folder: URL,
                         environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> KeyConfiguration {
        func fail(_ fault: ConfigurationFault) -> ConfigurationError { ConfigurationError(file: path, fault: fault) }
        guard !file.apps.isEmpty else { throw fail(.noApps) }
        var apps: [AppKeys] = []
        var warnings: [String] = []
        var seenBundles = Set<String>()
        for app in file.apps {
            guard Identifier.isValid(app.bundleId) else { throw fail(.invalidBundleId(app.bundleId)) }
            guard seenBundles.insert(app.bundleId).inserted else { throw fail(.duplicateApp(app.bundleId)) }
            var keys: [SigningKey] = []
            var seenKeyIds = Set<String>()
            for entry in app.signingKeys {
                guard Identifier.isValid(entry.keyId) else { throw fail(.invalidKeyId(app: app.bundleId, keyId: entry.keyId)) }
                guard seenKeyIds.insert(entry.keyId).inserted else { throw fail(.duplicateKeyId(app: app.bundleId, keyId: entry.keyId)) }
                let opened: KeyLocationEntry.Opened
                switch entry.location.open(folder: folder, environment: environment) {
                case .success(let key): opened = key
                case .failure(.unreadable(let keyPath, let reason)):
                    throw fail(.unreadablePrivateKey(app: app.bundleId, keyId: entry.keyId, path: keyPath, reason: reason))
                case .failure(.invalid(let keyPath, let error)):
                    throw fail(.invalidPrivateKey(app: app.bundleId, keyId: entry.keyId, path: keyPath, error))
                case .failure(.location(let reason)):
                    throw fail(.keyLocation(key: "app \(app.bundleId), key \(entry.keyId)", reason: reason))
                case .failure(.pkcs11(let error)):
                    throw fail(.pkcs11Key(key: "app \(app.bundleId), key \(entry.keyId)", error))
                }
                warnings += opened.warnings
                keys.append(SigningKey(keyId: entry.keyId, privateKey: opened.key, active: entry.active, source: opened.source))
            }
            let active = keys.filter(\.active)
            guard !active.isEmpty else { throw fail(.noActiveKey(app: app.bundleId)) }
            guard active.count == 1 else {
                throw fail(.severalActiveKeys(app: app.bundleId, keyIds: active.map(\.keyId)))
            }
            if let issuer = app.issuerId, !Identifier.isValid(issuer) { throw fail(.invalidIssuerId(app: app.bundleId)) }
            var connect: AppStoreConnectKey?
            if let entry = app.appStoreConnect {
                connect = try Self.appStoreConnectKey(entry, app: app.bundleId, signingKeys: keys, folder: folder, path: path,
                                                      environment: environment, warnings: &warnings)
            }
            apps.append(AppKeys(bundleId: app.bundleId, appAppleId: app.appAppleId, issuerId: app.issuerId, keys: keys,
                                appStoreConnect: connect))
        }
        var apiKeys: [APIKey] = []
        var seenNames = Set<String>()
        var seenHashes = Set<String>()
        for entry in file.apiKeys {
            guard !entry.name.isEmpty, Identifier.isValid(entry.name) else { throw fail(.invalidAPIKeyName(entry.name)) }
            guard seenNames.insert(entry.name).inserted else { throw fail(.duplicateAPIKeyName(entry.name)) }
            guard let role = Role(rawValue: entry.role) else {
                throw fail(.unknownRole(apiKey: entry.name, role: entry.role))
            }
            guard entry.tokenSHA256.count == 64, entry.tokenSHA256 == entry.tokenSHA256.lowercased(),
                  let hash = [UInt8](hexString: entry.tokenSHA256) else {
                throw fail(.invalidTokenHash(apiKey: entry.name))
            }
            guard seenHashes.insert(entry.tokenSHA256).inserted else { throw fail(.duplicateToken(apiKey: entry.name)) }
            guard let trust = CallerTrust(proofSetting: entry.proof) else {
                throw fail(.invalidProofSetting(apiKey: entry.name, value: entry.proof ?? ""))
            }
            // A key shipped in apps is public: it may hold no role beyond signing and reading offers.
            guard trust == .backend || role == .client else { throw fail(.proofOnNonClientKey(apiKey: entry.name, role: role)) }
            apiKeys.append(APIKey(name: entry.name, role: role, tokenHash: hash, trust: trust))
        }
        if apiKeys.isEmpty {
            warnings.append("\(path) lists no API keys (apiKeys is empty): every route that needs one answers 401")
        }
        var auditKey: AuditKey?
        if let entry = file.auditKey {
            auditKey = try Self.auditKey(entry, apps: apps, folder: folder, path: path, environment: environment, warnings: &warnings)
        }
        return KeyConfiguration(apps: apps, apiKeys: apiKeys, auditKey: auditKey, warnings: warnings)
    }

    /// The app for `bundleId`, or the only app when `bundleId` is nil and exactly one is configured.
    public func app(bundleId: String?) -> AppKeys? {
        if let bundleId { return apps[bundleId] }
        return apps.count == 1 ? apps.values.first : nil
    }

    /// Why a PKCS#8 key file could not be used.
    enum KeyFileFailure: Error {
        case unreadable(String)
        case invalid(KeyError)
    }

    /// The P-256 key in the PKCS#8 PEM file at `url`.
    static func privateKey(at url: URL) -> Result<P256PrivateKey, KeyFileFailure> {
        let pem: String
        do {
            pem = try String(contentsOf: url, encoding: .utf8)
        } catch {
            return .failure(.unreadable(reason(error)))
        }
        do {
            return .success(try P256PrivateKey(pkcs8PEM: pem))
        } catch {
            return .failure(.invalid(error))
        }
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

/// One app's keys: exactly one active, the rest kept so old signatures still verify.
public struct AppKeys: Sendable {
    public let bundleId: String
    public let appAppleId: Int64?
    public let issuerId: String?
    public let keys: [SigningKey]
    /// The Team API key that reads the catalog from App Store Connect; nil when the app has none.
    public let appStoreConnect: AppStoreConnectKey?

    public init(bundleId: String, appAppleId: Int64?, issuerId: String?, keys: [SigningKey], appStoreConnect: AppStoreConnectKey? = nil) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.issuerId = issuerId
        self.keys = keys
        self.appStoreConnect = appStoreConnect
    }

    /// The key that signs.
    public var activeKey: SigningKey { keys.first(where: \.active)! }

    /// The signer for the active key.
    public var signer: PromotionalOfferSigner {
        PromotionalOfferSigner(keyIdentifier: activeKey.keyId, issuerId: issuerId, privateKey: activeKey.privateKey)
    }
}

/// A signing key from the keys file.
public struct SigningKey: Sendable {
    public let keyId: String
    /// A `.p8` file's key, or a hardware module's.
    public let privateKey: any P256SigningKey
    public let active: Bool
    /// Cached public half.
    public let publicKey: P256PublicKey
    /// Where the key is held.
    public let source: KeySource

    public init(keyId: String, privateKey: any P256SigningKey, active: Bool, source: KeySource = .file(path: "")) {
        self.keyId = keyId
        self.privateKey = privateKey
        self.active = active
        self.publicKey = privateKey.publicKey
        self.source = source
    }
}

/// An API key: a name for the logs, a role, the SHA-256 of its token, and whether it is a
/// trusted backend's or shipped in apps.
public struct APIKey: Sendable {
    public let name: String
    public let role: Role
    public let tokenHash: [UInt8]
    public let trust: CallerTrust

    public init(name: String, role: Role, tokenHash: [UInt8], trust: CallerTrust = .backend) {
        self.name = name
        self.role = role
        self.tokenHash = tokenHash
        self.trust = trust
    }
}
