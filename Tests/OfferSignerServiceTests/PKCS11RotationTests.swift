import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import Synchronization
import Testing

/// Moving an app from its `.p8` key to a key in a hardware module while it signs: a real
/// `serve` under a steady signing load, the keys file rewritten and SIGHUP sent.
@Suite("Rotating to a PKCS#11 key", .enabled(if: SoftHSMFixture.testable && OfferSignerBinary.testable))
struct PKCS11RotationTests {
    struct Answer: Sendable {
        let status: Int
        let keyId: String?
        let user: String
        let body: String
    }

    final class Load: Sendable {
        let answers = Mutex<[Answer]>([])
        let stop = Atomic<Bool>(false)
    }

    @Test("SIGHUP under load moves signing from the .p8 key to the PKCS#11 key: no request fails, each signature verifies under its key's public key, and the PIN is in no log line")
    func rotateUnderLoad() throws {
        let hsm = try SoftHSMFixture.shared.get()
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        var file = try JSONDecoder().decode(KeysFile.self, from: TestEnvironment.keysFile())
        file.apps[0].signingKeys = [KeysFile.SigningKeyEntry(keyId: "FILEKEY001", privateKeyPath: "active.p8", active: true),
                                    hsm.signingKey("HSMKEY0001", object: "iap-2", active: false)]
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: env.keysPath))
        let publicKeys = try KeyConfiguration.load(path: env.keysPath).apps[TestEnvironment.bundleId]!.keys
            .reduce(into: [String: P256PublicKey]()) { $0[$1.keyId] = $1.publicKey }

        let serve = try ServeProcess(environment: hsm.processEnvironment.merging([
            "OFFER_SIGNER_KEYS": env.keysPath, "OFFER_SIGNER_DATABASE": env.database.path, "OFFER_SIGNER_LOG_LEVEL": "debug",
            "OFFER_SIGNER_RATE_SIGN_PER_KEY": "off", "OFFER_SIGNER_RATE_SIGN_PER_USER": "off",
        ]) { $1 }, logFolder: env.folder)

        let load = Load()
        let port = serve.port
        let workers = DispatchGroup()
        for worker in 0..<4 {
            DispatchQueue.global().async(group: workers) {
                var n = 0
                while !load.stop.load(ordering: .relaxed) {
                    n += 1
                    let user = "load-\(worker)-\(n)"
                    let reply = TestHTTP.send(port: port, "POST", "/v1/offers/sign", token: TestEnvironment.tokens[.client],
                                              body: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
                    load.answers.withLock { $0.append(Answer(status: reply.status, keyId: reply.json["keyIdentifier"] as? String, user: user, body: reply.body)) }
                }
            }
        }
        func count(_ keyId: String) -> Int { load.answers.withLock { $0.filter { $0.keyId == keyId }.count } }
        let deadline = Date().addingTimeInterval(20)
        while count("FILEKEY001") < 20 && Date() < deadline { usleep(10_000) }

        file.apps[0].signingKeys = [KeysFile.SigningKeyEntry(keyId: "FILEKEY001", privateKeyPath: "active.p8", active: false),
                                    hsm.signingKey("HSMKEY0001", object: "iap-2", active: true)]
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: env.keysPath + ".new"))
        _ = rename(env.keysPath + ".new", env.keysPath)
        kill(serve.pid, SIGHUP)
        while count("HSMKEY0001") < 40 && Date() < deadline { usleep(10_000) }
        load.stop.store(true, ordering: .relaxed)
        workers.wait()

        let all = load.answers.withLock { $0 }
        #expect(all.allSatisfy { $0.status == 200 }, "failed: \(all.filter { $0.status != 200 }.prefix(3).map(\.body))")
        #expect(count("FILEKEY001") >= 20 && count("HSMKEY0001") >= 40, "\(count("FILEKEY001")) file, \(count("HSMKEY0001")) module signatures")
        let lastFile = all.lastIndex { $0.keyId == "FILEKEY001" } ?? -1
        let firstModule = all.firstIndex { $0.keyId == "HSMKEY0001" } ?? all.count
        #expect(lastFile < firstModule + 4 * 2, "after the reload only the module's key signs (at most the requests in flight then used the old one)")
        var verified = 0
        for answer in all where answer.status == 200 {
            let reply = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            let keyId = try #require(answer.keyId)
            let nonce = try #require(reply["nonce"] as? String)
            let timestamp = try #require((reply["timestamp"] as? NSNumber)?.int64Value)
            let signatureText = try #require(reply["signature"] as? String)
            let signature = try #require(Data(base64Encoded: signatureText))
            let payload = [TestEnvironment.bundleId, keyId, TestEnvironment.product, "winback", answer.user, nonce, String(timestamp)]
                .joined(separator: "\u{2063}")
            if try #require(publicKeys[keyId]).isValidSignature(derSignature: Array(signature), of: Array(payload.utf8)) { verified += 1 }
        }
        #expect(verified == all.count)

        let log = serve.output()
        #expect(log.contains("keys file reloaded"))
        #expect(!log.contains(hsm.pin), "the PIN is in the service's log")
    }
}
