import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore

/// `offer-signer outcomes report|rebuild`: the offers' outcomes without a running service.
enum OutcomesCommand {
    static let reportUsage = "outcomes report --bundle-id ID --offer-id ID [--from T] [--to T] [--environment ENV] [--format json|csv] [serve options]"

    static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "report": return report(Array(arguments.dropFirst()))
        case "rebuild":
            return OfflineCommands.run(Array(arguments.dropFirst())) { _, stores in
                let summary = try OutcomesRebuild.run(stores.outcomes) { done, total in
                    StandardStreams.error("offer-signer: \(done)/\(total) subscriptions\n")
                }
                print("subscriptions \(summary.subscriptions), redemptions \(summary.redemptions), matched \(summary.matched), unmatched \(summary.redemptions - summary.matched)")
                return 0
            }
        default:
            return OfflineCommands.usage("\(reportUsage) | outcomes rebuild [serve options]")
        }
    }

    private static func report(_ arguments: [String]) -> Int32 {
        let flags: Set<String> = ["--bundle-id", "--offer-id", "--from", "--to", "--environment", "--format"]
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(arguments, allowed: flags.union(ServiceSettings.flags))
        } catch {
            return OfflineCommands.usage("\(reportUsage) (\(error.description))")
        }
        guard let bundleId = options["--bundle-id"], let offerId = options["--offer-id"] else {
            return OfflineCommands.usage(reportUsage)
        }
        let format = options["--format"] ?? "json"
        guard format == "json" || format == "csv" else { return OfflineCommands.usage("--format is json or csv") }
        guard let environment = AppStoreEnvironment(rawValue: options["--environment"] ?? "Production") else {
            return OfflineCommands.usage("--environment is Production or Sandbox")
        }
        var times: [String: Date] = [:]
        for flag in ["--from", "--to"] {
            guard let text = options[flag] else { continue }
            guard let date = RFC3339.date(from: text) else {
                return OfflineCommands.usage("\(flag) takes an RFC 3339 time such as 2026-11-30T00:00:00Z")
            }
            times[flag] = date
        }
        let now = Date()
        let to = times["--to"] ?? now
        let from = times["--from"] ?? to.addingTimeInterval(-Double(OfferOutcomes.defaultDays) * 86_400)
        return OfflineCommands.run(options) { settings, stores in
            // As the endpoint: an environment whose history this deployment does not keep is refused.
            guard settings.environments.contains(environment.rawValue) else {
                printError("offer-signer: --environment: this service keeps no \(environment.rawValue) history (OFFER_SIGNER_ENVIRONMENTS is \(settings.environments.sorted().joined(separator: ",")))")
                return 2
            }
            let outcomes = OfferOutcomes(offers: stores.offers, history: stores.history, outcomes: stores.outcomes)
            let report = try outcomes.report(bundleId: bundleId, offerId: offerId, environment: environment, from: from, to: to, now: now)
            if format == "csv" {
                print(CSV.row(OutcomeReport.csvHeader) + CSV.row(report.csvFields), terminator: "")
            } else {
                print(String(decoding: try JSONCoding.encoder.encode(report), as: UTF8.self))
            }
            return 0
        }
    }
}
