import Dispatch
import Foundation
import OfferSignerApplication
import OfferSignerService
import Synchronization

/// `offer-signer appstore backfill|recover`: runs `AppStoreTool` on the process's streams. The
/// first Ctrl-C lets the work in flight finish and prints the summary (a rerun resumes); a
/// second one quits at once.
enum AppStoreCommand {
    private static let interrupted = Atomic<Bool>(false)

    static func run(_ arguments: [String]) -> Int32 {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if interrupted.exchange(true, ordering: .acquiringAndReleasing) { exit(130) }
            printError("interrupted: finishing the work in flight (Ctrl-C again to quit now)")
        }
        source.resume()
        defer { source.cancel() }
        let tool = AppStoreTool(
            output: { print($0) },
            errors: { StandardStreams.error($0) },
            isTerminal: isatty(STDERR_FILENO) == 1,
            environment: ProcessInfo.processInfo.environment,
            shouldStop: { interrupted.load(ordering: .acquiring) })
        return tool.run(arguments)
    }
}
