import Foundation
import OfferSignerCore

/// `offer.signed` of a record the signature log appended, as the log's writer hands it to the
/// outbox inside the batch's transaction: its document is written directly, member by member,
/// instead of through a dictionary of ``JSONValue``s sorted at each write (the same text as
/// ``WebhookEvents/signed(_:id:)``'s `document`, which a test holds it to, about a fifth of
/// the time: the writer's thread is the one every signature waits for).
struct SignedEvent: OutboxEvent {
    let id: String
    let logged: LoggedSignature

    init(_ logged: LoggedSignature, id: String = SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID())) {
        self.id = id
        self.logged = logged
    }

    var type: WebhookEventType { .offerSigned }
    var bundleId: String? { logged.record.bundleId }
    var orderingKey: String { WebhookEvents.userKey(userId: logged.record.userId, transactionId: logged.record.transactionId) }
    var occurredAt: Date { Date(milliseconds: logged.record.timestamp) }

    /// The document, members in the documented order and `data`'s sorted by key, as
    /// ``JSONValue`` writes a dictionary.
    var document: String {
        let r = logged.record
        var out = #"{"id":"#
        out.reserveCapacity(512)
        JSONValue.write(string: id, to: &out)
        out += #","type":"offer.signed","occurredAt":"#
        JSONValue.write(string: RFC3339.string(from: occurredAt), to: &out)
        out += #","bundleId":"#
        JSONValue.write(string: r.bundleId, to: &out)
        out += #","environment":null,"data":{"#
        if let allow = r.allowIntroductoryOffer { out += allow ? #""allowIntroductoryOffer":true,"# : #""allowIntroductoryOffer":false,"# }
        out += #""apiKeyName":"#
        JSONValue.write(string: r.apiKeyName, to: &out)
        out += #","format":"#
        JSONValue.write(string: r.format.rawValue, to: &out)
        out += #","keyId":"#
        JSONValue.write(string: r.keyId, to: &out)
        out += #","nonce":"#
        JSONValue.write(string: r.nonce, to: &out)
        out += #","offerId":"#
        JSONValue.write(string: r.offerId, to: &out)
        out += #","productId":"#
        JSONValue.write(string: r.productId, to: &out)
        out += #","requestId":"#
        JSONValue.write(string: r.requestId, to: &out)
        out += #","sequence":"#
        out += String(Int(logged.sequence))
        out += #","source":"#
        JSONValue.write(string: r.source.rawValue, to: &out)
        out += #","transactionId":"#
        if let transactionId = r.transactionId { JSONValue.write(string: transactionId, to: &out) } else { out += "null" }
        out += #","userId":"#
        JSONValue.write(string: r.userId, to: &out)
        out += "}}"
        return out
    }
}
