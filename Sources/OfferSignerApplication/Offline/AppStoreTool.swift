import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer appstore backfill` and `offer-signer appstore recover`: the App Store Server API
/// from the command line, on the database directly (beside a running service or without one),
/// with the settings of `serve`.
public struct AppStoreTool: Sendable {
    /// Lines for standard output (the summary).
    public var output: @Sendable (String) -> Void
    /// Text for standard error (progress, problems), written as given.
    public var errors: @Sendable (String) -> Void
    /// Whether standard error is a terminal: a redrawn progress bar, else a line every `progressEvery`.
    public var isTerminal: Bool
    public var progressEvery: Duration
    /// The `OFFER_SIGNER_*` variables.
    public var environment: [String: String]
    /// Polled between transaction IDs and pages: an interrupt.
    public var shouldStop: @Sendable () -> Bool
    /// Where "now" comes from (the end of a recovery window, the time of records).
    public var clock: WallClock

    public init(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void, isTerminal: Bool,
                progressEvery: Duration = .seconds(10), environment: [String: String],
                shouldStop: @escaping @Sendable () -> Bool = { false }, clock: WallClock = .system) {
        self.output = output
        self.errors = errors
        self.isTerminal = isTerminal
        self.progressEvery = progressEvery
        self.environment = environment
        self.shouldStop = shouldStop
        self.clock = clock
    }

    public static let usage = """
        appstore backfill --transaction-ids FILE|- [--bundle-id ID] [--concurrency N] [--max-duration SECONDS]
                          [--max-transactions-per-customer N] [serve options]
        appstore recover --from TIME [--to TIME] [--bundle-id ID] [--environment Production|Sandbox] [--max-duration SECONDS]
                         [--max-pages N] [serve options]
        appstore link --original-transaction-id ID --user UUID [--force] [--bundle-id ID] [--environment Production|Sandbox]
                      [serve options]
        """

    /// Runs `appstore <arguments>`; returns the exit code (0 done, 1 failures or interrupted, 2 usage).
    public func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "backfill":
            return withSetup(Array(arguments.dropFirst()), own: ["--transaction-ids", "--bundle-id", "--concurrency", "--max-duration",
                                                                         "--max-transactions-per-customer"]) { options, setup in
                try backfill(options, setup)
            }
        case "recover":
            return withSetup(Array(arguments.dropFirst()), own: ["--from", "--to", "--bundle-id", "--environment", "--max-duration",
                                                                         "--max-pages"]) { options, setup in
                try recover(options, setup)
            }
        case "link":
            return withSetup(Array(arguments.dropFirst()), own: ["--original-transaction-id", "--user", "--bundle-id", "--environment"],
                             switches: ["--force"]) { options, setup in
                try link(options, setup)
            }
        default:
            errors("offer-signer: usage: offer-signer \(Self.usage.replacingOccurrences(of: "\n", with: "\n       offer-signer "))\n")
            return 2
        }
    }

    /// What the commands open: the context every App Store command shares, and what ingests
    /// verified history.
    struct Setup {
        let context: AppStoreCommandContext
        let ingestor: HistoryIngestor
        let verification: AppStoreVerification

        var settings: ServiceSettings { context.settings }
        var clients: AppStoreAPIClients { context.clients }
        var stores: OfflineStores { context.stores }
    }

    typealias UsageError = CommandUsageError

    private func withSetup(_ arguments: [String], own: Set<String>, switches: Set<String> = [],
                           _ body: (CommandLineOptions, Setup) throws -> Int32) -> Int32 {
        let options: CommandLineOptions
        let settings: ServiceSettings
        do {
            options = try CommandLineOptions(arguments, allowed: own.union(ServiceSettings.flags), switches: switches)
            settings = try ServiceSettings.resolve(options: options, environment: environment)
        } catch {
            errors("offer-signer: \(error.description)\n")
            return 2
        }
        do {
            let context = try AppStoreCommandContext(settings: settings)
            let verification = try AppStoreVerification(roots: try AppStoreVerification.roots(from: settings.appleRoots),
                                                        environments: Set(settings.environments), configuration: context.configuration)
            let setup = Setup(context: context, ingestor: HistoryIngestor(verification: verification, history: context.stores.history,
                                                                          clock: clock),
                              verification: verification)
            return try body(options, setup)
        } catch let error as UsageError {
            errors("offer-signer: \(error.description)\n")
            return 2
        } catch {
            errors("offer-signer: \(error)\n")
            return 1
        }
    }

    /// The app named by `--bundle-id`, or the only one.
    private func app(_ options: CommandLineOptions, _ setup: Setup) throws(UsageError) -> String {
        try setup.context.bundleId(options["--bundle-id"])
    }

    // MARK: backfill

    private func backfill(_ options: CommandLineOptions, _ setup: Setup) throws -> Int32 {
        guard let path = options["--transaction-ids"] else {
            throw UsageError(description: "appstore backfill needs --transaction-ids FILE (one transaction ID per line, or - for standard input)")
        }
        let bundleId = try app(options, setup)
        _ = try setup.clients.client(bundleId: bundleId, environment: setup.clients.environments[0])
        var workers = Self.defaultWorkers(rate: setup.settings.appStoreAPIRate)
        if let text = options["--concurrency"] {
            guard let value = Int(text), (1...256).contains(value) else {
                throw UsageError(description: "--concurrency takes a number of threads from 1 to 256")
            }
            workers = value
        }
        let budget = try RunBudget(options)
        var sync = CustomerHistorySync(clients: setup.clients, ingestor: setup.ingestor)
        if let text = options["--max-transactions-per-customer"] {
            guard let value = Int(text), (1...10_000_000).contains(value) else {
                throw UsageError(description: "--max-transactions-per-customer takes a number from 1 to 10000000")
            }
            sync.limits.maxTransactions = value
            sync.limits.maxSignedBytes = max(sync.limits.maxSignedBytes, value * 4096)
        }
        let lines = path == "-" ? LineReader(handle: .standardInput) : try LineReader(url: URL(fileURLWithPath: path))
        let input = HistoryBackfill.read(lines)
        var backfill = HistoryBackfill(sync: sync, progressStore: setup.stores.sync, bundleId: bundleId, clock: clock)
        backfill.workers = workers
        errors("backfill of \(bundleId): \(input.transactionIds.count) transaction IDs, \(workers) workers, "
               + "at most \(Self.number(setup.settings.appStoreAPIRate)) requests/s per environment\n")
        var display = ProgressDisplay(isTerminal: isTerminal, every: progressEvery, write: errors)
        let shouldStop = self.shouldStop
        let summary = try backfill.run(input, shouldStop: { shouldStop() || budget.isSpent }) { display.show($0) }
        display.finish()
        for line in Self.describe(summary, bundleId: bundleId) { output(line) }
        return summary.complete ? 0 : 1
    }

    /// Enough threads to keep `rate` requests a second going at a few hundred milliseconds each.
    static func defaultWorkers(rate: Double) -> Int {
        min(64, max(2, Int((rate / 2).rounded(.up))))
    }

    /// The summary as the command prints it.
    static func describe(_ summary: BackfillSummary, bundleId: String) -> [String] {
        var lines = ["backfill of \(bundleId): \(summary.transactionIds) transaction IDs"
                     + (summary.repeated > 0 ? " (\(summary.repeated) repeated lines skipped)" : "")
                     + String(format: " in %.1f s, %d requests", summary.seconds, summary.requests)]
        lines.append("  fetched       \(summary.fetched) (history and statuses verified and stored)")
        lines.append("  covered       \(summary.covered) (in a history fetched through another ID)")
        lines.append("  already done  \(summary.alreadyDone) (by an earlier run)")
        lines.append("  not found     \(summary.notFound) (unknown to the App Store for this app)")
        lines.append("  failed        \(summary.failedCount)")
        lines.append("items: \(summary.accepted) accepted, \(summary.duplicates) duplicates, \(summary.ignored) ignored (not subscriptions)")
        if !summary.failures.isEmpty {
            lines.append("failures\(summary.failures.count < summary.failedCount ? " (the first \(summary.failures.count))" : ""):")
            for failure in summary.failures {
                lines.append("  " + (failure.transactionId ?? "line \(failure.line ?? 0)") + ": " + failure.reason)
            }
        }
        if let reason = summary.abortReason { lines.append("stopped: \(reason)") }
        if summary.interrupted {
            lines.append("interrupted: \(summary.remaining) transaction IDs not attempted; run the same command again to resume")
        } else if summary.failedCount > 0 {
            lines.append("run the same command again to retry the failed IDs (those done are skipped)")
        }
        return lines
    }

    // MARK: recover

    private func recover(_ options: CommandLineOptions, _ setup: Setup) throws -> Int32 {
        guard let fromText = options["--from"] else { throw UsageError(description: "appstore recover needs --from TIME (RFC 3339)") }
        guard let from = RFC3339.date(from: fromText) else {
            throw UsageError(description: "--from takes an RFC 3339 time such as 2026-11-30T00:00:00Z")
        }
        var to = clock.now
        if let toText = options["--to"] {
            guard let date = RFC3339.date(from: toText) else { throw UsageError(description: "--to takes an RFC 3339 time such as 2026-12-01T00:00:00Z") }
            to = date
        }
        guard from < to else { throw UsageError(description: "--from must be before --to") }
        let bundleIds = options["--bundle-id"].map { [$0] } ?? setup.clients.bundleIds
        guard !bundleIds.isEmpty else {
            throw UsageError(description: "no app of \(setup.settings.keys) has an issuerId, which the App Store Server API needs")
        }
        let environments = try setup.context.environment(options["--environment"]).map { [$0] } ?? setup.clients.environments
        let budget = try RunBudget(options)
        var maxPages: Int?
        if let text = options["--max-pages"] {
            guard let value = Int(text), value >= 1 else { throw UsageError(description: "--max-pages takes a number of pages, at least 1") }
            maxPages = value
        }
        var recovery = NotificationRecovery(clients: setup.clients, ingestor: setup.ingestor, syncStore: setup.stores.sync)
        recovery.maxPages = setup.settings.recoverMaxPages
        recovery.maxSeconds = setup.settings.recoverMaxDuration
        let shouldStop = self.shouldStop
        var failed = false
        for bundleId in bundleIds {
            for environment in environments {
                do {
                    let outcome = try recovery.recover(bundleId: bundleId, environment: environment, from: from, to: to, maxPages: maxPages,
                                                       shouldStop: { shouldStop() || budget.isSpent })
                    for line in Self.describe(outcome) { output(line) }
                    failed = failed || !outcome.complete || outcome.refusedCount > 0
                } catch {
                    output("\(bundleId) \(environment.rawValue): \(error.description)")
                    failed = true
                }
            }
        }
        return failed ? 1 : 0
    }

    /// A recovered window as the command prints it.
    static func describe(_ outcome: NotificationRecovery.Outcome) -> [String] {
        var lines = ["\(outcome.bundleId) \(outcome.environment.rawValue) \(RFC3339.string(from: outcome.start)) to "
                     + "\(RFC3339.string(from: outcome.end)): \(outcome.found) notifications, \(outcome.stored) new and stored, "
                     + "\(outcome.duplicates) already stored, \(outcome.refusedCount) refused"]
        if let requested = outcome.requestedStart {
            lines.append("  Apple keeps \(Int(NotificationRecovery.retention(outcome.environment) / 86_400)) days of notification history "
                         + "in \(outcome.environment.rawValue): the time from \(RFC3339.string(from: requested)) to the window's start cannot be recovered")
        }
        for reason in outcome.refusals { lines.append("  refused: \(reason)") }
        if outcome.refusedCount > outcome.refusals.count { lines.append("  … and \(outcome.refusedCount - outcome.refusals.count) more refused") }
        if let bound = outcome.boundReached {
            lines.append("  stopped at its bound of \(bound): the window was not read to its end; raise --max-pages, "
                         + "--recover-max-pages (OFFER_SIGNER_RECOVER_MAX_PAGES) or --recover-max-duration (OFFER_SIGNER_RECOVER_MAX_DURATION) "
                         + "if the history is really that long, and run the command again")
        } else if !outcome.complete {
            lines.append("  interrupted: the window was not read to its end; run the command again")
        }
        return lines
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension AppStoreTool {
    // MARK: link

    /// `appstore link`: sets the subscription's app account token at Apple now, recorded as
    /// `cli:$USER`; refused when a different token is already set, unless `--force`.
    /// Exit 0 when linked (or already linked), 1 when refused or failed.
    func link(_ options: CommandLineOptions, _ setup: Setup) throws -> Int32 {
        guard let original = options["--original-transaction-id"] else {
            throw UsageError(description: "appstore link needs --original-transaction-id ID (the subscription's original transaction)")
        }
        guard !original.isEmpty, original.utf8.count <= 64, original.allSatisfy(\.isASCII), original.allSatisfy(\.isNumber) else {
            throw UsageError(description: "--original-transaction-id takes 1 to 64 decimal digits")
        }
        guard let userText = options["--user"] else { throw UsageError(description: "appstore link needs --user UUID (the app account token)") }
        guard let user = UUID(uuidString: userText) else {
            throw UsageError(description: "--user takes the app account token, a UUID such as 6f0e3c52-2b8f-4f6a-9d7e-1f2a3b4c5d6e")
        }
        let force: Bool
        switch options["--force"] {
        case nil, "false": force = false
        case "true": force = true
        case let other?: throw UsageError(description: "--force takes no value (got '\(other)')")
        }
        let bundleId = try app(options, setup)
        let environment = try setup.context.environment(options["--environment"]) ?? setup.clients.environments.first ?? .production
        let linking = AppAccountTokenLinking(clients: setup.clients, verification: setup.verification, history: setup.stores.history,
                                             links: setup.stores.links, clock: clock)
        let request = AppAccountTokenLinking.Request(
            bundleId: bundleId, environment: AppStoreEnvironment(rawValue: environment.rawValue) ?? .production,
            originalTransactionId: original, appAccountToken: user, actor: "cli:\(self.environment["USER"] ?? "unknown")", force: force)
        let link: AppAccountTokenLink
        switch try linking.attempt(request) {
        case .ended(let ended): link = ended
        case .retry(let error): link = try linking.gaveUp(request, error: error, attempts: 1)
        case .alreadyLinked:
            output("linked: \(bundleId) \(environment.rawValue) subscription \(original) → \(request.token): linked here before, nothing to do")
            return 0
        }
        var line = "\(link.outcome.rawValue): \(bundleId) \(environment.rawValue) subscription \(original) → \(link.appAccountToken)"
        if link.forced { line += " (forced)" }
        if let reason = link.reason { line += ": \(reason)" }
        if let existing = link.existingToken { line += " (set: \(existing))" }
        output(line)
        return link.outcome == .linked ? 0 : 1
    }
}
