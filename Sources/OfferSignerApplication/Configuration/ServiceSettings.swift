import Foundation
import OfferSignerCore
import OfferSignerStore

/// The settings of `serve`: each from its environment variable, overridden by its flag.
public struct ServiceSettings: Sendable, Equatable {
    public var listen = "127.0.0.1:8080"
    /// A SQLite file path or a `postgresql://` URL (see ``databaseLocation``).
    public var database = "var/offer-signer.sqlite"
    public var keys = "keys.json"
    /// DER or PEM files trusted as roots for App Store signed data; nil for the shipped Apple Root CA - G3.
    public var appleRoots: [String]?
    public var environments = ["Production"]
    public var logLevel = "info"
    /// Signing requests per API key.
    public var signRatePerAPIKey: RateLimit? = RateLimit(count: 2000, period: 1)
    /// Signing requests per user (app account token).
    public var signRatePerUser: RateLimit? = RateLimit(count: 20, period: 60)
    /// Notifications per client address.
    public var notificationRatePerAddress: RateLimit? = RateLimit(count: 500, period: 1)
    /// Connections served at once, and per client address.
    public var maxConnections = 1000
    public var maxConnectionsPerAddress = 128
    /// Seconds a connection may stay idle.
    public var connectionTimeout = 15
    /// Seconds a request's head and body may take to arrive (plus one per MiB of body).
    public var requestTimeout = 10
    /// Seconds a new connection may take to send its first request line (at most `requestTimeout`).
    public var firstLineTimeout = 2
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client.
    public var trustedProxies: [String] = []
    /// Seconds appended records may go without a signed audit checkpoint.
    public var checkpointInterval = 60
    /// The App Store Server API's base URL instead of Apple's (tests, staging); nil for Apple's.
    public var appStoreAPIURL: String?
    /// App Store Server API requests per second, per app and environment.
    public var appStoreAPIRate: Double = 50
    /// The App Store Connect API's base URL instead of Apple's (tests, staging); nil for Apple's.
    public var appStoreConnectURL: String?
    /// Seconds between the scheduled App Store Connect catalog syncs in `serve`; nil: none.
    public var catalogSyncInterval: Int? = 3600
    /// Seconds between the scheduled recoveries of missed notifications; nil: none.
    public var recoverInterval: Int?
    /// Pages of notification history one recovered window reads at most (`appstore recover` and `serve`).
    public var recoverMaxPages = NotificationRecovery.defaultMaxPages
    /// Seconds one recovered window is read at most.
    public var recoverMaxDuration = NotificationRecovery.defaultMaxSeconds
    /// Whether signing fetches the App Store history of a user it knows nothing about.
    public var fetchUnknownUsers = false
    /// Whether proven requests link token-less subscriptions to their user at Apple (Set App Account Token).
    public var linkAppAccountTokens = false
    /// Whether signing waits for a synchronous standby attached to the PostgreSQL primary
    /// (`OFFER_SIGNER_REQUIRE_SYNC_REPLICA`), so no acknowledged signature is lost by a failover.
    public var requireSyncReplica = false
    /// Seconds a signed app transaction sent as proof may be old (by its `receiptCreationDate`).
    public var appTransactionMaxAge = AppStoreVerification.defaultAppTransactionMaxAge
    /// Seconds a Retention Messaging request may be old (by its `signedDate`) and still be answered.
    public var retentionRequestMaxAge = RetentionResponder.defaultMaxRequestAge
    /// Days answered Retention Messaging requests are kept before they are pruned.
    public var retentionKeepDays = 30
    /// Whether webhooks may post to loopback, link-local and private addresses (development only).
    public var webhookAllowPrivate = false
    /// Days delivered webhook events are kept before they are pruned.
    public var webhookKeepDays = 30
    /// The file of the key that encrypts the webhooks' secrets in the database (nil: stored in
    /// plain text; see ``WebhookSecretsKeyFile``).
    public var webhookSecretsKey: String?

    public init() {}

    /// One setting: its variable, its flag and how it is applied.
    struct Setting: Sendable {
        let variable: String
        let flag: String
        let store: @Sendable (inout ServiceSettings, String) throws -> Void

        init(variable: String, flag: String, apply: @escaping @Sendable (inout ServiceSettings, String) throws -> Void) {
            self.variable = variable
            self.flag = flag
            self.store = apply
        }

        /// Stores `value`, refusing a bad one with a message naming the variable and flag.
        func apply(_ settings: inout ServiceSettings, _ value: String) throws(SettingsError) {
            do {
                try store(&settings, value)
            } catch let error as SettingsError {
                throw error.named("\(variable)/\(flag)")
            } catch {
                throw .invalidValue(setting: "\(variable)/\(flag)", value: value, expected: "usable (\(error))")
            }
        }
    }

    static let all: [Setting] = [
        Setting(variable: "OFFER_SIGNER_LISTEN", flag: "--listen") { $0.listen = $1 },
        Setting(variable: "OFFER_SIGNER_DATABASE", flag: "--database") { $0.database = $1 },
        Setting(variable: "OFFER_SIGNER_KEYS", flag: "--keys") { $0.keys = $1 },
        Setting(variable: "OFFER_SIGNER_APPLE_ROOTS", flag: "--apple-roots") { $0.appleRoots = list($1) },
        Setting(variable: "OFFER_SIGNER_ENVIRONMENTS", flag: "--environments") { $0.environments = list($1) },
        Setting(variable: "OFFER_SIGNER_LOG_LEVEL", flag: "--log-level") { $0.logLevel = $1 },
        Setting(variable: "OFFER_SIGNER_RATE_SIGN_PER_KEY", flag: "--rate-sign-per-key") { $0.signRatePerAPIKey = try RateLimit.parse($1) },
        Setting(variable: "OFFER_SIGNER_RATE_SIGN_PER_USER", flag: "--rate-sign-per-user") { $0.signRatePerUser = try RateLimit.parse($1) },
        Setting(variable: "OFFER_SIGNER_RATE_NOTIFICATIONS_PER_ADDRESS", flag: "--rate-notifications-per-address") {
            $0.notificationRatePerAddress = try RateLimit.parse($1)
        },
        Setting(variable: "OFFER_SIGNER_MAX_CONNECTIONS", flag: "--max-connections") { $0.maxConnections = try positive($1) },
        Setting(variable: "OFFER_SIGNER_MAX_CONNECTIONS_PER_ADDRESS", flag: "--max-connections-per-address") {
            $0.maxConnectionsPerAddress = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_TRUSTED_PROXIES", flag: "--trusted-proxies") { $0.trustedProxies = list($1) },
        Setting(variable: "OFFER_SIGNER_CONNECTION_TIMEOUT", flag: "--connection-timeout") {
            $0.connectionTimeout = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_CHECKPOINT_INTERVAL", flag: "--checkpoint-interval") {
            $0.checkpointInterval = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_REQUEST_TIMEOUT", flag: "--request-timeout") {
            $0.requestTimeout = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_FIRST_LINE_TIMEOUT", flag: "--first-line-timeout") {
            $0.firstLineTimeout = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_APPSTORE_API_URL", flag: "--appstore-api-url") { $0.appStoreAPIURL = try baseURL($1) },
        Setting(variable: "OFFER_SIGNER_APPSTORE_API_RATE", flag: "--appstore-api-rate") { $0.appStoreAPIRate = try rate($1) },
        Setting(variable: "OFFER_SIGNER_RECOVER_INTERVAL", flag: "--recover-interval") { $0.recoverInterval = try interval($1) },
        Setting(variable: "OFFER_SIGNER_APPSTORE_CONNECT_URL", flag: "--appstore-connect-url") { $0.appStoreConnectURL = try baseURL($1) },
        Setting(variable: "OFFER_SIGNER_CATALOG_SYNC_INTERVAL", flag: "--catalog-sync-interval") {
            $0.catalogSyncInterval = try interval($1)
        },
        Setting(variable: "OFFER_SIGNER_RECOVER_MAX_PAGES", flag: "--recover-max-pages") { $0.recoverMaxPages = try positive($1) },
        Setting(variable: "OFFER_SIGNER_RECOVER_MAX_DURATION", flag: "--recover-max-duration") { $0.recoverMaxDuration = try positive($1) },
        Setting(variable: "OFFER_SIGNER_FETCH_UNKNOWN_USERS", flag: "--fetch-unknown-users") { $0.fetchUnknownUsers = try onOff($1) },
        Setting(variable: "OFFER_SIGNER_LINK_APP_ACCOUNT_TOKENS", flag: "--link-app-account-tokens") {
            $0.linkAppAccountTokens = try onOff($1)
        },
        Setting(variable: "OFFER_SIGNER_REQUIRE_SYNC_REPLICA", flag: "--require-sync-replica") { $0.requireSyncReplica = try onOff($1) },
        Setting(variable: "OFFER_SIGNER_APP_TRANSACTION_MAX_AGE", flag: "--app-transaction-max-age") {
            $0.appTransactionMaxAge = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_RETENTION_MAX_AGE", flag: "--retention-max-age") {
            $0.retentionRequestMaxAge = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_RETENTION_KEEP_DAYS", flag: "--retention-keep-days") {
            $0.retentionKeepDays = try positive($1)
        },
        Setting(variable: "OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE", flag: "--webhook-allow-private") { $0.webhookAllowPrivate = try onOff($1) },
        Setting(variable: "OFFER_SIGNER_WEBHOOK_KEEP_DAYS", flag: "--webhook-keep-days") { $0.webhookKeepDays = try positive($1) },
        Setting(variable: "OFFER_SIGNER_WEBHOOK_SECRETS_KEY", flag: "--webhook-secrets-key") { $0.webhookSecretsKey = $1.isEmpty ? nil : $1 },
    ]

    /// The flags of every setting (`--listen`, `--database`, …).
    public static var flags: Set<String> { Set(all.map(\.flag)) }

    /// Reads the environment, then the flags (`--flag value` or `--flag=value`); refuses
    /// unknown flags and bad values with a message naming them.
    public static func resolve(arguments: [String], environment: [String: String]) throws(SettingsError) -> ServiceSettings {
        try resolve(options: CommandLineOptions(arguments, allowed: flags), environment: environment)
    }

    /// Reads the environment, then those of `options` that are settings (a command may
    /// take options of its own beside them).
    public static func resolve(options: CommandLineOptions, environment: [String: String]) throws(SettingsError) -> ServiceSettings {
        var settings = ServiceSettings()
        for setting in all {
            if let value = environment[setting.variable] { try setting.apply(&settings, value) }
        }
        for (flag, value) in options.pairs {
            try all.first { $0.flag == flag }?.apply(&settings, value)
        }
        try settings.check()
        return settings
    }

    /// The database `database` names (checked by `resolve`).
    public var databaseLocation: DatabaseLocation {
        get throws(SettingsError) {
            do {
                return try DatabaseLocation(database)
            } catch {
                throw .invalidValue(setting: "OFFER_SIGNER_DATABASE/--database", value: DatabaseLocation.redacted(database),
                                    expected: "a SQLite file path or a postgresql:// URL (\(error))")
            }
        }
    }

    func check() throws(SettingsError) {
        _ = try databaseLocation
        guard ListenAddress(listen) != nil else {
            throw .invalidValue(setting: "OFFER_SIGNER_LISTEN/--listen", value: listen, expected: "HOST:PORT (e.g. 127.0.0.1:8080)")
        }
        let known = ["Production", "Sandbox"]
        for name in environments where !known.contains(name) {
            throw .invalidValue(setting: "OFFER_SIGNER_ENVIRONMENTS/--environments", value: name,
                                expected: "an App Store environment (\(known.joined(separator: ", ")))")
        }
        guard !environments.isEmpty else { throw .empty(setting: "OFFER_SIGNER_ENVIRONMENTS/--environments") }
        guard Logger.Level(name: logLevel) != nil else {
            throw .invalidValue(setting: "OFFER_SIGNER_LOG_LEVEL/--log-level", value: logLevel, expected: "debug, info, warning or error")
        }
        if let roots = appleRoots, roots.isEmpty { throw .empty(setting: "OFFER_SIGNER_APPLE_ROOTS/--apple-roots") }
    }

    private static func positive(_ text: String) throws(SettingsError) -> Int {
        guard let value = Int(text), value > 0 else { throw .invalidValue(setting: "", value: text, expected: "a positive whole number") }
        return value
    }

    /// An `http` or `https` URL without query or fragment.
    private static func baseURL(_ text: String) throws(SettingsError) -> String {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://"), text.split(separator: "/").count >= 2,
              !text.contains("?"), !text.contains("#"), text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw .invalidValue(setting: "", value: text, expected: "an http or https URL without query (e.g. https://api.storekit.apple.com)")
        }
        return text
    }

    /// Requests per second: a positive number up to 1000 (`50`, `12.5`).
    private static func rate(_ text: String) throws(SettingsError) -> Double {
        guard let value = Double(text.hasSuffix("/s") ? String(text.dropLast(2)) : text), value.isFinite, value > 0, value <= 1000 else {
            throw .invalidValue(setting: "", value: text, expected: "a number of requests per second above 0 and up to 1000 (e.g. 50)")
        }
        return value
    }

    /// `off`, or at least a minute: `90s`, `15m`, `1h`, or seconds.
    private static func interval(_ text: String) throws(SettingsError) -> Int? {
        if text.lowercased() == "off" { return nil }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        let unit = text.last.flatMap { units[$0] }
        guard let number = Int(unit == nil ? text : String(text.dropLast())), number > 0,
              number <= Int.max / 3600, number * (unit ?? 1) >= 60 else {
            throw .invalidValue(setting: "", value: text, expected: "off or an interval of at least a minute (e.g. 15m, 1h, 900s)")
        }
        return number * (unit ?? 1)
    }

    private static func onOff(_ text: String) throws(SettingsError) -> Bool {
        switch text.lowercased() {
        case "on", "true", "1", "yes": return true
        case "off", "false", "0", "no": return false
        default: throw .invalidValue(setting: "", value: text, expected: "on or off")
        }
    }

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
