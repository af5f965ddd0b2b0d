import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerService
import OfferSignerStore

/// `offers`, `history` and `audit`: tools that work on the database directly, beside a
/// running service or without one. They take the same settings as `serve`.
enum OfflineCommands {
    static func offers(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "apply":
            guard arguments.count >= 2 else { return usage("offers apply FILE [serve options]") }
            return run(Array(arguments.dropFirst(2))) { settings, stores in
                let configuration = try KeyConfiguration.load(path: settings.keys)
                let file = try OfferRulesFile(path: arguments[1], configuration: configuration)
                let actor = "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? "unknown")
                let changed = try file.apply(to: stores.offers, by: actor, at: Date())
                print("\(arguments[1]): \(file.rules.count) rules, \(changed.count) changed")
                for offer in changed { print("  \(offer.rule.bundleId) \(offer.rule.offerId) now version \(offer.version)") }
                return 0
            }
        case "list":
            return run(Array(arguments.dropFirst())) { _, stores in
                for offer in try stores.offers.offers() {
                    let rule = offer.rule
                    print("\(rule.offerId)\t\(rule.bundleId)\t\(rule.enabled ? "enabled" : "disabled")\tpriority \(rule.priority)\tv\(offer.version)\t\(rule.productIds.joined(separator: ","))")
                }
                return 0
            }
        default:
            return usage("offers apply FILE | offers list")
        }
    }

    static func history(_ arguments: [String]) -> Int32 {
        guard arguments.first == "import", arguments.count >= 2 else { return usage("history import FILE|- [serve options]") }
        return run(Array(arguments.dropFirst(2))) { settings, stores in
            let summary = try HistoryImportFile(path: arguments[1]).run(settings: settings, stores: stores)
            print("lines \(summary.lines), accepted \(summary.accepted), duplicates \(summary.duplicates), rejected \(summary.rejectedCount)")
            for rejection in summary.rejected { print("  line \(rejection.line): \(rejection.reason)") }
            return summary.rejectedCount == 0 ? 0 : 1
        }
    }

    static func audit(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "verify":
            let flags: Set<String> = ["--checkpoints", "--audit-public-key", "--service-log"]
            let options: CommandLineOptions
            do {
                options = try CommandLineOptions(Array(arguments.dropFirst()), allowed: flags.union(ServiceSettings.flags), switches: ["--signatures"])
            } catch {
                return usage("audit verify [--checkpoints FILE] [--audit-public-key FILE]... [--signatures] [--service-log FILE]... [serve options] (\(error.description))")
            }
            guard let signatures = options["--signatures"].map({ $0 == "true" ? true : $0 == "false" ? false : nil }) ?? false else {
                return usage("--signatures takes no value (or =true, =false)")
            }
            let verification = AuditVerification(checkpointFile: options["--checkpoints"],
                                                 auditPublicKeyFiles: options.values("--audit-public-key"), checkSignatures: signatures,
                                                 serviceLogFiles: options.values("--service-log"))
            return run(options) { settings, stores in
                do {
                    return try verification.run(settings: settings, log: stores.signatures) { print($0) } ? 0 : 1
                } catch {
                    printError("\(error)")
                    return 2
                }
            }
        case "checkpoints":
            return run(Array(arguments.dropFirst())) { _, stores in
                var after: Int64 = 0
                while true {
                    let page = try stores.checkpoints.checkpoints(afterId: after, limit: 1000)
                    for stored in page { print(String(decoding: try JSONCoding.encoder.encode(stored.checkpoint), as: UTF8.self)) }
                    guard let last = page.last, page.count == 1000 else { return 0 }
                    after = last.id
                }
            }
        case "accept-truncation":
            let options: CommandLineOptions
            do {
                options = try CommandLineOptions(Array(arguments.dropFirst()), allowed: ServiceSettings.flags.union(["--reason"]))
            } catch {
                return usage("audit accept-truncation --reason TEXT [serve options] (\(error.description))")
            }
            guard let reason = options["--reason"]?.trimmingCharacters(in: .whitespacesAndNewlines), !reason.isEmpty else {
                return usage("audit accept-truncation --reason TEXT: say what happened to the records that were lost")
            }
            if let refused = FreeText.refusedCharacter(in: reason) {
                return usage("audit accept-truncation --reason: the reason has \(FreeText.name(refused)); control, bidirectional-override and zero-width characters are refused")
            }
            return run(options) { settings, stores in
                let actor = "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? "unknown")
                let gap: ChainGap
                do {
                    gap = try stores.signatures.acceptTruncation(by: actor, reason: reason, at: Date())
                } catch {
                    printError("not accepted: \(error)")
                    return 1
                }
                print("accepted gap at entry \(gap.sequence): \(gap.summary)")
                print("appends resume at entry \(gap.sequence + 1); every integrity report lists this gap")
                let link = ChainLink(sequence: gap.sequence, hash: gap.hash)
                switch Result(catching: { try KeyConfiguration.load(path: settings.keys) }) {
                case .success(let configuration):
                    guard let key = configuration.auditKey else {
                        print("no checkpoint signed: the keys file names no auditKey")
                        return 0
                    }
                    let checkpoint = try AuditCheckpoint.sign(link, at: Date().milliseconds, keyId: key.keyId, key: key.privateKey)
                    try stores.checkpoints.add(checkpoint)
                    print("checkpoint (keep a copy): " + String(decoding: try JSONCoding.encoder.encode(checkpoint), as: UTF8.self))
                case .failure(let error):
                    print("no checkpoint signed: \(error)")
                }
                return 0
            }
        case "export":
            let exportFlags: Set<String> = ["--format", "--from", "--to"]
            let options: CommandLineOptions
            do {
                options = try CommandLineOptions(Array(arguments.dropFirst()), allowed: exportFlags.union(ServiceSettings.flags))
            } catch {
                return usage("audit export --format csv|ndjson [--from T] [--to T] [serve options] (\(error.description))")
            }
            guard let format = AuditExport.Format(rawValue: options["--format"] ?? "csv") else { return usage("--format is csv or ndjson") }
            var times: [String: Date] = [:]
            for flag in ["--from", "--to"] {
                guard let text = options[flag] else { continue }
                guard let date = RFC3339.date(from: text) else { return usage("\(flag) takes an RFC 3339 time such as 2026-11-30T00:00:00Z") }
                times[flag] = date
            }
            let filter = SignatureFilter(fromTimestamp: times["--from"]?.milliseconds, toTimestamp: times["--to"]?.milliseconds)
            return run(options) { _, stores in
                try AuditExport(format: format, filter: filter).run(stores.signatures) { try StandardStreams.output($0) }
                return 0
            }
        default:
            return usage("audit verify | audit export --format csv|ndjson [--from T] [--to T] | audit checkpoints | audit accept-truncation --reason TEXT")
        }
    }

    /// Resolves the settings, opens the database and runs `body`, turning errors into messages.
    static func run(_ arguments: [String], _ body: (ServiceSettings, OfflineStores) throws -> Int32) -> Int32 {
        do {
            return run(try CommandLineOptions(arguments, allowed: ServiceSettings.flags), body)
        } catch {
            printError(error.description)
            return 2
        }
    }

    /// `run` with the options already parsed. A missing database is a usage error (exit 2):
    /// these tools never create one.
    static func run(_ options: CommandLineOptions, _ body: (ServiceSettings, OfflineStores) throws -> Int32) -> Int32 {
        do {
            let settings = try ServiceSettings.resolve(options: options, environment: ProcessInfo.processInfo.environment)
            let stores = try OfflineStores(location: try settings.databaseLocation)
            return try body(settings, stores)
        } catch StartupError.databaseMissing(let path) {
            printError(StartupError.databaseMissing(path: path).description)
            return 2
        } catch {
            printError("\(error)")
            return 1
        }
    }

    static func usage(_ text: String) -> Int32 {
        printError("usage: offer-signer \(text)")
        return 2
    }
}
