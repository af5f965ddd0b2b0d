/// How a webhook's signing secrets are kept in the database when a key is configured
/// (`OFFER_SIGNER_WEBHOOK_SECRETS_KEY`): `aes256gcm:v1:` and the base64url of AES-256-GCM's
/// `nonce ‖ ciphertext ‖ tag`, the webhook's ID authenticated beside it (a sealed secret copied
/// to another webhook's row does not open). A secret without that prefix is plain text (made
/// before a key was configured, or without one).
public struct WebhookSecretSealer: Sendable {
    /// What every sealed secret starts with.
    public static let prefix = "aes256gcm:v1:"
    private let key: AES256GCMKey

    public init(key: AES256GCMKey) {
        self.key = key
    }

    /// Whether `stored` is a sealed secret (rather than plain text).
    public static func isSealed(_ stored: String) -> Bool {
        stored.hasPrefix(prefix)
    }

    /// `secret` of webhook `webhookId`, sealed.
    public func seal(_ secret: String, webhookId: String) -> String {
        Self.prefix + Base64URL.encode(key.seal(Array(secret.utf8), associatedData: Self.associatedData(webhookId)))
    }

    /// The secret `stored` holds: opened when sealed, as it is when plain text.
    public func open(_ stored: String, webhookId: String) throws(WebhookSecretError) -> String {
        guard Self.isSealed(stored) else { return stored }
        guard let sealed = Base64URL.decode(stored.dropFirst(Self.prefix.count)).map({ [UInt8]($0) }),
              let plain = key.open(sealed, associatedData: Self.associatedData(webhookId)),
              let secret = String(validating: plain, as: UTF8.self) else {
            throw .wrongKey(webhookId: webhookId)
        }
        return secret
    }

    /// The secret `stored` holds with no key at hand: plain text as it is; a sealed one cannot be read.
    public static func open(_ stored: String, webhookId: String, with sealer: WebhookSecretSealer?) throws(WebhookSecretError) -> String {
        if let sealer { return try sealer.open(stored, webhookId: webhookId) }
        guard !isSealed(stored) else { throw .keyMissing(webhookId: webhookId) }
        return stored
    }

    static func associatedData(_ webhookId: String) -> [UInt8] {
        Array("offer-signer webhook secret\u{0}\(webhookId)".utf8)
    }
}

/// Why a stored webhook secret could not be read.
public enum WebhookSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The secret is sealed and no key is configured.
    case keyMissing(webhookId: String)
    /// The secret is sealed with another key (or was changed in the database).
    case wrongKey(webhookId: String)

    public var description: String {
        switch self {
        case .keyMissing(let id):
            "the secret of webhook '\(id)' is encrypted in the database and no key is configured: set OFFER_SIGNER_WEBHOOK_SECRETS_KEY "
                + "to the file of the key it was encrypted with"
        case .wrongKey(let id):
            "the secret of webhook '\(id)' does not decrypt with the key of OFFER_SIGNER_WEBHOOK_SECRETS_KEY: it was encrypted with "
                + "another key, or changed in the database"
        }
    }
}
