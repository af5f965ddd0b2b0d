import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

@Suite("Audit trail: a log nobody can quietly rewrite")
struct AuditTrailTests {
    static let signBody = #"{"productId": "com.example.app.pro_monthly", "offerId": "winback", "userId": "USER"}"#

    func sign(_ env: TestEnvironment, _ user: String, format: String = "legacy") -> TestResponse {
        env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)", "format": "\#(format)"}"#)
    }

    func integrity(_ env: TestEnvironment, signatures: Bool = false) -> [String: Any] {
        env.send("GET", "/v1/audit/integrity", role: .auditor, query: signatures ? ["signatures": "true"] : [:]).json
    }

    // MARK: 1. A cut-off tail

    @Test("after the tail is cut in the file, signing answers 503 and integrity keeps reporting it, until the loss is accepted as a gap")
    func cutTail() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        for n in 0..<4 { #expect(sign(env, "u\(n)").status == 200) }
        try env.database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }

        let refused = sign(env, "after")
        #expect(refused.status == 503 && refused.code == "chain_regressed")
        #expect(refused.json["signature"] == nil)
        let report = integrity(env)
        #expect(report["ok"] as? Bool == false && report["records"] as? Int == 2)
        #expect((report["problem"] as? String)?.contains("removed from its end") == true)
        #expect(env.send("GET", "/readyz", role: nil).status == 503)

        let gap = try env.signatureLog.acceptTruncation(by: "cli:ops", reason: "snapshot restored", at: env.now)
        #expect(sign(env, "after").status == 200)
        let accepted = integrity(env)
        #expect(accepted["ok"] as? Bool == true, "\(accepted)")
        let gaps = accepted["gaps"] as? [[String: Any]] ?? []
        #expect(gaps.count == 1 && gaps.first?["lostFrom"] as? Int == 3 && gaps.first?["lostThrough"] as? Int == 4)
        #expect(gaps.first?["acceptedBy"] as? String == "cli:ops" && gaps.first?["sequence"] as? Int == Int(gap.sequence))
        let listed = env.send("GET", "/v1/audit/signatures", role: .auditor).json["items"] as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["sequence"] as? Int } == [1, 2, 6], "lost sequence numbers are never reused")
    }

    @Test("the refusal is logged loudly, naming the way out")
    func loudRefusal() throws {
        let capture = LogLines()
        let env = try TestEnvironment()
        env.logger = capture.logger
        try env.putOffer(TestEnvironment.demoRule())
        #expect(sign(env, "a").status == 200)
        try env.database.write { db in try db.run("DELETE FROM signature_chain_head") }
        #expect(sign(env, "b").status == 503)
        let line = try #require(capture.objects.first { ($0["message"] as? String)?.contains("TAMPERED") == true })
        #expect(line["level"] as? String == "error")
        #expect((line["message"] as? String)?.contains("accept-truncation") == true)
        #expect((line["reason"] as? String)?.contains("recorded end of the chain is missing") == true)
    }

    // MARK: 2. Signed checkpoints

    @Test("a checkpoint is signed with the audit key, written to the JSON log whatever its level, stored and served")
    func checkpointIsSignedLoggedStoredServed() throws {
        let capture = LogLines()
        let env = try TestEnvironment()
        env.logger = capture.logger
        let checkpointer = AuditCheckpointer(log: env.signatureLog, store: try #require(env.checkpoints),
                                             keyRing: env.keyRing, clock: .fixed(env.now), logger: capture.logger,
                                             interval: .seconds(60))
        env.checkpointer = checkpointer
        try env.putOffer(TestEnvironment.demoRule())
        #expect(checkpointer.checkpointIfMoved() == nil, "nothing appended, nothing to vouch for")
        for n in 0..<3 { #expect(sign(env, "u\(n)").status == 200) }
        let checkpoint = try #require(checkpointer.checkpointIfMoved())
        #expect(checkpointer.checkpointIfMoved() == nil, "no new checkpoint until the log moves")

        let auditKey = try #require(env.keyRing.current.auditKey)
        #expect(checkpoint.sequence == 3 && checkpoint.chainHash == env.signatureLog.committedEnd().hash)
        #expect(checkpoint.keyId == "AUDITKEY01" && checkpoint.timestamp == env.now.milliseconds)
        #expect(checkpoint.isValid(under: auditKey.publicKey))
        let signingKey = try #require(env.keyRing.current.apps[TestEnvironment.bundleId]?.activeKey.publicKey)
        #expect(!checkpoint.isValid(under: signingKey), "the audit key is not the App Store key")

        let logged = try #require(capture.objects.first { $0["message"] as? String == "audit checkpoint" })
        #expect(logged["sequence"] as? Int == 3 && logged["chainHash"] as? String == checkpoint.chainHash)
        #expect(logged["signature"] as? String == checkpoint.signature)
        let fromLog = try CheckpointFile.checkpoints(in: capture.text.split(separator: "\n").map(String.init).first { $0.contains("audit checkpoint") }!,
                                                     path: "log", line: 1)
        #expect(fromLog == [checkpoint])

        let page = env.send("GET", "/v1/audit/checkpoints", role: .auditor)
        #expect(page.status == 200)
        let items = page.json["items"] as? [[String: Any]] ?? []
        #expect(items.count == 1 && items.first?["signature"] as? String == checkpoint.signature)
        #expect((page.json["auditKey"] as? [String: Any])?["publicKeyPEM"] as? String == auditKey.publicKey.pem)
        #expect(env.send("GET", "/v1/audit/checkpoints", role: .client).status == 403)
        #expect(!page.text.contains("PRIVATE"))
    }

    @Test("a chain rewritten with every hash recomputed passes the hash walk but not the checkpoint")
    func rewrittenChainIsCaughtByCheckpoint() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        for n in 0..<5 { #expect(sign(env, "u\(n)").status == 200) }
        let checkpointer = try #require(env.checkpointer)
        let checkpoint = try #require(checkpointer.checkpointIfMoved())
        #expect(integrity(env)["ok"] as? Bool == true)

        try ChainForgery.rewrite(env.database) { sequence, record in
            if sequence == 2 { record.userId = "mallory" }
        }
        #expect(try env.signatureLog.verifyIntegrity().ok, "the forged chain links and hashes correctly")
        let report = integrity(env)
        #expect(report["ok"] as? Bool == false)
        #expect(report["firstBadSequence"] as? Int == 5)
        #expect((report["problem"] as? String)?.contains("checkpoint") == true)

        // Deleting the stored copies does not help while the service remembers its own.
        try env.database.write { db in try db.run("DELETE FROM signature_checkpoints") }
        #expect(integrity(env)["ok"] as? Bool == false)
        // An auditor's copy catches it offline too.
        let outcome = try IntegrityCheck(checkpoints: [checkpoint], auditKeys: [env.keyRing.current.auditKey!.publicKey])
            .run(env.signatureLog)
        #expect(!outcome.report.ok && outcome.report.checkpointsMatched == 0)
    }

    @Test("a checkpoint not signed by the audit key makes the report fail, whatever it vouches for")
    func forgedCheckpoint() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        #expect(sign(env, "a").status == 200)
        let forged = try AuditCheckpoint.sign(env.signatureLog.committedEnd(), at: 1, keyId: "AUDITKEY01", key: P256PrivateKey.generate())
        try env.checkpoints?.add(forged)
        let report = integrity(env)
        #expect(report["ok"] as? Bool == false)
        #expect((report["checkpoints"] as? [String: Any])?["invalid"] as? Int == 1)
    }

    @Test("the timer signs while records are appended, and stop signs the last appends")
    func timerAndShutdown() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        let store = try #require(env.checkpoints)
        let checkpointer = AuditCheckpointer(log: env.signatureLog, store: store, keyRing: env.keyRing, logger: .silent,
                                             interval: .milliseconds(100))
        checkpointer.start()
        #expect(sign(env, "a").status == 200)
        let deadline = Date().addingTimeInterval(10)
        while checkpointer.latest == nil && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(checkpointer.latest?.sequence == 1)
        #expect(sign(env, "b").status == 200)
        checkpointer.stop()
        #expect(checkpointer.latest?.sequence == 2, "stop signs what was appended since the last checkpoint")
        #expect(try store.latest()?.sequence == 2)
    }

    // MARK: 3. Signatures

    @Test("signatures=true catches a record whose offer was changed and re-hashed, with no checkpoint to help")
    func signatureCheck() throws {
        let env = try TestEnvironment()
        env.checkpoints = nil
        env.checkpointer = nil
        try env.putOffer(TestEnvironment.demoRule())
        for n in 0..<3 { #expect(sign(env, "u\(n)").status == 200) }
        #expect(sign(env, "j", format: "jws").status == 200)
        let clean = integrity(env, signatures: true)
        #expect(clean["ok"] as? Bool == true && clean["signaturesChecked"] as? Int == 4, "\(clean)")
        #expect(integrity(env)["signaturesChecked"] is NSNull)

        try ChainForgery.rewrite(env.database) { sequence, record in
            if sequence == 2 { record.offerId = "free_forever" }
        }
        #expect(integrity(env)["ok"] as? Bool == true, "the hash chain alone is fooled")
        let caught = integrity(env, signatures: true)
        #expect(caught["ok"] as? Bool == false)
        #expect(caught["firstBadSequence"] as? Int == 2)
        #expect((caught["problem"] as? String)?.contains("does not verify") == true)
        #expect(env.send("GET", "/v1/audit/integrity", role: .auditor, query: ["signatures": "maybe"]).status == 400)
    }

    @Test("a JWS record whose product was changed and re-hashed is caught by its claims")
    func jwsClaims() throws {
        let env = try TestEnvironment()
        env.checkpointer = nil
        try env.putOffer(TestEnvironment.demoRule())
        #expect(sign(env, "j", format: "jws").status == 200)
        try ChainForgery.rewrite(env.database) { _, record in record.productId = "com.example.app.pro_yearly" }
        let caught = integrity(env, signatures: true)
        #expect(caught["ok"] as? Bool == false)
        #expect((caught["problem"] as? String)?.contains("productId") == true)
    }
}
