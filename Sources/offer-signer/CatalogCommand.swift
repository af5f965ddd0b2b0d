import Foundation
import OfferSignerApplication
import OfferSignerCore

/// `offer-signer catalog sync [--bundle-id ID]`: read the App Store Connect catalog now
/// (exit 0 when every app synced, 1 when one failed: its previous catalog stays).
enum CatalogCommand {
    static let usageText = "catalog sync [--bundle-id ID] [serve options]"

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "sync" else { return OfflineCommands.usage(usageText) }
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(Array(arguments.dropFirst()), allowed: ServiceSettings.flags.union(["--bundle-id"]))
        } catch {
            return OfflineCommands.usage("\(usageText) (\(error.description))")
        }
        return OfflineCommands.run(options) { settings, stores in
            let results = try CatalogTool.sync(settings: settings, catalogs: stores.catalogs, bundleId: options["--bundle-id"])
            guard !results.isEmpty else {
                printError("no app in \(settings.keys) has an appStoreConnect Team key: nothing to sync (see README, App Store Connect catalog)")
                return 1
            }
            for result in results {
                if result.outcome == .synced { print(CatalogTool.line(result)) } else { printError(CatalogTool.line(result)) }
            }
            return results.allSatisfy { $0.outcome == .synced } ? 0 : 1
        }
    }
}
