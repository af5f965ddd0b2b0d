import Foundation
import OfferSignerApplication
import OfferSignerService
import OfferSignerStore

/// `offer-signer db migrate` and `offer-signer db copy --from --to`.
enum DatabaseCommand {
    static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "migrate": return migrate(Array(arguments.dropFirst()))
        case "copy": return copy(Array(arguments.dropFirst()))
        default: return usage()
        }
    }

    /// Brings the database `--database` / `OFFER_SIGNER_DATABASE` names to this build's schema.
    private static func migrate(_ arguments: [String]) -> Int32 {
        let location: DatabaseLocation
        do {
            let options = try CommandLineOptions(arguments, allowed: ServiceSettings.flags)
            location = try ServiceSettings.resolve(options: options, environment: ProcessInfo.processInfo.environment).databaseLocation
        } catch {
            printError("\(error)")
            return 2
        }
        do {
            let outcome = try DatabaseMigration.run(location)
            let change = outcome.before == outcome.after ? "already at schema version \(outcome.after)"
                : "schema version \(outcome.before) → \(outcome.after)"
            print("\(location): \(change) (the newest this build knows)")
            return 0
        } catch {
            printError("\(location): \(error)")
            return 1
        }
    }

    /// Copies a whole deployment from `--from` into the empty `--to`, then verifies it.
    private static func copy(_ arguments: [String]) -> Int32 {
        let from: DatabaseLocation
        let to: DatabaseLocation
        do {
            let options = try CommandLineOptions(arguments, allowed: ["--from", "--to"])
            guard let source = options["--from"], let destination = options["--to"] else { return usage() }
            from = try DatabaseLocation(source)
            to = try DatabaseLocation(destination)
        } catch {
            printError("\(error)")
            return 2
        }
        guard from != to else {
            printError("--from and --to name the same database")
            return 2
        }
        if case .sqlite(let path) = from, !FileManager.default.fileExists(atPath: path) {
            printError("\(path): no database here to copy from")
            return 1
        }
        let progress = ProgressLine()
        do {
            let source = try Stores.open(from, creating: false, followOfferChanges: false)
            defer { source.close() }
            let destination = try Stores.open(to, followOfferChanges: false)
            defer { destination.close() }
            let report = try DatabaseCopy.run(from: source, to: destination) { table, done, total in
                progress.show("copying \(table): \(done) of \(total) rows", final: done == total)
            }
            return summarize(report, from: from, to: to)
        } catch {
            progress.end()
            printError("copy failed, nothing was committed to \(to): \(error)")
            return 1
        }
    }

    private static func summarize(_ report: DatabaseCopy.Report, from: DatabaseLocation, to: DatabaseLocation) -> Int32 {
        print("copied \(from) → \(to)")
        for (table, count) in report.rows { print("  \(table): \(count) rows") }
        guard report.verified else {
            print("NOT VERIFIED: \(report.integrity.problem ?? "the destination's chain ends at entry \(report.destinationEnd.sequence), the source's at \(report.sourceEnd.sequence)")")
            return 1
        }
        print("verified: \(report.integrity.records) signature records, hash chain intact, ending at entry \(report.destinationEnd.sequence) as the source's does")
        return 0
    }

    private static func usage() -> Int32 {
        printError("usage: offer-signer db migrate [--database PATH_OR_URL] | db copy --from PATH_OR_URL --to PATH_OR_URL")
        return 2
    }
}

/// One line on standard error rewritten in place (when it is a terminal; else a line per
/// table and one every 100,000 rows).
private final class ProgressLine {
    private let terminal = isatty(STDERR_FILENO) == 1
    private var lastShown = ""
    private var lastCount = 0
    private var open = false

    func show(_ text: String, final: Bool) {
        if terminal {
            StandardStreams.error("\r\u{1B}[K\(text)")
            open = true
            if final { end() }
            return
        }
        let table = String(text.prefix { $0 != ":" })
        let count = Int(text.split(separator: " ").dropFirst(2).first ?? "") ?? 0
        guard final || table != lastShown || count - lastCount >= 100_000 else { return }
        lastShown = table
        lastCount = count
        StandardStreams.error("\(text)\n")
    }

    func end() {
        if open { StandardStreams.error("\n") }
        open = false
    }
}
