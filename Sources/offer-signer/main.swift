import Foundation
import OfferSignerApplication
import OfferSignerService

/// The `offer-signer` command line.
let exitCode = CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(exitCode)
