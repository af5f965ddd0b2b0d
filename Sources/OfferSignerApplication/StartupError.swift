import AppStoreServerAPI
import OfferSignerCore

/// Why the service (or an offline command) could not start; each names the file or setting at fault.
public enum StartupError: Error, CustomStringConvertible, Sendable {
    /// The keys file (or the apps it configures) cannot be used.
    case configuration(ConfigurationError)
    /// The built-in Apple Root CA - G3 cannot be read (a broken build).
    case builtInRootUnreadable(CertificateError)
    /// A root certificate file of `OFFER_SIGNER_APPLE_ROOTS` cannot be read.
    case rootUnreadable(path: String)
    /// A root certificate file of `OFFER_SIGNER_APPLE_ROOTS` is not a certificate.
    case rootInvalid(path: String, CertificateError)
    /// The database cannot be opened (or created, or migrated).
    case database(path: String, reason: String)
    /// An offline command was pointed at a database that does not exist (only `serve` and
    /// `dev-setup` create one).
    case databaseMissing(path: String)
    /// The listening address cannot be bound.
    case cannotListen(reason: String)
    /// A file the development setup writes cannot be written.
    case cannotWrite(path: String, what: String)
    /// The App Store Server API settings cannot be used.
    case appStoreAPI(AppStoreServerAPIConfigurationError)
    /// The App Store Connect API client cannot be made from the settings.
    case appStoreConnect(AppStoreConnectConfigurationError)
    /// The key file of `OFFER_SIGNER_WEBHOOK_SECRETS_KEY` cannot be read or holds no key.
    case webhookSecretsKey(path: String, reason: String)
    /// A webhook's stored secret cannot be read: encrypted, and no key (or another) configured.
    case webhookSecrets(WebhookSecretError)

    public var description: String {
        switch self {
        case .configuration(let error): error.description
        case .builtInRootUnreadable(let error): "the built-in Apple Root CA - G3 cannot be read: \(error)"
        case .rootUnreadable(let path): "\(path): cannot read this Apple root certificate (OFFER_SIGNER_APPLE_ROOTS)"
        case .rootInvalid(let path, let error): "\(path): not a DER or PEM X.509 certificate (\(error))"
        case .database(let path, let reason): "\(path): cannot open the database: \(reason)"
        case .databaseMissing(let path):
            "\(path): no database here; only `serve` and `dev-setup` create one (check --database / OFFER_SIGNER_DATABASE)"
        case .cannotListen(let reason): reason
        case .cannotWrite(let path, let what): "\(path): cannot write \(what)"
        case .appStoreAPI(let error): "\(error) (OFFER_SIGNER_APPSTORE_API_URL, OFFER_SIGNER_APPSTORE_API_RATE)"
        case .appStoreConnect(let error): "\(error) (OFFER_SIGNER_APPSTORE_CONNECT_URL)"
        case .webhookSecretsKey(let path, let reason): "\(path): cannot use this webhook secrets key (OFFER_SIGNER_WEBHOOK_SECRETS_KEY): \(reason)"
        case .webhookSecrets(let error): "refusing to start: \(error)"
        }
    }
}
