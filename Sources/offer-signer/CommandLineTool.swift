import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerService

/// Dispatches subcommands; each returns the process exit code.
enum CommandLineTool {
    static let usage = """
    offer-signer — signs App Store promotional offers

    USAGE: offer-signer <subcommand> [options]

    SUBCOMMANDS:
      serve [--listen HOST:PORT] [--database PATH_OR_URL] [--keys FILE] [--apple-roots FILES]
            [--environments LIST] [--log-level LEVEL]
                              Run the service (each option also has an OFFER_SIGNER_* variable).
      dev-setup [--dir DIR] [--database FILE] [--listen HOST:PORT]
                              Create a development keys file, API tokens and a demo offer (once).
      keys hash-token         Print the SHA-256 of a token read from standard input.
      keys check [--keys FILE]
                              Validate a keys file; print key IDs, public keys and warnings.
      offers apply FILE       Apply a JSON array of offer rules as one change set.
      offers list             List the offer rules.
      history import FILE|-   Verify and store NDJSON signed App Store data (one item per line).
      appstore backfill --transaction-ids FILE|- [--bundle-id ID] [--concurrency N]
                        [--max-duration SECONDS] [--max-transactions-per-customer N]
                              Fetch, verify and store the App Store history of the customer of
                              each transaction ID (one per line); a rerun resumes.
      appstore recover --from TIME [--to TIME] [--bundle-id ID] [--environment ENV]
                       [--max-pages N] [--max-duration SECONDS]
                              Store the notifications of Apple's Notification History for the
                              window that are not stored yet.
      retention messages|images|defaults|realtime-url|performance-test ... [--bundle-id ID] [--environment ENV]
                              Apple's Retention Messaging API: upload, list and delete messages
                              and images, default messages, the real-time URL, the performance
                              test (`offer-signer retention` lists the operations).
      webhooks verify --secret SECRET --signature 't=…,v1=…' [--tolerance SECONDS] < body
                              Check a webhook delivery's Offer-Signer-Signature against its body
                              (exit 1 if it does not verify or is older than the tolerance, 300 s).
      audit verify [--checkpoints FILE] [--audit-public-key FILE]... [--signatures] [--service-log FILE]...
                              Check the signature log's hash chain, against kept checkpoints
                              and every record's signature (exit 1 if tampered); name the
                              records signed whose answer was not delivered (service log).
      audit export --format csv|ndjson [--from T] [--to T]
                              Stream the signature log.
      audit checkpoints       Print the stored signed checkpoints as NDJSON.
      audit accept-truncation --reason TEXT
                              Record, as a gap in the chain, records cut off the log's end
                              that no backup brings back; signing resumes after it.
      consent clear --app-transaction-id ID | --event-id N --reason TEXT
                              Lift the consent a RESCIND_CONSENT withdrew for an app download,
                              recording who and why (offers are signed for the customer again);
                              --event-id names the rescinding by its ID (consent list's first column).
      consent list [--bundle-id ID]
                              Print every consent rescinded and cleared, each with its event ID.
      outcomes report --bundle-id ID --offer-id ID [--from T] [--to T] [--environment ENV] [--format json|csv]
                              What became of an offer's signatures and redemptions, and its holdout.
      outcomes rebuild        Derive every redemption and its match again from the history and the log.
      experiments report --experiment-id ID [--bundle-id ID] [--environment ENV] [--format json|csv]
                              An experiment's arms, each against the control with its always-valid
                              confidence sequence, the sample-ratio check and the verdict.
      catalog sync [--bundle-id ID]
                              Read the App Store Connect catalog (products and offers) of each
                              app with an appStoreConnect Team key, and store it (exit 1 if one failed).
      catalog create-offer --file OFFER.json | reprice-offer --product-id ID --offer-code CODE --file PRICING.json
              | delete-offer --product-id ID --offer-code CODE | price-points --product-id ID --territory T
                              Promotional offers at App Store Connect, as POST/PATCH/DELETE
                              /v1/admin/appstore/promotional-offers (JSON out; exit 2 refused before sending).
      db migrate              Bring the database to this build's schema (serve does it at start).
      db copy --from PATH_OR_URL --to PATH_OR_URL
                              Copy a whole deployment between SQLite and PostgreSQL into an empty
                              database, then verify its chain.

    offers, history, appstore, retention, audit, consent, catalog, outcomes and experiments take the options of serve (--database, --keys,
    --apple-roots, --environments) and the same OFFER_SIGNER_* variables; they refuse a
    database that does not exist (exit 2) and never create one.

    Run `offer-signer serve` with OFFER_SIGNER_KEYS pointing at your keys file; see README.md.
    """

    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            print(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "serve": return ServeCommand.run(rest)
        case "dev-setup": return DevSetupCommand.run(rest)
        case "keys": return KeysCommand.run(rest)
        case "offers": return OfflineCommands.offers(rest)
        case "history": return OfflineCommands.history(rest)
        case "appstore": return AppStoreCommand.run(rest)
        case "audit": return OfflineCommands.audit(rest)
        case "db": return DatabaseCommand.run(rest)
        case "consent": return ConsentCommand.run(rest)
        case "catalog": return CatalogCommand.run(rest)
        case "outcomes": return OutcomesCommand.run(rest)
        case "experiments": return ExperimentsCommand.run(rest)
        case "retention": return RetentionCommand.run(rest)
        case "webhooks": return WebhooksCommand.run(rest)
        case "--help", "-h", "help":
            print(usage)
            return 0
        default:
            printError("unknown subcommand '\(command)'\n\n\(usage)")
            return 2
        }
    }
}

/// Writes a line to standard error.
func printError(_ message: String) {
    LogStream.standardError.write("offer-signer: \(message)")
}
