import Foundation
import OfferSignerApplication
import OfferSignerCore

/// `offer-signer catalog sync [--bundle-id ID]`: read the App Store Connect catalog now
/// (exit 0 when every app synced, 1 when one failed: its previous catalog stays); and
/// `catalog create-offer|reprice-offer|delete-offer|price-points`: promotional offers at Apple
/// (``CatalogOfferTool``), changes recorded as `cli:<user>`.
enum CatalogCommand {
    static let usageText = "catalog sync [--bundle-id ID] | create-offer --file OFFER.json | "
        + "reprice-offer --product-id ID --offer-code CODE --file PRICING.json | delete-offer --product-id ID --offer-code CODE | "
        + "price-points --product-id ID --territory T [--bundle-id ID] [serve options]"

    static func run(_ arguments: [String]) -> Int32 {
        if let command = arguments.first, CatalogOfferTool.commands.contains(command) { return offers(command, Array(arguments.dropFirst())) }
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

    private static func offers(_ command: String, _ arguments: [String]) -> Int32 {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(arguments, allowed: ServiceSettings.flags.union([
                "--bundle-id", "--product-id", "--offer-code", "--territory", "--file",
            ]))
        } catch {
            return OfflineCommands.usage("\(usageText) (\(error.description))")
        }
        let user = ProcessInfo.processInfo.environment["USER"] ?? "unknown"
        return OfflineCommands.run(options) { settings, stores in
            try CatalogOfferTool.run(command, options: options, settings: settings, stores: stores, actor: "cli:" + user, readFile: { path in
                path == "-" ? Array(FileHandle.standardInput.readDataToEndOfFile()) : Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            }, output: { print($0) }, errors: { printError($0) })
        }
    }
}
