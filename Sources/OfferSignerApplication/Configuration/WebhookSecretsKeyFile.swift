import Foundation
import OfferSignerCore

/// The file of `OFFER_SIGNER_WEBHOOK_SECRETS_KEY`: the AES-256 key that encrypts the webhooks'
/// signing secrets in the database, 32 random bytes written in base64 (`openssl rand -base64 32`)
/// or as 64 hexadecimal digits; whitespace around it is ignored.
public enum WebhookSecretsKeyFile {
    /// The sealer of the key in the file at `path`, and a warning when other users can read it.
    public static func load(path: String) throws(StartupError) -> (sealer: WebhookSecretSealer, warning: String?) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .webhookSecretsKey(path: path, reason: "the file cannot be read")
        }
        guard let key = key(String(decoding: data, as: UTF8.self)) else {
            throw .webhookSecretsKey(path: path, reason: "it must hold 32 bytes in base64 (openssl rand -base64 32) or 64 hexadecimal digits")
        }
        return (WebhookSecretSealer(key: key), FilePermissions.warning(for: path))
    }

    /// The key `text` spells, or nil.
    static func key(_ text: String) -> AES256GCMKey? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.utf8.count == 64, let bytes = [UInt8](hexString: trimmed) { return AES256GCMKey(bytes: bytes) }
        guard trimmed.utf8.count == 44, let data = Data(base64Encoded: trimmed) else { return nil }
        return AES256GCMKey(bytes: Array(data))
    }
}
