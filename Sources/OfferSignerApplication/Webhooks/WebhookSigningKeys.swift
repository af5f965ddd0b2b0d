import OfferSignerCore

/// A lane's webhook secrets keyed for HMAC (``WebhookSigningKey``), kept between its posts:
/// each secret is keyed once, not once per post (keying was most of a signature header's
/// cost). Only the keys of the secrets asked for last are kept, so a secret rotated out (or a
/// webhook's old one past its 24 hours) is dropped at the next post.
struct WebhookSigningKeys {
    private var keys: [(secret: String, key: WebhookSigningKey)] = []

    /// The keys of `secrets`, in their order: those kept, and the others keyed now.
    mutating func keys(for secrets: [String]) -> [WebhookSigningKey] {
        if keys.count == secrets.count, zip(keys, secrets).allSatisfy({ $0.secret == $1 }) { return keys.map(\.key) }
        keys = secrets.map { secret in (secret, keys.first { $0.secret == secret }?.key ?? WebhookSigningKey(secret: secret)) }
        return keys.map(\.key)
    }
}
