import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore
import Testing

/// The `offer-signer` executable as an operator runs it.
@Suite("The offer-signer command", .enabled(if: OfferSignerBinary.testable))
struct CommandLineTests {
    static let binary = OfferSignerBinary.url

    struct Outcome {
        let status: Int32
        let output: String
        let errors: String
    }

    /// Runs the command to completion (at most `timeout` seconds).
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:], unsetting: Set<String> = [],
                    timeout: TimeInterval = 20) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.filter { !unsetting.contains($0.key) }
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus,
                       output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                       errors: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test("keys hash-token prints the SHA-256 of the token on standard input")
    func hashToken() throws {
        let outcome = try Self.run(["keys", "hash-token"], input: "s3cret\n")
        #expect(outcome.status == 0)
        #expect(outcome.output == SHA256Digest.hex(Array("s3cret".utf8)) + "\n")
    }

    @Test("serve with a bad keys file exits 1 and names the file")
    func badKeys() throws {
        let env = try TestEnvironment()
        let keys = env.folder.appendingPathComponent("broken.json")
        try "{\"apps\": 3}".write(to: keys, atomically: true, encoding: .utf8)
        let outcome = try Self.run(["serve", "--keys", keys.path, "--database", env.folder.appendingPathComponent("x.sqlite").path,
                                    "--listen", "127.0.0.1:0"])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains(keys.path))
    }

    @Test("dev-setup makes a backend client key and an app key that must send proof; the banner and keys check show both, the banner the console's URL on every run")
    func devSetupKeysOfEachKind() throws {
        let env = try TestEnvironment()
        let dev = env.folder.appendingPathComponent("dev")
        let setup = try Self.run(["dev-setup", "--dir", dev.path, "--database", env.folder.appendingPathComponent("dev.sqlite").path])
        #expect(setup.status == 0, "\(setup.errors)")
        func token(_ label: String) -> String? {
            for line in setup.output.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                if words.count > 1 && words[0] == label { return words[1] }
            }
            return nil
        }
        let backend = try #require(token("client")), app = try #require(token("client-app"))
        let configuration = try KeyConfiguration.load(path: dev.appendingPathComponent("keys.json").path)
        func trust(of token: String) -> CallerTrust? {
            configuration.apiKeys.first { $0.tokenHash == SHA256Digest.hash(Array(token.utf8)) }.map(\.trust)
        }
        #expect(trust(of: backend) == .backend && trust(of: app) == .app)
        #expect(configuration.apiKeys.filter { $0.role == .client }.count == 2)
        #expect(setup.output.contains("Bearer \(backend)") && setup.output.contains("Bearer \(app)"))
        #expect(setup.output.contains("\"signedTransaction\"") && setup.output.contains("proof_required"))
        #expect(setup.output.contains("The web console: http://127.0.0.1:8080/console/"))
        let again = try Self.run(["dev-setup", "--dir", dev.path, "--database", env.folder.appendingPathComponent("dev.sqlite").path,
                                  "--listen", "127.0.0.1:9090"])
        #expect(again.status == 0 && again.output.contains("The web console: http://127.0.0.1:9090/console/"))

        let check = try Self.run(["keys", "check", "--keys", dev.appendingPathComponent("keys.json").path])
        #expect(check.status == 0)
        #expect(check.output.contains("api key dev-client: role client, proof optional"))
        #expect(check.output.contains("api key dev-client-app: role client, proof required (shipped in apps"))
    }

    @Test("an unknown option or subcommand exits 2 with usage")
    func usage() throws {
        #expect(try Self.run(["serve", "--nope", "1"]).status == 2)
        let unknown = try Self.run(["frobnicate"])
        #expect(unknown.status == 2 && unknown.errors.contains("USAGE"))
        #expect(try Self.run(["--help"]).output.contains("audit export"))
    }

    @Test("serve reloads the keys file on SIGHUP and stops cleanly on SIGTERM")
    func signals() throws {
        let env = try TestEnvironment()
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve", "--keys", env.keysPath, "--database", env.folder.appendingPathComponent("sig.sqlite").path,
                             "--listen", "127.0.0.1:0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = LogWatcher(errors.fileHandleForReading)
        // Each signal once serve says it handles them, each step on the line that says it was
        // done (the 60 s only catch a service that never gets there).
        let handling = log.wait(for: "signals handled: SIGHUP reloads the keys file", seconds: 60)
        #expect(handling, "serve never said it handles signals:\n\(log.text)")
        kill(process.processIdentifier, SIGHUP)
        #expect(log.wait(for: "keys file reloaded", seconds: 60), "\(log.text)")
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let stopped = !process.isRunning
        if !stopped { process.terminate() }
        process.waitUntilExit()
        #expect(stopped, "SIGTERM stops the service")
        #expect(process.terminationStatus == 0)
        #expect(log.wait(for: "\"stopped\"", seconds: 60), "\(log.text)")
    }

    @Test("audit verify exits 0 on an intact log and 1 when a record was changed")
    func auditVerify() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        for user in ["a", "b"] {
            _ = env.send("POST", "/v1/offers/sign", json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
        }
        let arguments = ["audit", "verify", "--database", env.database.path, "--keys", env.keysPath]
        let intact = try Self.run(arguments)
        #expect(intact.status == 0 && intact.output.contains("2 records"))
        try env.database.write { db in try db.run("UPDATE signatures SET user_id = 'x' WHERE seq = 1") }
        let tampered = try Self.run(arguments)
        #expect(tampered.status == 1 && tampered.output.contains("sequence 1"))
    }
}
