import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer retention messages|images|defaults|realtime-url|performance-test …`: Apple's
/// Retention Messaging API from the command line, with the settings of `serve` (the keys file's
/// In-App Purchase key and `issuerId`, `OFFER_SIGNER_APPSTORE_API_URL`), recording every change
/// in the database's audit log as the service does (`RetentionMessaging`).
public struct RetentionTool: Sendable {
    /// Lines for standard output (JSON answers).
    public var output: @Sendable (String) -> Void
    /// Text for standard error.
    public var errors: @Sendable (String) -> Void
    /// The `OFFER_SIGNER_*` variables.
    public var environment: [String: String]
    /// Who the audit log names for changes made here.
    public var actor: String
    public var clock: WallClock

    public init(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void,
                environment: [String: String], actor: String, clock: WallClock = .system) {
        self.output = output
        self.errors = errors
        self.environment = environment
        self.actor = actor
        self.clock = clock
    }

    public static let usage = """
        retention messages list | upload --message-id UUID --file MESSAGE.json | delete --message-id UUID
        retention images list | upload --image-id UUID --file IMAGE.png [--image-size FULL_SIZE|BULLET_POINT] | delete --image-id UUID
        retention defaults list | get|delete --product-id ID --locale LOCALE | set --product-id ID --locale LOCALE --message-id UUID
        retention realtime-url get | set --url URL | delete
        retention performance-test start --original-transaction-id ID | result --request-id UUID
        """

    /// What every operation also takes.
    static let commonOptions = "each also takes [--bundle-id ID] [--environment Production|Sandbox] and the options of serve"


    typealias UsageError = CommandUsageError

    static let commands: [String: Set<String>] = [
        "messages list": [], "messages upload": ["--message-id", "--file"], "messages delete": ["--message-id"],
        "images list": [], "images upload": ["--image-id", "--file", "--image-size"], "images delete": ["--image-id"],
        "defaults list": [], "defaults get": ["--product-id", "--locale"], "defaults delete": ["--product-id", "--locale"],
        "defaults set": ["--product-id", "--locale", "--message-id"],
        "realtime-url get": [], "realtime-url set": ["--url"], "realtime-url delete": [],
        "performance-test start": ["--original-transaction-id"], "performance-test result": ["--request-id"],
    ]

    /// Runs `retention <arguments>`; 0 done, 1 refused or failed at Apple, 2 usage or a refusal before sending.
    public func run(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2, let own = Self.commands["\(arguments[0]) \(arguments[1])"] else {
            errors("offer-signer: usage: offer-signer \(Self.usage.replacingOccurrences(of: "\n", with: "\n       offer-signer "))\n"
                   + "       (\(Self.commonOptions))\n")
            return 2
        }
        let command = "\(arguments[0]) \(arguments[1])"
        let options: CommandLineOptions
        let settings: ServiceSettings
        do {
            options = try CommandLineOptions(Array(arguments.dropFirst(2)),
                                             allowed: own.union(["--bundle-id", "--environment"]).union(ServiceSettings.flags))
            settings = try ServiceSettings.resolve(options: options, environment: environment)
        } catch {
            errors("offer-signer: \(error.description)\n")
            return 2
        }
        do {
            let context = try AppStoreCommandContext(settings: settings)
            let bundleId = try context.bundleId(options["--bundle-id"])
            let messaging = RetentionMessaging(clients: context.clients, records: context.stores.stores.rules, states: nil, clock: clock,
                                               logger: Logger.silent)
            // The environment named must be one the service accepts (as `appstore` commands and HTTP refuse
            // another); a performance test runs in Sandbox unless Production is asked for.
            let named = try context.environment(options["--environment"])
            let fallback = command.hasPrefix("performance-test") ? RetentionMessaging.performanceTestEnvironment : "Production"
            let target = RetentionMessaging.Target(bundleId: bundleId, environment: named?.rawValue ?? fallback)
            try perform(command, options, messaging, target)
            return 0
        } catch let error as UsageError {
            errors("offer-signer: \(error.description)\n")
            return 2
        } catch let error as RetentionMessagingFailure {
            errors("offer-signer: \(error.description)\n")
            if case .invalid = error { return 2 }
            return 1
        } catch {
            errors("offer-signer: \(error)\n")
            return 1
        }
    }

    private func perform(_ command: String, _ options: CommandLineOptions, _ messaging: RetentionMessaging,
                         _ target: RetentionMessaging.Target) throws {
        func required(_ name: String) throws(UsageError) -> String {
            guard let value = options[name] else { throw UsageError(description: "retention \(command) needs \(name)") }
            return value
        }
        switch command {
        case "messages list":
            try print(["items": try messaging.messages(target)])
        case "messages upload":
            let id = try required("--message-id")
            let data = try read(try required("--file"))
            let message: UploadMessageRequestBody
            do {
                message = try JSONCoding.decoder.decodeStrictly(UploadMessageRequestBody.self, from: Data(data))
            } catch {
                throw UsageError(description: "\(options["--file"]!) is not a message (header, body, image, headerPosition, bulletPoints): \(error)")
            }
            try messaging.uploadMessage(target, messageIdentifier: id, message, by: actor)
            try print(["uploaded": id])
        case "messages delete":
            let id = try required("--message-id")
            try messaging.deleteMessage(target, messageIdentifier: id, by: actor)
            try print(["deleted": id])
        case "images list":
            try print(["items": try messaging.images(target)])
        case "images upload":
            let id = try required("--image-id")
            let name = options["--image-size"] ?? ImageSize.fullSize.rawValue
            guard let size = ImageSize(rawValue: name) else { throw UsageError(description: "--image-size is FULL_SIZE or BULLET_POINT") }
            try messaging.uploadImage(target, imageIdentifier: id, png: try read(try required("--file")), size: size, by: actor)
            try print(["uploaded": id])
        case "images delete":
            let id = try required("--image-id")
            try messaging.deleteImage(target, imageIdentifier: id, by: actor)
            try print(["deleted": id])
        case "defaults list":
            try print(["items": try messaging.configuredDefaults(target)])
        case "defaults get":
            try print(try messaging.defaultMessage(target, productId: try required("--product-id"), locale: try required("--locale")))
        case "defaults set":
            let (product, locale, message) = (try required("--product-id"), try required("--locale"), try required("--message-id"))
            try messaging.configureDefault(target, productId: product, locale: locale, messageIdentifier: message, by: actor)
            try print(RetentionMessaging.DefaultItem(productId: product, locale: locale, messageIdentifier: message, updatedAt: clock.now))
        case "defaults delete":
            let (product, locale) = (try required("--product-id"), try required("--locale"))
            try messaging.deleteDefault(target, productId: product, locale: locale, by: actor)
            try print(["deleted": "\(product) \(locale)"])
        case "realtime-url get":
            try print(try messaging.realtimeURL(target))
        case "realtime-url set":
            let url = try required("--url")
            try messaging.configureRealtimeURL(target, url, by: actor)
            try print(RealtimeURL(realtimeURL: url))
        case "realtime-url delete":
            try messaging.deleteRealtimeURL(target, by: actor)
            try print(["deleted": "realtimeURL"])
        case "performance-test start":
            try print(try messaging.startPerformanceTest(target, originalTransactionId: try required("--original-transaction-id"), by: actor))
        default:  // "performance-test result"
            try print(try messaging.performanceTestResult(target, requestId: try required("--request-id")))
        }
    }

    private func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError(description: "cannot read \(path)") }
        guard data.count <= RetentionImage.maxBytes else { throw UsageError(description: "\(path) is larger than \(RetentionImage.maxBytes) bytes") }
        return Array(data)
    }

    private func print(_ value: some Encodable) throws {
        output(String(decoding: try JSONCoding.encoder.encode(value), as: UTF8.self))
    }
}
