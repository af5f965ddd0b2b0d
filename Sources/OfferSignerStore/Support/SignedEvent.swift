import Foundation
import OfferSignerCore

/// `offer.signed` of a record the signature log appends, prepared on the request's thread
/// before the record goes to the log's writer (``SignedEvent/init(_:id:)``): its ID, ordering
/// key and document, all but the sequence number the batch gives it, written as bytes around
/// that number (`head`, `tail`). The writer, whose thread every signature waits for, only puts
/// the number between them (``numbered(_:)``) and inserts the row. The document is the text of
/// ``WebhookEvents/signed(_:id:)``'s `document`, to the byte (a test holds it to that).
struct SignedEvent: OutboxEvent, Sendable {
    let id: String
    /// The record the event tells of.
    let record: SignatureRecord
    let orderingKey: String
    /// The sequence number the log gave the record (nil: not yet appended).
    private(set) var sequence: Int64?
    /// The document's bytes up to and including `"sequence":`.
    private let head: [UInt8]
    /// The document's bytes after the sequence number.
    private let tail: [UInt8]

    /// Prepares the event of `record`, before the log appends it.
    init(_ record: SignatureRecord, id: String = SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID())) {
        self.id = id
        self.record = record
        orderingKey = WebhookEvents.userKey(userId: record.userId, transactionId: record.transactionId)
        let r = record
        var out: [UInt8] = []
        out.reserveCapacity(384 + r.userId.utf8.count + r.requestId.utf8.count)
        out.append(contentsOf: #"{"id":"#.utf8)
        Self.write(id, to: &out)
        out.append(contentsOf: #","type":"offer.signed","occurredAt":"#.utf8)
        Self.write(RFC3339.string(from: Date(milliseconds: r.timestamp)), to: &out)
        out.append(contentsOf: #","bundleId":"#.utf8)
        Self.write(r.bundleId, to: &out)
        out.append(contentsOf: #","environment":null,"data":{"#.utf8)
        if let allow = r.allowIntroductoryOffer {
            out.append(contentsOf: (allow ? #""allowIntroductoryOffer":true,"# : #""allowIntroductoryOffer":false,"#).utf8)
        }
        out.append(contentsOf: #""apiKeyName":"#.utf8)
        Self.write(r.apiKeyName, to: &out)
        out.append(contentsOf: #","format":"#.utf8)
        Self.write(r.format.rawValue, to: &out)
        out.append(contentsOf: #","keyId":"#.utf8)
        Self.write(r.keyId, to: &out)
        out.append(contentsOf: #","nonce":"#.utf8)
        Self.write(r.nonce, to: &out)
        out.append(contentsOf: #","offerId":"#.utf8)
        Self.write(r.offerId, to: &out)
        out.append(contentsOf: #","productId":"#.utf8)
        Self.write(r.productId, to: &out)
        out.append(contentsOf: #","requestId":"#.utf8)
        Self.write(r.requestId, to: &out)
        out.append(contentsOf: #","sequence":"#.utf8)
        head = out
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: #","source":"#.utf8)
        Self.write(r.source.rawValue, to: &out)
        out.append(contentsOf: #","transactionId":"#.utf8)
        if let transactionId = r.transactionId { Self.write(transactionId, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","userId":"#.utf8)
        Self.write(r.userId, to: &out)
        out.append(contentsOf: "}}".utf8)
        tail = out
    }

    /// The event of a record the log appended, prepared on the caller's thread.
    init(_ logged: LoggedSignature, id: String = SecureRandom.lowercasedString(SecureRandom.timeOrderedUUID())) {
        self.init(logged.record, id: id)
        sequence = logged.sequence
    }

    /// This event with the sequence number of `logged`, the log's entry of its record; nil when
    /// `logged` is another record's (its nonce differs).
    func numbered(_ logged: LoggedSignature) -> SignedEvent? {
        guard logged.record.nonce == record.nonce else { return nil }
        var event = self
        event.sequence = logged.sequence
        return event
    }

    var type: WebhookEventType { .offerSigned }
    var bundleId: String? { record.bundleId }
    var occurredAt: Date { Date(milliseconds: record.timestamp) }

    /// The document, members in the documented order and `data`'s sorted by key, as
    /// ``JSONValue`` writes a dictionary: `head`, the sequence number, `tail`.
    var document: String {
        let number = String(sequence ?? 0)
        return String(unsafeUninitializedCapacity: head.count + number.utf8.count + tail.count) { buffer in
            var at = buffer.initialize(fromContentsOf: head)
            at = buffer[at...].initialize(fromContentsOf: number.utf8)
            return buffer[at...].initialize(fromContentsOf: tail)
        }
    }

    /// `value` as a JSON string: copied whole between quotes when no byte needs escaping (the
    /// usual IDs), else as ``JSONValue/write(string:to:)`` escapes it.
    private static func write(_ value: String, to out: inout [UInt8]) {
        var text = value
        let plain = text.withUTF8 { bytes in
            !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            text.withUTF8 { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
        } else {
            var escaped = ""
            JSONValue.write(string: value, to: &escaped)
            out.append(contentsOf: escaped.utf8)
        }
    }
}
