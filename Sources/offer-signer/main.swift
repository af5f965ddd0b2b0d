import Foundation
import OfferSignerApplication
import OfferSignerService

/// The `offer-signer` command line. A reader that goes away (`| head`) is a failed write to
/// report, not a signal that kills the process mid-way.
signal(SIGPIPE, SIG_IGN)
let exitCode = CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
