import AppStoreServerAPI
import Foundation
import OfferSignerCore
import Synchronization

/// The App Store Connect API clients in force: one per Team key (apps that share a key share
/// its client, and so its pacing and Apple's hourly allowance), made when first needed and
/// kept while the key stays the same.
public final class AppStoreConnectClients: Sendable {
    /// Where every client sends its requests, and its bounds.
    public let configuration: AppStoreConnectConfiguration
    private let clients = Mutex<[String: AppStoreConnectClient]>([:])

    /// - Throws: when the base URL or a bound cannot be used.
    public init(configuration: AppStoreConnectConfiguration) throws(AppStoreConnectConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// Clients of Apple's own App Store Connect API with the default bounds (always valid).
    public init() {
        configuration = AppStoreConnectConfiguration()
    }

    /// The options the settings give: the base URL (`OFFER_SIGNER_APPSTORE_CONNECT_URL`) or Apple's.
    public convenience init(settings: ServiceSettings) throws(AppStoreConnectConfigurationError) {
        try self.init(configuration: AppStoreConnectConfiguration(baseURL: settings.appStoreConnectURL))
    }

    /// The client of `key`.
    public func client(for key: AppStoreConnectKey) throws(AppStoreConnectConfigurationError) -> AppStoreConnectClient {
        let slot = key.issuerId + "/" + key.keyId + "/" + key.privateKey.publicKey.spkiDER.map { String($0, radix: 16) }.joined()
        if let client = clients.withLock({ $0[slot] }) { return client }
        let client = try AppStoreConnectClient(credentials: AppStoreConnectCredentials(keyId: key.keyId, issuerId: key.issuerId,
                                                                                      privateKey: key.privateKey),
                                               configuration: configuration)
        return clients.withLock { clients in
            if let existing = clients[slot] { return existing }
            clients[slot] = client
            return client
        }
    }
}
