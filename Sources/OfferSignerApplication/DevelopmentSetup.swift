import Foundation
import OfferSignerCore
import OfferSignerStore

/// `make run`'s first-run set-up: a development keys file with a fresh P-256 signing key, a
/// separate P-256 audit key for checkpoints, random API tokens (one key per role, and a second
/// client key marked as shipped in apps, which must send proof), and a demo offer. Later runs
/// reuse both. The keys are for development only.
public struct DevelopmentSetup {
    public static let bundleId = "com.example.app"
    public static let productId = "com.example.app.pro_monthly"
    public static let offerId = "demo_winback"
    public static let keyId = "DEVKEY0001"
    public static let auditKeyId = "DEVAUDIT01"

    public let folder: String
    public let database: String
    /// Keys in a SoftHSM2 token made in `folder/softhsm` instead of `.p8` files (`dev-setup --pkcs11`).
    public let pkcs11: Bool

    public init(folder: String, database: String, pkcs11: Bool = false) {
        self.folder = folder
        self.database = database
        self.pkcs11 = pkcs11
    }

    public var keysPath: String { (folder as NSString).appendingPathComponent("keys.json") }

    /// Creates what is missing and returns what to tell the developer.
    public func run(listen: String) throws -> String {
        var message = ""
        if FileManager.default.fileExists(atPath: keysPath) {
            message += "Reusing the development keys file \(keysPath) (its API tokens were printed when it was made;\n"
            message += "delete \(folder) to make new ones).\n"
        } else {
            let tokens = try createKeys()
            message += createdMessage(tokens: tokens, listen: listen)
        }
        message += Self.consoleLine(listen: listen)
        let stores = try Stores.open(try DatabaseLocation(database), followOfferChanges: false)
        defer { stores.close() }
        let offers = stores.offers
        if try offers.offer(bundleId: Self.bundleId, offerId: Self.offerId) == nil {
            let rule = OfferRule(offerId: Self.offerId, bundleId: Self.bundleId, productIds: [Self.productId], priority: 10,
                                 limits: OfferLimits(maxSignaturesPerUserPerDay: 100))
            _ = try offers.put(rule, by: "dev-setup", at: Date())
            message += "Created the demo offer '\(Self.offerId)' for \(Self.productId) in \(stores.location).\n"
        }
        return message
    }

    /// The banner's line naming the web console's URL on `listen` (printed on every run).
    static func consoleLine(listen: String) -> String {
        "The web console: http://\(listen)/console/ (sign in with the marketing, auditor or admin token).\n"
    }

    /// The name of the development client key marked as shipped in apps (`"proof": "required"`).
    public static let appKeyName = "dev-client-app"

    /// The development API tokens: one per role (trusted backends), and the app-shipped client key's.
    struct Tokens {
        var byRole: [Role: String] = [:]
        var app = ""
        /// The SoftHSM token, with `--pkcs11`.
        var pkcs11: DevelopmentToken?
    }

    private func createKeys() throws -> Tokens {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let key = try P256PrivateKey.generate()
        let keyFile = "SubscriptionKey_\(Self.keyId).p8"
        let keyPath = (folder as NSString).appendingPathComponent(keyFile)
        guard FileManager.default.createFile(atPath: keyPath, contents: Data(key.pkcs8PEM.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw StartupError.cannotWrite(path: keyPath, what: "the development key")
        }
        let auditKeyFile = "AuditKey_\(Self.auditKeyId).p8"
        let auditKeyPath = (folder as NSString).appendingPathComponent(auditKeyFile)
        guard FileManager.default.createFile(atPath: auditKeyPath, contents: Data(try P256PrivateKey.generate().pkcs8PEM.utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw StartupError.cannotWrite(path: auditKeyPath, what: "the development audit key")
        }
        var tokens = Tokens()
        var signingKey = KeysFile.SigningKeyEntry(keyId: Self.keyId, privateKeyPath: keyFile, active: true)
        var auditKey = KeysFile.AuditKeyEntry(keyId: Self.auditKeyId, privateKeyPath: auditKeyFile)
        if pkcs11 {
            let token = try DevelopmentToken.create(in: (folder as NSString).appendingPathComponent("softhsm"),
                                                    keyIds: (Self.keyId, Self.auditKeyId))
            signingKey = token.signingKey
            auditKey = token.auditKey
            tokens.pkcs11 = token
            // The token holds the keys: no copy of them in files.
            try? FileManager.default.removeItem(atPath: keyPath)
            try? FileManager.default.removeItem(atPath: auditKeyPath)
        }
        var apiKeys: [KeysFile.APIKeyEntry] = []
        for role in Role.allCases {
            let token = "dev_\(role.rawValue)_" + SecureRandom.token()
            tokens.byRole[role] = token
            apiKeys.append(KeysFile.APIKeyEntry(name: "dev-\(role.rawValue)", role: role.rawValue, tokenSHA256: SHA256Digest.hex(Array(token.utf8))))
        }
        tokens.app = "dev_app_" + SecureRandom.token()
        apiKeys.append(KeysFile.APIKeyEntry(name: Self.appKeyName, role: Role.client.rawValue,
                                            tokenSHA256: SHA256Digest.hex(Array(tokens.app.utf8)), proof: CallerTrust.app.proofSetting))
        let file = KeysFile(apps: [KeysFile.App(
            bundleId: Self.bundleId, appAppleId: 1234567890, issuerId: "00000000-0000-0000-0000-000000000000",
            signingKeys: [signingKey])], apiKeys: apiKeys, auditKey: auditKey)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard FileManager.default.createFile(atPath: keysPath, contents: try encoder.encode(file), attributes: [.posixPermissions: 0o600]) else {
            throw StartupError.cannotWrite(path: keysPath, what: "the development keys file")
        }
        return tokens
    }

    private func createdMessage(tokens: Tokens, listen: String) -> String {
        var text = tokens.pkcs11?.banner ?? ""
        text += """
        ================================================================================
        DEVELOPMENT KEYS — for development only. The P-256 keys in \(folder) were generated
        here: the signing key is NOT an App Store key (StoreKit will not accept its
        signatures), the audit key signs checkpoints of the signature log. See the README for
        plugging in your real In-App Purchase key.

        API tokens (shown once; only their SHA-256 is stored in \(keysPath)):

        """
        for role in Role.allCases {
            text += "  \(role.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(tokens.byRole[role] ?? "")\n"
        }
        text += "  \("client-app".padding(toLength: 10, withPad: " ", startingAt: 0)) \(tokens.app)\n"
        text += """

        The client token is a trusted backend's: keep it on your server, it signs on its word
        about the user. The client-app token is for shipping in apps ("proof": "required"):
        its sign requests must carry the customer's Apple-signed transaction.

        Sign the demo offer from your backend, on its word about the user:

          curl -s http://\(listen)/v1/offers/sign \\
            -H 'Authorization: Bearer \(tokens.byRole[.client] ?? "")' \\
            -H 'Content-Type: application/json' \\
            -d '{"productId": "\(Self.productId)", "offerId": "\(Self.offerId)", "userId": "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e"}'

        From the app, with the customer's Apple-signed transaction as proof (without it: 403
        proof_required). Only data signed by Apple verifies: from a TestFlight or development
        build it is sandbox data, which needs OFFER_SIGNER_ENVIRONMENTS=Production,Sandbox
        and "environment": "Sandbox" in the body.

          curl -s http://\(listen)/v1/offers/sign \\
            -H 'Authorization: Bearer \(tokens.app)' \\
            -H 'Content-Type: application/json' \\
            -d '{"productId": "\(Self.productId)", "offerId": "\(Self.offerId)", "userId": "6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e",
                 "signedTransaction": "<Transaction.jwsRepresentation from the device>"}'
        ================================================================================

        """
        return text
    }
}
