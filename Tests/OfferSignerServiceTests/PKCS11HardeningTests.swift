import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerPKCS11
import Testing

/// Keys in a hardware module, hardened (issue 33 §5): a refused URI never shows a PIN, each
/// key's PIN is checked on its own, `/readyz` follows whether the active key can sign, and a
/// token taken out of SoftHSM2 and put back is used again without a restart. The token tests
/// run `serve` with a SoftHSM2 configuration of their own (`dev-setup --pkcs11`), so taking a
/// token out touches no other test.
@Suite("Keys in a PKCS#11 module, hardened", .enabled(if: SoftHSMFixture.testable && OfferSignerBinary.testable))
struct PKCS11HardeningTests {
    static let secret = "s3cret-PIN-4242"

    @Test("a refused pkcs11: URI never shows a pin-value or pin-source, in its path or its query, in any case")
    func refusedURIsAreRedacted() {
        let uris = [
            "pkcs11:token=offers;pin-value=\(Self.secret);object=iap-1",
            "pkcs11:pin-value=\(Self.secret);object=iap-1",
            "pkcs11:token=offers;PIN-VALUE=\(Self.secret);object=iap-1",
            "pkcs11:token=offers;object=iap-1;pin%2Dvalue=\(Self.secret)",
            "pkcs11:token=offers;pin-source=file:%2Frun%2F\(Self.secret);object=iap-1",
            "pkcs11:object=iap-1?pin-value=\(Self.secret)",
            "pkcs11:token=offers;pin-value=\(Self.secret);colour=red",
            "pkcs11:token=offers;pin-value=\(Self.secret)",
        ]
        for uri in uris {
            let refusal = #expect(throws: PKCS11Error.self, "\(uri)") { try PKCS11URI(uri) }
            let message = refusal?.description ?? ""
            #expect(!message.contains(Self.secret) && !message.contains("run%2F"), "\(message)")
            #expect(message.contains("'pkcs11:"), "the URI is still named: \(message)")
        }
        #expect(PKCS11URI.redacted("pkcs11:token=a;pin-value=1234;object=b?pin-source=file:x&module-name=m")
                == "pkcs11:token=a;pin-value=…;object=b?pin-source=…&module-name=m")
        #expect(PKCS11URI.redacted("pkcs11:object=b") == "pkcs11:object=b")
        let inPath = #expect(throws: PKCS11Error.self) { try PKCS11URI("pkcs11:token=offers;pin-value=\(Self.secret);object=iap-1") }
        #expect(inPath?.description.contains("the PIN never goes in the keys file") == true, "\(String(describing: inPath))")
    }

    @Test("a PIN in the URI's path is in no message: keys check, serve's start-up error, the SIGHUP refusal's log line")
    func pinInPathIsInNoMessage() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let env = try TestEnvironment()
        let good = try String(contentsOfFile: env.keysPath, encoding: .utf8)
        var file = try JSONDecoder().decode(KeysFile.self, from: TestEnvironment.keysFile())
        file.apps[0].signingKeys = [KeysFile.SigningKeyEntry(keyId: "K1", pkcs11: "pkcs11:token=offers;pin-value=\(hsm.pin);object=iap-1",
                                                             pkcs11Module: SoftHSMFixture.module, pinEnv: SoftHSMFixture.pinVariable, active: true)]
        let bad = env.folder.appendingPathComponent("pin-in-path.json").path
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: bad))

        let check = try CommandLineTests.run(["keys", "check", "--keys", bad], environment: hsm.processEnvironment)
        #expect(check.status != 0 && check.errors.contains("the PIN never goes in the keys file"), "\(check.output)\(check.errors)")
        #expect(!check.output.contains(hsm.pin) && !check.errors.contains(hsm.pin), "keys check shows the PIN: \(check.errors)")

        let start = try CommandLineTests.run(["serve", "--keys", bad, "--database", env.folder.appendingPathComponent("bad.sqlite").path,
                                              "--listen", "127.0.0.1:0"], environment: hsm.processEnvironment)
        #expect(start.status == 1 && start.errors.contains("the PIN never goes in the keys file"), "\(start.errors)")
        #expect(!start.output.contains(hsm.pin) && !start.errors.contains(hsm.pin), "serve shows the PIN: \(start.errors)")

        // A running service asked to reload it: refused, and the log line names the URI without the PIN.
        try good.write(toFile: env.keysPath, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(environment: hsm.processEnvironment.merging([
            "OFFER_SIGNER_KEYS": env.keysPath, "OFFER_SIGNER_DATABASE": env.folder.appendingPathComponent("serve.sqlite").path,
        ]) { $1 }, logFolder: env.folder)
        try FileManager.default.removeItem(atPath: env.keysPath)
        try FileManager.default.copyItem(atPath: bad, toPath: env.keysPath)
        kill(serve.pid, SIGHUP)
        #expect(Self.waitFor(60) { serve.output().contains("keys file refused") }, "\(serve.output())")
        #expect(serve.output().contains("the PIN never goes in the keys file"))
        #expect(!serve.output().contains(hsm.pin), "the SIGHUP log line shows the PIN")
    }

    @Test("a second key of the same token whose PIN is wrong fails keys check (each key's PIN on its own), naming the key and the variable, not the PIN")
    func secondKeyWrongPIN() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let env = try TestEnvironment()
        var file = try JSONDecoder().decode(KeysFile.self, from: TestEnvironment.keysFile())
        var second = hsm.signingKey("K2", object: "iap-2", active: false)
        second.pinEnv = "OFFER_SIGNER_TEST_OTHER_PIN"
        file.apps[0].signingKeys = [hsm.signingKey("K1", object: "iap-1"), second]
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: env.keysPath))
        let wrong = "wrong-" + hsm.pin
        let check = try CommandLineTests.run(["keys", "check", "--keys", env.keysPath],
                                             environment: hsm.processEnvironment.merging(["OFFER_SIGNER_TEST_OTHER_PIN": wrong]) { $1 })
        #expect(check.status == 1, "a wrong PIN passed keys check: \(check.output)\(check.errors)")
        #expect(check.errors.contains("key K2") && check.errors.contains("OFFER_SIGNER_TEST_OTHER_PIN"), "\(check.errors)")
        #expect(!check.output.contains(hsm.pin) && !check.errors.contains(hsm.pin))
        // The same PIN under another variable is the token's PIN: accepted.
        let same = try CommandLineTests.run(["keys", "check", "--keys", env.keysPath],
                                            environment: hsm.processEnvironment.merging(["OFFER_SIGNER_TEST_OTHER_PIN": hsm.pin]) { $1 })
        #expect(same.status == 0, "\(same.output)\(same.errors)")
    }

    @Test("a token taken out of SoftHSM2 and put back: /readyz 503, offer_signer_signing_keys_unavailable 1 and 503 signing_key_unavailable while it is out, SIGHUP refused; back in, it is found again without a restart (ready, signing, SIGHUP accepted)")
    func tokenTakenOutAndPutBack() throws {
        let env = try TestEnvironment()
        let dev = env.folder.appendingPathComponent("dev")
        let database = env.folder.appendingPathComponent("dev.sqlite").path
        let setup = try CommandLineTests.run(["dev-setup", "--pkcs11", "--dir", dev.path, "--database", database])
        #expect(setup.status == 0, "\(setup.errors)")
        let lines = setup.output.split(separator: "\n").map(String.init)
        let conf = try #require(lines.first { $0.contains("export SOFTHSM2_CONF=") }).components(separatedBy: "=")[1]
        let pin = try #require(lines.first { $0.contains("export OFFER_SIGNER_DEV_PIN=") }).split(separator: "'")[1]
        let client = try #require(lines.lazy.map { $0.split(separator: " ") }.first { $0.first == "client" }?[1])
        let serve = try ServeProcess(environment: [
            "SOFTHSM2_CONF": conf, "OFFER_SIGNER_DEV_PIN": String(pin), "OFFER_SIGNER_KEYS": dev.appendingPathComponent("keys.json").path,
            "OFFER_SIGNER_DATABASE": database, "OFFER_SIGNER_RATE_SIGN_PER_KEY": "off", "OFFER_SIGNER_RATE_SIGN_PER_USER": "off",
        ], logFolder: env.folder)
        func sign(_ user: String) -> TestHTTP.Answer {
            TestHTTP.send(port: serve.port, "POST", "/v1/offers/sign", token: String(client),
                          body: #"{"productId": "com.example.app.pro_monthly", "offerId": "demo_winback", "userId": "\#(user)"}"#)
        }
        func ready() -> TestHTTP.Answer { TestHTTP.send(port: serve.port, "GET", "/readyz") }
        #expect(sign("before").status == 200)
        #expect(ready().status == 200)

        let tokens = dev.appendingPathComponent("softhsm/tokens")
        let token = try #require(try FileManager.default.contentsOfDirectory(atPath: tokens.path).first)
        let away = env.folder.appendingPathComponent("token-away")
        try FileManager.default.moveItem(at: tokens.appendingPathComponent(token), to: away)

        // Out: not ready (the probe cannot sign), signing refused with 503, a reload refused.
        #expect(Self.waitFor(60) { ready().status == 503 }, "readyz stays ready while the key cannot sign: \(ready().body)")
        #expect(ready().json["keys"] as? String == "unavailable", "\(ready().body)")
        func unavailableKeys() -> String? {
            AlertMetricsTests.sample(TestHTTP.send(port: serve.port, "GET", "/metrics").body, "offer_signer_signing_keys_unavailable")
        }
        #expect(unavailableKeys() == "1", "the alert's gauge does not show the key")
        let refused = sign("while-out")
        #expect(refused.status == 503 && refused.json["code"] as? String == "signing_key_unavailable", "\(refused.body)")
        kill(serve.pid, SIGHUP)
        #expect(Self.waitFor(60) { serve.output().contains("keys file refused") }, "\(serve.output())")

        // Back in: found again by the running service (the module scans its tokens again).
        try FileManager.default.moveItem(at: away, to: tokens.appendingPathComponent(token))
        #expect(Self.waitFor(60) { ready().status == 200 }, "the token put back is never seen again: \(ready().body)")
        #expect(unavailableKeys() == "0")
        let resumed = sign("after")
        #expect(resumed.status == 200, "\(resumed.body)")
        kill(serve.pid, SIGHUP)
        #expect(Self.waitFor(60) { serve.output().contains("keys file reloaded") }, "\(serve.output())")
        #expect(!serve.output().contains(String(pin)), "the PIN is in the log")
    }

    /// Whether `condition` held within `seconds` (asked every 50 ms): a positive signal waited
    /// for, with a deadline that only catches what never happens.
    static func waitFor(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(50_000)
        }
        return true
    }
}
