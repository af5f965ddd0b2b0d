import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore

/// `offer-signer experiments report`: an experiment's report without a running service.
enum ExperimentsCommand {
    static let reportUsage = "experiments report --experiment-id ID [--bundle-id ID] [--environment ENV] [--format json|csv] [serve options]"

    static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "report": return report(Array(arguments.dropFirst()))
        default: return OfflineCommands.usage(reportUsage)
        }
    }

    private static func report(_ arguments: [String]) -> Int32 {
        let flags: Set<String> = ["--experiment-id", "--bundle-id", "--environment", "--format"]
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(arguments, allowed: flags.union(ServiceSettings.flags))
        } catch {
            return OfflineCommands.usage("\(reportUsage) (\(error.description))")
        }
        guard let experimentId = options["--experiment-id"] else { return OfflineCommands.usage(reportUsage) }
        let format = options["--format"] ?? "json"
        guard format == "json" || format == "csv" else { return OfflineCommands.usage("--format is json or csv") }
        guard let environment = AppStoreEnvironment(rawValue: options["--environment"] ?? "Production") else {
            return OfflineCommands.usage("--environment is Production or Sandbox")
        }
        return OfflineCommands.run(options) { settings, stores in
            guard settings.environments.contains(environment.rawValue) else {
                printError("--environment: this service keeps no \(environment.rawValue) history (OFFER_SIGNER_ENVIRONMENTS is \(settings.environments.sorted().joined(separator: ",")))")
                return 2
            }
            // The app as the endpoint names it: --bundle-id, or the only experiment of that ID.
            let bundleId: String
            if let named = options["--bundle-id"] {
                bundleId = named
            } else {
                let apps = Set(try stores.experiments.experiments(bundleId: nil).filter {
                    $0.rule.experimentId == experimentId && $0.rule.status != .deleted
                }.map(\.rule.bundleId))
                guard apps.count == 1, let only = apps.first else {
                    printError(apps.isEmpty ? "no experiment '\(experimentId)'" : "experiment '\(experimentId)' exists in several apps: name one with --bundle-id")
                    return apps.isEmpty ? 1 : 2
                }
                bundleId = only
            }
            let reporting = ExperimentReporting(experiments: stores.experiments, clock: .system)
            let report: ExperimentReport
            do {
                report = try reporting.report(bundleId: bundleId, experimentId: experimentId, environment: environment)
            } catch ExperimentRefusal.notFound {
                printError("no experiment '\(experimentId)' for \(bundleId)")
                return 1
            }
            if format == "csv" {
                print(report.csv, terminator: "")
            } else {
                print(String(decoding: try JSONCoding.encoder.encode(report), as: UTF8.self))
            }
            return 0
        }
    }
}
