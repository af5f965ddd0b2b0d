import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// The audit and offline commands of the `offer-signer` executable, as an operator runs them.
@Suite("offer-signer audit and offline commands", .enabled(if: OfferSignerBinary.testable))
struct AuditCommandLineTests {
    func run(_ arguments: [String]) throws -> CommandLineTests.Outcome {
        try CommandLineTests.run(arguments, timeout: 60)
    }

    func signSome(_ env: TestEnvironment, _ count: Int) throws {
        try env.putOffer(TestEnvironment.demoRule())
        for n in 0..<count {
            let response = env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "u\#(n)"}"#)
            #expect(response.status == 200)
        }
    }

    @Test("every offline command refuses a database that does not exist (exit 2, naming it) and creates nothing")
    func missingDatabase() throws {
        let env = try TestEnvironment()
        let missing = env.folder.appendingPathComponent("nope/typo.sqlite").path
        let rules = env.folder.appendingPathComponent("rules.json")
        try "[]".write(to: rules, atomically: true, encoding: .utf8)
        let commands: [[String]] = [
            ["audit", "verify"], ["audit", "verify", "--signatures"], ["audit", "export", "--format", "csv"], ["audit", "checkpoints"],
            ["audit", "accept-truncation", "--reason", "x"], ["offers", "list"], ["offers", "apply", rules.path],
            ["history", "import", rules.path], ["consent", "list"], ["consent", "clear", "--app-transaction-id", "1", "--reason", "x"],
        ]
        for command in commands {
            let outcome = try run(command + ["--database", missing, "--keys", env.keysPath])
            #expect(outcome.status == 2, "\(command.joined(separator: " ")) exited \(outcome.status)")
            #expect(outcome.errors.contains(missing), "\(command.joined(separator: " ")): \(outcome.errors)")
            #expect(!outcome.output.contains("OK"))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(!FileManager.default.fileExists(atPath: env.folder.appendingPathComponent("nope").path))
    }

    @Test("audit verify --checkpoints catches a rewritten chain that the hash walk alone passes; --signatures catches it too")
    func verifyWithCheckpointsAndSignatures() throws {
        let env = try TestEnvironment()
        try signSome(env, 4)
        let checkpoint = try #require(env.checkpointer?.checkpointIfMoved())
        let file = env.folder.appendingPathComponent("checkpoints.ndjson")
        // As collected from the log pipeline: a prefix, other lines, the checkpoint line.
        let line = #"{"chainHash":"\#(checkpoint.chainHash)","keyId":"\#(checkpoint.keyId)","level":"info","message":"audit checkpoint","sequence":\#(checkpoint.sequence),"signature":"\#(checkpoint.signature)","time":"2027-01-15T08:00:00Z","timestamp":\#(checkpoint.timestamp)}"#
        try ["2027-01-15T08:00:00Z stderr F {\"message\":\"offer-signer listening\"}", "2027-01-15T08:00:01Z stderr F " + line, "not json"]
            .joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let publicKey = env.folder.appendingPathComponent("audit.pub.pem")
        try env.keyRing.current.auditKey!.publicKey.pem.write(to: publicKey, atomically: true, encoding: .utf8)
        let base = ["audit", "verify", "--database", env.database.path, "--keys", env.keysPath]

        let intact = try run(base + ["--checkpoints", file.path, "--audit-public-key", publicKey.path, "--signatures"])
        #expect(intact.status == 0, "\(intact.output) \(intact.errors)")
        #expect(intact.output.contains("checkpoints: 1 given, 1 matched"))
        #expect(intact.output.contains("signatures: 4 checked"))

        try ChainForgery.rewrite(env.database) { sequence, record in
            if sequence == 3 { record.userId = "mallory" }
        }
        #expect(try run(base).status == 0, "the hash walk alone is fooled")
        let byCheckpoint = try run(base + ["--checkpoints", file.path])
        #expect(byCheckpoint.status == 1 && byCheckpoint.output.contains("TAMPERED"))
        let bySignature = try run(base + ["--signatures"])
        #expect(bySignature.status == 1 && bySignature.output.contains("sequence 3"))

        let wrongKey = env.folder.appendingPathComponent("other.pub.pem")
        try P256PrivateKey.generate().publicKey.pem.write(to: wrongKey, atomically: true, encoding: .utf8)
        let unsigned = try run(base + ["--checkpoints", file.path, "--audit-public-key", wrongKey.path])
        #expect(unsigned.status == 1 && unsigned.output.contains("1 not signed by the audit key"))
        let empty = env.folder.appendingPathComponent("empty.ndjson")
        try "hello\n".write(to: empty, atomically: true, encoding: .utf8)
        #expect(try run(base + ["--checkpoints", empty.path]).status == 2)
    }

    @Test("audit verify --service-log names the records whose request was answered 503 although the commit went through (outcome unknown); a retry under the same X-Request-Id is not one")
    func undeliveredAnswers() throws {
        let env = try TestEnvironment()
        try signSome(env, 2)
        let lines = LogLines()
        env.logger = lines.logger
        // The connection breaks while COMMIT is under way, after the server committed: the
        // record is in the log, the client gets 503.
        env.signatures = CommitOutcomeUnknownLog(inner: env.signatureLog)
        let body = #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "lost-answer"}"#
        let refused = env.send("POST", "/v1/offers/sign", json: body, headers: ["X-Request-Id": "retry-me"])
        #expect(refused.status == 503, "\(refused.text)")
        // The client retries under the same request ID and gets its signature.
        env.signatures = env.signatureLog
        let retried = env.send("POST", "/v1/offers/sign", json: body, headers: ["X-Request-Id": "retry-me"])
        #expect(retried.status == 200, "\(retried.text)")
        let records = try env.signatureLog.signatures(matching: SignatureFilter(userId: "lost-answer"), afterSequence: 0, limit: 10)
        try #require(records.count == 2)
        let undelivered = records[0]
        #expect(undelivered.sequence == 3 && undelivered.record.requestId == "retry-me" && records[1].record.requestId == "retry-me")

        // The service's log as a collector keeps it: prefixes, other lines.
        let file = env.folder.appendingPathComponent("service.log")
        try (["2027-01-15T08:00:00Z stderr F {\"message\":\"offer-signer listening\"}", "not json"]
             + lines.text.split(separator: "\n").map { "2027-01-15T08:00:01Z stderr F " + $0 })
            .joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let base = ["audit", "verify", "--database", env.database.path, "--keys", env.keysPath]
        let verified = try run(base + ["--service-log", file.path])
        #expect(verified.status == 0, "\(verified.output) \(verified.errors)")
        #expect(verified.output.contains("signed, answer not delivered: 1 of the 1 records"), "\(verified.output)")
        #expect(verified.output.contains("sequence 3, nonce \(undelivered.record.nonce), requestId retry-me"), "\(verified.output)")
        #expect(!verified.output.contains(records[1].record.nonce), "the retry's signature was delivered")
        #expect(!(try run(base)).output.contains("answer not delivered"), "only with --service-log")
        let missing = try run(base + ["--service-log", env.folder.appendingPathComponent("nope.log").path])
        #expect(missing.status == 2 && missing.errors.contains("nope.log"), "\(missing.errors)")
    }

    @Test("accept-truncation records the loss as a signed gap; verify then passes and lists it; checkpoints exports what the log holds")
    func acceptTruncation() throws {
        let env = try TestEnvironment()
        try signSome(env, 4)
        let options = ["--database", env.database.path, "--keys", env.keysPath]
        #expect(try run(["audit", "accept-truncation"] + options).status == 2, "a reason is required")
        let nothing = try run(["audit", "accept-truncation", "--reason", "none"] + options)
        #expect(nothing.status == 1 && nothing.errors.contains("no loss to accept"))

        try env.database.write { db in try db.run("DELETE FROM signatures WHERE seq >= 3") }
        let tampered = try run(["audit", "verify"] + options)
        #expect(tampered.status == 1 && tampered.output.contains("removed from its end"))

        let accepted = try run(["audit", "accept-truncation", "--reason", "disk lost; snapshot of 02:00 restored"] + options)
        #expect(accepted.status == 0, "\(accepted.errors)")
        #expect(accepted.output.contains("records 3–4 were lost") && accepted.output.contains("checkpoint (keep a copy)"))
        let verified = try run(["audit", "verify"] + options)
        #expect(verified.status == 0 && verified.output.contains("accepted gap at entry 5"), "\(verified.output)")

        let exported = try run(["audit", "checkpoints"] + options)
        let checkpoints = try exported.output.split(separator: "\n").map { try JSONDecoder().decode(AuditCheckpoint.self, from: Data($0.utf8)) }
        #expect(checkpoints.map(\.sequence) == [5])
        #expect(checkpoints.first?.isValid(under: env.keyRing.current.auditKey!.publicKey) == true)
        // The running service (this process) signs on after the gap.
        #expect(env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "later"}"#).status == 200)
        #expect(try env.signatureLog.signatures(matching: SignatureFilter(userId: "later"), afterSequence: 0, limit: 1).first?.sequence == 6)
    }

    @Test("consent clear lifts a RESCIND_CONSENT with the operator's reason; consent list shows both; a reason is required")
    func consentClear() throws {
        // The command clears at the system clock's now, as the service would: the service's clock here is the system's too.
        let env = try TestEnvironment(now: Date())
        try env.putOffer(TestEnvironment.demoRule())
        let flow = AppStoreFlow(env: env)
        flow.paidMonths("s", user: "child", from: -120, count: 2, extra: ["appTransactionId": "704289572911"])
        let rescind = TestAppStore.sign([
            "notificationType": "RESCIND_CONSENT", "notificationUUID": "c-1", "version": "2.0", "signedDate": TestAppStore.ms(env.now - 60),
            "appData": ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production",
                        "signedAppTransactionInfo": TestAppStore.appTransaction(created: env.now - 3600)],
        ])
        #expect(env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": rescind])).status == 200)
        let sign = #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "child"}"#
        #expect(env.send("POST", "/v1/offers/sign", json: sign).code == "consent_rescinded")

        let options = ["--database", env.database.path, "--keys", env.keysPath]
        #expect(try run(["consent", "clear", "--app-transaction-id", "704289572911"] + options).status == 2, "a reason is required")
        let unknown = try run(["consent", "clear", "--app-transaction-id", "1", "--reason", "x"] + options)
        #expect(unknown.status == 1 && unknown.errors.contains("no consent of app transaction 1 is rescinded"))
        let cleared = try run(["consent", "clear", "--app-transaction-id", "704289572911", "--reason", "guardian agreed again"] + options)
        #expect(cleared.status == 0 && cleared.output.contains("cleared: app transaction 704289572911 (Production"), "\(cleared.errors)")
        #expect(env.send("POST", "/v1/offers/sign", json: sign).status == 200)
        let listed = try run(["consent", "list"] + options)
        let lines = listed.output.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("rescind") && lines[0].contains("notification c-1"))
        #expect(lines[1].contains("clear") && lines[1].contains("cli:") && lines[1].contains("guardian agreed again"))
        #expect(lines.first?.hasPrefix("1  ") == true && lines.last?.hasPrefix("2  ") == true, "each line starts with its event ID")

        // By event ID: the rescinding (1) is cleared already, the clearing (2) is none; malformed or both options are usage errors.
        let again = try run(["consent", "clear", "--event-id", "1", "--reason", "x"] + options)
        #expect(again.status == 1 && again.errors.contains("no consent of app transaction 704289572911 is rescinded"), "\(again.errors)")
        let clearing = try run(["consent", "clear", "--event-id", "2", "--reason", "x"] + options)
        #expect(clearing.status == 1 && clearing.errors.contains("consent event 2 is a clearing"), "\(clearing.errors)")
        #expect(try run(["consent", "clear", "--event-id", "1x", "--reason", "x"] + options).status == 2)
        #expect(try run(["consent", "clear", "--event-id", "1", "--app-transaction-id", "7", "--reason", "x"] + options).status == 2)
        let other = TestAppStore.sign([
            "notificationType": "RESCIND_CONSENT", "notificationUUID": "c-2", "version": "2.0", "signedDate": TestAppStore.ms(env.now - 30),
            "appData": ["appAppleId": 1234, "bundleId": TestEnvironment.bundleId, "environment": "Production",
                        "signedAppTransactionInfo": TestAppStore.appTransaction(created: env.now - 3600, appTransactionId: "")],
        ])
        #expect(env.send("POST", "/v1/notifications/appstore", role: nil, json: TestAppStore.json(["signedPayload": other])).status == 200)
        #expect(try env.consents.rescinded(appTransactionIds: [""], environment: .production).count == 1)
        let byEvent = try run(["consent", "clear", "--event-id", "3", "--reason", "guardian agreed"] + options)
        #expect(byEvent.status == 0 && byEvent.output.contains("cleared: app transaction  (Production"), "\(byEvent.output) \(byEvent.errors)")
        #expect(try env.consents.rescinded(appTransactionIds: [""], environment: .production).isEmpty, "an empty app transaction ID is cleared too")
    }

    @Test("on a full disk an export ends with exit 1 naming standard output, never a crash; a closed pipe too; progress on a full stderr is dropped")
    func fullDisk() throws {
        let env = try TestEnvironment()
        try signSome(env, 3)
        let options = ["--database", env.database.path, "--keys", env.keysPath]
        func runWriting(_ arguments: [String], stdout: FileHandle, stderr: FileHandle) throws -> (Int32, Process.TerminationReason) {
            let process = Process()
            process.executableURL = CommandLineTests.binary
            process.arguments = arguments
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason)
        }
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let errors = env.folder.appendingPathComponent("errors.txt")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorFile = try FileHandle(forWritingTo: errors)
        let (status, reason) = try runWriting(["audit", "export", "--format", "csv"] + options, stdout: full, stderr: errorFile)
        #expect(reason == .exit && status == 1, "exited \(status) by \(reason)")
        #expect(try String(contentsOf: errors, encoding: .utf8).contains("standard output could not be written"))

        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let (closedStatus, closedReason) = try runWriting(["audit", "export", "--format", "ndjson"] + options, stdout: pipe.fileHandleForWriting,
                                                          stderr: errorFile)
        #expect(closedReason == .exit && closedStatus == 1, "a reader gone is a failed write, not SIGPIPE (\(closedStatus) by \(closedReason))")

        let copy = env.folder.appendingPathComponent("copy.sqlite").path
        let (copyStatus, copyReason) = try runWriting(["db", "copy", "--from", env.database.path, "--to", copy], stdout: full, stderr: full)
        #expect(copyReason == .exit && copyStatus == 0, "the copy is done whatever its progress lines (\(copyStatus) by \(copyReason))")
    }
}

/// A signature log whose connection breaks while `COMMIT` is under way, after the server
/// committed: the record is stored, the append reports the database unavailable.
struct CommitOutcomeUnknownLog: SignatureLog {
    let inner: any SignatureLog

    func append(_ record: SignatureRecord, quota: SignatureQuota?) throws(SignatureLogError) -> LoggedSignature {
        _ = try inner.append(record, quota: quota)
        throw .unavailable("server closed the connection unexpectedly (during COMMIT)")
    }
    func append(all records: [SignatureRecord]) throws(SignatureLogError) -> [LoggedSignature] {
        _ = try inner.append(all: records)
        throw .unavailable("server closed the connection unexpectedly (during COMMIT)")
    }
    func append(_ record: SignatureRecord, quota: SignatureQuota?,
                assigning assignment: SignedAssignment) throws(SignatureLogError) -> AssignedAppend {
        _ = try inner.append(record, quota: quota, assigning: assignment)
        throw .unavailable("server closed the connection unexpectedly (during COMMIT)")
    }
    func signature(nonce: String) throws -> LoggedSignature? { try inner.signature(nonce: nonce) }
    func signatures(matching filter: SignatureFilter, afterSequence: Int64, limit: Int) throws -> [LoggedSignature] {
        try inner.signatures(matching: filter, afterSequence: afterSequence, limit: limit)
    }
    func verifyIntegrity(_ options: IntegrityOptions) throws -> IntegrityReport { try inner.verifyIntegrity(options) }
    func readiness() -> SignatureLogReadiness { inner.readiness() }
    func committedEnd() -> ChainLink { inner.committedEnd() }
}
