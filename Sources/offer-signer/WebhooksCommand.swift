import Foundation
import OfferSignerApplication
import OfferSignerCore

/// `offer-signer webhooks verify --secret S --signature HEADER [--tolerance SECONDS] < body`:
/// checks a delivery as a receiver would (the body exactly as received, its
/// `Offer-Signer-Signature` header, and the timestamp within the tolerance of now, 300 s by
/// default; 0 does not check the time). Exit 0 when it verifies, 1 when not, 2 for bad usage.
enum WebhooksCommand {
    static let usage = "usage: offer-signer webhooks verify --secret SECRET --signature 't=…,v1=…' [--tolerance SECONDS] < body"

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.first == "verify" else {
            printError(usage)
            return 2
        }
        let secret: String, header: String, tolerance: Int64
        do {
            let options = try CommandLineOptions(Array(arguments.dropFirst()), allowed: ["--secret", "--signature", "--tolerance"])
            guard let given = options["--secret"] ?? ProcessInfo.processInfo.environment["OFFER_SIGNER_WEBHOOK_SECRET"], !given.isEmpty,
                  let signature = options["--signature"] else {
                printError("--secret (or OFFER_SIGNER_WEBHOOK_SECRET) and --signature are required\n\(usage)")
                return 2
            }
            guard let seconds = Int64(options["--tolerance"] ?? "300"), seconds >= 0 else {
                printError("--tolerance must be a whole number of seconds, 0 or more")
                return 2
            }
            (secret, header, tolerance) = (given, signature, seconds)
        } catch {
            printError(error.description)
            return 2
        }
        let body = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        switch WebhookSignature.verify(header: header, body: body, secret: secret, now: tolerance == 0 ? nil : Date(), tolerance: tolerance) {
        case .success(let timestamp):
            print("valid: signed at \(RFC3339.string(from: Date(timeIntervalSince1970: TimeInterval(timestamp))))")
            return 0
        case .failure(let failure):
            print("invalid: \(failure)")
            return 1
        }
    }
}
