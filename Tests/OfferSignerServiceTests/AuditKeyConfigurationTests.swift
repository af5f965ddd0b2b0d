import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import Testing

@Suite("Keys file: the audit key")
struct AuditKeyConfigurationTests {
    typealias Folder = KeyConfigurationTests.Folder

    static func keys(auditKey: String) -> String {
        let base = KeyConfigurationTests.keys()
        return String(base.dropLast()) + #", "auditKey": \#(auditKey)}"#
    }

    @Test("an audit key of its own loads with its public half; none is fine too")
    func loads() throws {
        let folder = try Folder()
        try folder.write("audit.p8", try P256PrivateKey.generate().pkcs8PEM)
        chmod(folder.url.appendingPathComponent("audit.p8").path, 0o600)
        try folder.write("keys.json", Self.keys(auditKey: #"{"keyId": "AUDIT1", "privateKeyPath": "audit.p8"}"#))
        let configuration = try KeyConfiguration.load(path: folder.keysPath)
        let key = try #require(configuration.auditKey)
        #expect(key.keyId == "AUDIT1")
        #expect(key.publicKey.spkiDER == key.privateKey.publicKey.spkiDER)
        #expect(configuration.warnings.isEmpty)

        try folder.write("keys.json", KeyConfigurationTests.keys())
        #expect(try KeyConfiguration.load(path: folder.keysPath).auditKey == nil)
    }

    @Test("audit key faults", arguments: [
        (#"{"keyId": "AUDIT1", "privateKeyPath": "good.p8"}"#, "the audit key must be a P-256 key of its own"),
        (#"{"keyId": "AUDIT1", "privateKeyPath": "nope.p8"}"#, "auditKey: cannot read"),
        (#"{"keyId": "AUDIT1", "privateKeyPath": "notakey.p8"}"#, "not an unencrypted PKCS#8"),
        (#"{"keyId": "", "privateKeyPath": "audit.p8"}"#, "auditKey: keyId '' is not a valid key ID"),
        (#"{"keyId": "AUDIT1"}"#, "privateKeyPath"),
        (#"{"keyId": "AUDIT1", "privateKeyPath": "audit.p8", "active": true}"#, "unknown field 'active'"),
    ])
    func faults(auditKey: String, fault: String) throws {
        let folder = try Folder()
        try folder.write("audit.p8", try P256PrivateKey.generate().pkcs8PEM)
        try folder.write("notakey.p8", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        try folder.write("keys.json", Self.keys(auditKey: auditKey))
        #expect {
            try KeyConfiguration.load(path: folder.keysPath)
        } throws: { error in
            "\(error)".hasPrefix(folder.keysPath) && "\(error)".contains(fault)
        }
    }

    @Test("an audit key readable by others is loaded with a warning")
    func permissions() throws {
        let folder = try Folder()
        try folder.write("audit.p8", try P256PrivateKey.generate().pkcs8PEM)
        chmod(folder.url.appendingPathComponent("audit.p8").path, 0o644)
        try folder.write("keys.json", Self.keys(auditKey: #"{"keyId": "AUDIT1", "privateKeyPath": "audit.p8"}"#))
        let configuration = try KeyConfiguration.load(path: folder.keysPath)
        #expect(configuration.warnings.count == 1 && configuration.warnings.first?.contains("audit.p8") == true)
    }

    @Test("dev-setup writes an audit key of its own beside the signing key")
    func devSetup() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dev-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let setup = DevelopmentSetup(folder: folder.path, database: folder.appendingPathComponent("db.sqlite").path)
        _ = try setup.run(listen: "127.0.0.1:8080")
        let configuration = try KeyConfiguration.load(path: setup.keysPath)
        let audit = try #require(configuration.auditKey)
        #expect(audit.keyId == DevelopmentSetup.auditKeyId)
        #expect(configuration.warnings.isEmpty)
        #expect(configuration.apps.values.allSatisfy { $0.keys.allSatisfy { $0.publicKey.spkiDER != audit.publicKey.spkiDER } })
    }
}
