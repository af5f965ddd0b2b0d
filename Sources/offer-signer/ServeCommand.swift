import Dispatch
import Foundation
import OfferSignerService

/// `offer-signer serve`: runs until SIGINT or SIGTERM; SIGHUP reloads the keys file.
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let settings: ServiceSettings
        do {
            settings = try ServiceSettings.resolve(arguments: arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            printError(error.description)
            return 2
        }
        let logger = Logger(minimumLevel: Logger.Level(name: settings.logLevel) ?? .info)
        let runtime: ServiceRuntime
        do {
            runtime = try ServiceRuntime(settings: settings, logger: logger)
        } catch {
            printError(error.description)
            return 1
        }
        for signal in [SIGINT, SIGTERM, SIGHUP] { Foundation.signal(signal, SIG_IGN) }
        let queue = DispatchQueue(label: "offer-signer.signals")
        let reload = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        reload.setEventHandler { runtime.reloadKeys() }
        reload.resume()
        let stopSignals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        let stopped = DispatchSemaphore(value: 0)
        for source in stopSignals {
            source.setEventHandler {
                logger.log(.info, "stopping: finishing requests in flight")
                runtime.stop()
                stopped.signal()
            }
            source.resume()
        }
        stopped.wait()
        logger.log(.info, "stopped")
        return 0
    }
}
