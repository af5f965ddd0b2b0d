import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerService

/// `offer-signer keys hash-token` and `offer-signer keys check`.
enum KeysCommand {
    static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "hash-token":
            return hashToken()
        case "check":
            return check(Array(arguments.dropFirst()))
        default:
            printError("usage: offer-signer keys hash-token | keys check [--keys FILE]")
            return 2
        }
    }

    /// Prints the SHA-256 (hex) of the token on standard input, without its trailing newline.
    private static func hashToken() -> Int32 {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        var token = String(decoding: input, as: UTF8.self)
        while token.hasSuffix("\n") || token.hasSuffix("\r") { token.removeLast() }
        guard !token.isEmpty else {
            printError("no token on standard input (try: printf %s \"$TOKEN\" | offer-signer keys hash-token)")
            return 2
        }
        print(SHA256Digest.hex(Array(token.utf8)))
        return 0
    }

    /// Prints where `key` is held and whether a test signature by it verifies under `publicKey`;
    /// returns 1 when it does not.
    private static func report(_ key: any P256SigningKey, publicKey: P256PublicKey, source: KeySource) -> Int {
        print("    kind: \(source.summary)")
        let message = Array("offer-signer keys check test signature".utf8)
        do {
            let signature = try key.derSignature(message)
            guard publicKey.isValidSignature(derSignature: signature, of: message) else {
                print("    test signature: DOES NOT VERIFY under the public key below")
                return 1
            }
            print("    test signature: verifies")
            return 0
        } catch {
            print("    test signature: FAILED (\(error))")
            return 1
        }
    }

    private static func check(_ arguments: [String]) -> Int32 {
        let path: String
        do {
            let options = try CommandLineOptions(arguments, allowed: ["--keys"])
            path = options["--keys"] ?? ProcessInfo.processInfo.environment["OFFER_SIGNER_KEYS"] ?? "keys.json"
        } catch {
            printError(error.description)
            return 2
        }
        do {
            let configuration = try KeyConfiguration.load(path: path)
            var failed = 0
            print("\(path): OK")
            for app in configuration.apps.values.sorted(by: { $0.bundleId < $1.bundleId }) {
                print("app \(app.bundleId)\(app.appAppleId.map { " (appAppleId \($0))" } ?? "")")
                for key in app.keys {
                    print("  key \(key.keyId)\(key.active ? " (active)" : "")")
                    failed += report(key.privateKey, publicKey: key.publicKey, source: key.source)
                    print(key.publicKey.pem.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                }
                if let connect = app.appStoreConnect {
                    print("  App Store Connect Team key \(connect.keyId) (issuer \(connect.issuerId); reads the catalog)")
                    failed += report(connect.privateKey, publicKey: connect.privateKey.publicKey, source: connect.source)
                }
            }
            if let audit = configuration.auditKey {
                print("audit key \(audit.keyId) (signs checkpoints; give auditors this public key)")
                failed += report(audit.privateKey, publicKey: audit.publicKey, source: audit.source)
                print(audit.publicKey.pem.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            } else {
                print("no audit key: checkpoints of the signature log are not signed (see README, Audits)")
            }
            for key in configuration.apiKeys {
                print("api key \(key.name): role \(key.role.rawValue), \(key.trust.summary)")
            }
            for warning in configuration.warnings { print(warning) }
            return failed == 0 ? 0 : 1
        } catch {
            printError(error.description)
            return 1
        }
    }
}
