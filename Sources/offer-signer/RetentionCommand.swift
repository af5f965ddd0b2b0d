import Foundation
import OfferSignerApplication

/// `offer-signer retention …`: runs `RetentionTool` on the process's streams, recording changes
/// as `cli:<user>` like `offers apply`.
enum RetentionCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        return RetentionTool(output: { print($0) }, errors: { StandardStreams.error($0) }, environment: environment,
                             actor: "cli:" + (environment["USER"] ?? "unknown")).run(arguments)
    }
}
