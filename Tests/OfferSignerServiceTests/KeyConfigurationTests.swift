import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

@Suite("Keys file: every bad configuration names the file and the fault")
struct KeyConfigurationTests {
    /// A folder with a valid P-256 key `good.p8` and whatever else a test writes.
    final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        init() throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try write("good.p8", try P256PrivateKey.generate().pkcs8PEM)
            try write("good2.p8", try P256PrivateKey.generate().pkcs8PEM)
            chmod(url.appendingPathComponent("good.p8").path, 0o600)
            chmod(url.appendingPathComponent("good2.p8").path, 0o600)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func write(_ name: String, _ text: String) throws {
            try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        var keysPath: String { url.appendingPathComponent("keys.json").path }
    }

    static let hash = String(repeating: "ab", count: 32)

    static func keys(signingKeys: String = #"[{"keyId": "K1", "privateKeyPath": "good.p8", "active": true}]"#,
                     apiKeys: String = #"[{"name": "app", "role": "client", "tokenSHA256": "\#(hash)"}]"#) -> String {
        #"{"apps": [{"bundleId": "com.example.app", "appAppleId": 1, "issuerId": "i", "signingKeys": \#(signingKeys)}], "apiKeys": \#(apiKeys)}"#
    }

    @Test("a valid file loads, with relative key paths resolved against its folder")
    func valid() throws {
        let folder = try Folder()
        try folder.write("keys.json", Self.keys())
        let configuration = try KeyConfiguration.load(path: folder.keysPath)
        #expect(configuration.apps["com.example.app"]?.activeKey.keyId == "K1")
        #expect(configuration.apiKeys.first?.role == .client)
        #expect(configuration.warnings.isEmpty)
    }

    @Test("faults", arguments: [
        ("missing", "cannot read the keys file"),
        ("{not json", "malformed keys file"),
        (#"{"apps": [], "apiKeys": []}"#, "no apps are configured"),
        (keys(signingKeys: #"[{"keyId": "K1", "privateKeyPath": "nope.p8", "active": true}]"#), "cannot read"),
        (keys(signingKeys: #"[{"keyId": "K1", "privateKeyPath": "notakey.p8", "active": true}]"#), "not an unencrypted PKCS#8"),
        (keys(signingKeys: #"[{"keyId": "K1", "privateKeyPath": "p384.p8", "active": true}]"#), "not an EC P-256"),
        (keys(signingKeys: #"[{"keyId": "K1", "privateKeyPath": "good.p8", "active": false}]"#), "no active signing key"),
        (keys(signingKeys: #"[{"keyId": "K1", "privateKeyPath": "good.p8", "active": true}, {"keyId": "K2", "privateKeyPath": "good2.p8", "active": true}]"#), "2 active signing keys"),
        (keys(signingKeys: #"[{"keyId": "K1", "privateKeyPath": "good.p8", "active": true}, {"keyId": "K1", "privateKeyPath": "good2.p8"}]"#), "duplicate key ID K1"),
        (keys(apiKeys: #"[{"name": "app", "role": "superuser", "tokenSHA256": "\#(hash)"}]"#), "unknown role 'superuser'"),
        (keys(apiKeys: #"[{"name": "app", "role": "client", "tokenSHA256": "abc"}]"#), "64 lowercase hex"),
        (keys(apiKeys: #"[{"name": "a", "role": "client", "tokenSHA256": "\#(hash)"}, {"name": "b", "role": "admin", "tokenSHA256": "\#(hash)"}]"#), "same token"),
        (#"{"apps": [], "apiKeys": [], "secret": 1}"#, "unknown field 'secret'"),
        (keys(apiKeys: #"[{"name": "app", "role": "client", "tokenSHA256": "\#(hash)", "proof": "sometimes"}]"#), "proof 'sometimes' is not known"),
        (keys(apiKeys: #"[{"name": "app", "role": "admin", "tokenSHA256": "\#(hash)", "proof": "required"}]"#),
         "must have role client, not admin"),
    ])
    func faults(contents: String, fault: String) throws {
        let folder = try Folder()
        try folder.write("notakey.p8", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        try folder.write("p384.p8", """
            -----BEGIN PRIVATE KEY-----
            MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDCPkE2GMfOxg38gtJk5
            n2d7j4/KsDS7ezN0sm5wlebkFsI5/6xjrlr8O0nar5odYguhZANiAATBrW5F9l6O
            LEbuY0UmSPbiabkbKn1lffmamoDoABQ1FK/kWoDXdVh1K9jbjTRn5XCOfzq7ags0
            NlfUuUkDrxxfRfzC9X5ccEH7g1Wz03Kffdaurs+V6hR0lcMcXuq2IpY=
            -----END PRIVATE KEY-----
            """)
        if contents != "missing" { try folder.write("keys.json", contents) }
        do {
            _ = try KeyConfiguration.load(path: folder.keysPath)
            Issue.record("expected the keys file to be refused for: \(fault)")
        } catch {
            #expect(error.description.hasPrefix(folder.keysPath + ": "), "names the file")
            #expect(error.description.contains(fault), "\(error.description)")
            #expect(!error.description.contains("BEGIN PRIVATE KEY"), "never prints key material")
        }
    }

    @Test("an API key is a trusted backend's unless marked \"proof\": \"required\" (shipped in apps)")
    func trust() throws {
        let folder = try Folder()
        let other = String(repeating: "cd", count: 32), third = String(repeating: "ef", count: 32)
        try folder.write("keys.json", Self.keys(apiKeys: """
            [{"name": "backend", "role": "client", "tokenSHA256": "\(Self.hash)"},
             {"name": "app", "role": "client", "tokenSHA256": "\(other)", "proof": "required"},
             {"name": "explicit", "role": "marketing", "tokenSHA256": "\(third)", "proof": "optional"}]
            """))
        let configuration = try KeyConfiguration.load(path: folder.keysPath)
        #expect(configuration.apiKeys.map(\.name) == ["backend", "app", "explicit"])
        #expect(configuration.apiKeys.map(\.trust) == [.backend, .app, .backend])
    }

    @Test("a private key readable by other users loads with a loud warning")
    func permissionsWarning() throws {
        let folder = try Folder()
        chmod(folder.url.appendingPathComponent("good.p8").path, 0o644)
        try folder.write("keys.json", Self.keys())
        let configuration = try KeyConfiguration.load(path: folder.keysPath)
        #expect(configuration.warnings.count == 1)
        #expect(configuration.warnings.first?.contains("readable by other users") == true)
    }

    @Test("serve refuses to start on a bad keys file, naming it")
    func serveStops() throws {
        let folder = try Folder()
        try folder.write("keys.json", "{")
        var settings = ServiceSettings()
        settings.keys = folder.keysPath
        settings.database = folder.url.appendingPathComponent("db.sqlite").path
        settings.listen = "127.0.0.1:0"
        #expect {
            try ServiceRuntime(settings: settings, logger: .silent)
        } throws: { error in
            "\(error)".contains(folder.keysPath) && "\(error)".contains("malformed")
        }
    }

    @Test("settings: environment, then flags; bad values refused")
    func settings() throws {
        let resolved = try ServiceSettings.resolve(
            arguments: ["--listen", "0.0.0.0:9000", "--environments=Production,Sandbox"],
            environment: ["OFFER_SIGNER_LISTEN": "127.0.0.1:1", "OFFER_SIGNER_KEYS": "/etc/k.json", "OFFER_SIGNER_DATABASE": "/d.sqlite"])
        #expect(resolved.listen == "0.0.0.0:9000")
        #expect(resolved.keys == "/etc/k.json" && resolved.database == "/d.sqlite")
        #expect(resolved.environments == ["Production", "Sandbox"])
        #expect(resolved.appleRoots == nil)
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: ["--bogus", "1"], environment: [:]) }
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: ["--listen", "nowhere"], environment: [:]) }
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_ENVIRONMENTS": "Staging"]) }
        #expect(throws: SettingsError.self) { try ServiceSettings.resolve(arguments: ["--keys"], environment: [:]) }
        #expect(resolved.appTransactionMaxAge == 604_800, "an app transaction may be a week old by default")
        let maxAge = try ServiceSettings.resolve(arguments: ["--app-transaction-max-age", "3600"],
                                                 environment: ["OFFER_SIGNER_APP_TRANSACTION_MAX_AGE": "60"])
        #expect(maxAge.appTransactionMaxAge == 3600)
        #expect(throws: SettingsError.self) {
            try ServiceSettings.resolve(arguments: [], environment: ["OFFER_SIGNER_APP_TRANSACTION_MAX_AGE": "0"])
        }
    }
}
