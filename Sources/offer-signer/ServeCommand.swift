import Foundation
import OfferSignerApplication
import OfferSignerService

/// `offer-signer serve`: runs until SIGINT or SIGTERM; SIGHUP reloads the keys file.
enum ServeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        // Block the signals before any thread starts, so every thread inherits the mask and
        // they reach only the sigwait loop below.
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        // A log stream whose reader is gone fails its writes (EPIPE, counted as dropped lines)
        // instead of killing the service.
        signal(SIGPIPE, SIG_IGN)

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
        // From here on a SIGHUP reloads rather than kills (it was blocked since the start,
        // so one sent earlier waits for sigwait): what tests and operators wait for.
        logger.log(.info, "signals handled: SIGHUP reloads the keys file, SIGINT and SIGTERM stop")
        while true {
            var received: Int32 = 0
            guard sigwait(&signals, &received) == 0 else { continue }
            if received == SIGHUP {
                runtime.reloadKeys()
                continue
            }
            logger.log(.info, "stopping: finishing requests in flight")
            runtime.stop()
            logger.log(.info, "stopped")
            return 0
        }
    }
}
