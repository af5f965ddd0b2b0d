import AppStoreServerAPI
import Foundation
import OfferSignerStore

/// What the commands that call Apple's App Store Server API (`appstore`, `retention`) open,
/// with the settings of `serve`: the keys file, a client per app and environment, and the
/// database directly (beside a running service or without one).
struct AppStoreCommandContext {
    let settings: ServiceSettings
    let configuration: KeyConfiguration
    let clients: AppStoreAPIClients
    let stores: OfflineStores

    /// Loads the keys file, makes the clients (a fault of theirs is a start-up error) and opens
    /// the database.
    init(settings: ServiceSettings) throws {
        self.settings = settings
        configuration = try KeyConfiguration.load(path: settings.keys)
        do {
            clients = try AppStoreAPIClients(configuration: configuration, options: AppStoreAPIClients.Options(settings: settings))
        } catch {
            throw StartupError.appStoreAPI(error)
        }
        stores = try OfflineStores(location: try settings.databaseLocation)
    }

    /// The app `bundleId` names (`--bundle-id`), or the only one when it is nil.
    func bundleId(_ bundleId: String?) throws(CommandUsageError) -> String {
        guard let app = configuration.app(bundleId: bundleId) else {
            if let bundleId { throw CommandUsageError(description: "no app with bundleId '\(bundleId)' in \(settings.keys)") }
            throw CommandUsageError(description: "\(settings.keys) configures several apps: add --bundle-id")
        }
        return app.bundleId
    }

    /// The environment `name` names (`--environment`), one the clients accept; nil when not given.
    func environment(_ name: String?) throws(CommandUsageError) -> AppStoreServerAPIEnvironment? {
        guard let name else { return nil }
        guard let environment = AppStoreServerAPIEnvironment(rawValue: name), clients.environments.contains(environment) else {
            throw CommandUsageError(description: "--environment takes an accepted environment "
                                    + "(\(clients.environments.map(\.rawValue).joined(separator: ", ")))")
        }
        return environment
    }
}

/// A refusal of the command line, answered with exit code 2.
struct CommandUsageError: Error, CustomStringConvertible {
    let description: String
}
