import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import Testing

@Suite("Keys file: an app's appStoreConnect Team key")
struct AppStoreConnectKeyTests {
    typealias Folder = KeyConfigurationTests.Folder

    static func keys(_ connect: String) -> String {
        #"{"apps": [{"bundleId": "com.example.app", "appAppleId": 1, "issuerId": "i", "signingKeys": [{"keyId": "K1", "privateKeyPath": "good.p8", "active": true}], "appStoreConnect": \#(connect)}], "apiKeys": []}"#
    }

    @Test("a Team key loads with its issuer and key IDs; an app without one has none")
    func valid() throws {
        let folder = try Folder()
        try folder.write("keys.json", Self.keys(#"{"issuerId": "69a6de7e-1234", "keyId": "TEAMKEY001", "privateKeyPath": "good2.p8"}"#))
        let key = try #require(try KeyConfiguration.load(path: folder.keysPath).apps["com.example.app"]?.appStoreConnect)
        #expect(key.issuerId == "69a6de7e-1234" && key.keyId == "TEAMKEY001")
        #expect(key.source == .file(path: folder.url.appendingPathComponent("good2.p8").path))
        try folder.write("keys.json", KeyConfigurationTests.keys())
        #expect(try KeyConfiguration.load(path: folder.keysPath).apps["com.example.app"]?.appStoreConnect == nil)
    }

    @Test("faults name the file, the app and the fault", arguments: [
        (#"{"issuerId": "i", "keyId": "T1", "privateKeyPath": "missing.p8"}"#, "app com.example.app, appStoreConnect: cannot read"),
        (#"{"issuerId": "i", "keyId": "T1", "privateKeyPath": "good.p8"}"#,
         "app com.example.app, appStoreConnect: the key is the In-App Purchase key K1; App Store Connect needs a Team key"),
        (#"{"issuerId": "i", "keyId": "bad key", "privateKeyPath": "good2.p8"}"#, "appStoreConnect: keyId 'bad key' is not a valid key ID"),
        (#"{"issuerId": "i", "keyId": "T1"}"#, "appStoreConnect: it names no key"),
        (#"{"issuerId": "i", "keyId": "T1", "privateKeyPath": "good2.p8", "extra": 1}"#, "malformed keys file"),
        (#"{"keyId": "T1", "privateKeyPath": "good2.p8"}"#, "malformed keys file"),
    ])
    func faults(connect: String, fault: String) throws {
        let folder = try Folder()
        try folder.write("keys.json", Self.keys(connect))
        do {
            _ = try KeyConfiguration.load(path: folder.keysPath)
            Issue.record("loaded: \(connect)")
        } catch {
            #expect(error.description.hasPrefix(folder.keysPath + ": "), "\(error)")
            #expect(error.description.contains(fault), "\(error)")
        }
    }
}
