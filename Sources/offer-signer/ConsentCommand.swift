import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerStore

/// `offer-signer consent clear --app-transaction-id ID | --event-id N --reason TEXT` and
/// `consent list`: consent rescinded by the App Store (`RESCIND_CONSENT`), lifted with who and
/// why; `--event-id` clears by the rescinding's event ID (the first column of `consent list`),
/// whatever app transaction ID Apple sent.
enum ConsentCommand {
    static let usageText = "consent clear --app-transaction-id ID | --event-id N --reason TEXT | consent list [--bundle-id ID] [serve options]"

    static func run(_ arguments: [String]) -> Int32 {
        switch arguments.first {
        case "clear": return clear(Array(arguments.dropFirst()))
        case "list": return list(Array(arguments.dropFirst()))
        default: return OfflineCommands.usage(usageText)
        }
    }

    private static func clear(_ arguments: [String]) -> Int32 {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(arguments, allowed: ServiceSettings.flags.union(["--app-transaction-id", "--event-id", "--reason"]))
        } catch {
            return OfflineCommands.usage("\(usageText) (\(error.description))")
        }
        let appTransactionId = options["--app-transaction-id"], eventText = options["--event-id"]
        guard (appTransactionId == nil) != (eventText == nil), let reason = options["--reason"] else {
            return OfflineCommands.usage("consent clear --app-transaction-id ID | --event-id N --reason TEXT: say whose consent (one of the two) "
                                         + "and why it may be ignored again")
        }
        var eventId: Int64?
        if let eventText {
            guard eventText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(eventText), id > 0 else {
                return OfflineCommands.usage("consent clear --event-id takes the positive integer ID that consent list prints first")
            }
            eventId = id
        }
        return OfflineCommands.run(options) { _, stores in
            let actor = "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? "unknown")
            do {
                let clearing = ConsentClearing(consents: stores.consents, clock: .system)
                let cleared = try eventId.map { try clearing.clear(eventId: $0, reason: reason, by: actor) }
                    ?? clearing.clear(appTransactionId: appTransactionId ?? "", reason: reason, by: actor)
                for event in cleared {
                    print("cleared: app transaction \(event.appTransactionId) (\(event.environment.rawValue), \(event.bundleId)) by \(actor)")
                }
                return 0
            } catch let refusal as ConsentClearing.Refusal {
                printError("not cleared: \(refusal.description)")
                return 1
            }
        }
    }

    private static func list(_ arguments: [String]) -> Int32 {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(arguments, allowed: ServiceSettings.flags.union(["--bundle-id"]))
        } catch {
            return OfflineCommands.usage("\(usageText) (\(error.description))")
        }
        return OfflineCommands.run(options) { _, stores in
            var after: Int64 = 0
            while true {
                let events = try stores.consents.events(bundleId: options["--bundle-id"], afterId: after, limit: 500)
                for event in events {
                    let who = event.action == .rescind ? "notification \(event.notificationUUID ?? "?")"
                        : "\(event.actor ?? "?"): \(event.reason ?? "")"
                    print("\(event.id)  \(RFC3339.string(from: event.at))  \(event.action.rawValue)  \(event.appTransactionId)  "
                          + "\(event.environment.rawValue)  \(event.bundleId)  \(who)")
                }
                guard let last = events.last, events.count == 500 else { return 0 }
                after = last.id
            }
        }
    }
}
