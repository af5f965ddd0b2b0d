import Foundation
import OfferSignerCore
import OfferSignerStore

/// A signature record as the audit API shows it.
public struct SignatureRecordDocument: Encodable {
    package let entry: LoggedSignature

    package init(entry: LoggedSignature) {
        self.entry = entry
    }

    enum Keys: String, CodingKey {
        case sequence, nonce, format, source, bundleId, productId, offerId, userId, keyId, timestamp, signature, transactionId
        case allowIntroductoryOffer, apiKeyName, requestId, recordedAt, previousHash, hash
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let r = entry.record
        try c.encode(entry.sequence, forKey: .sequence)
        try c.encode(r.nonce, forKey: .nonce)
        try c.encode(r.format, forKey: .format)
        try c.encode(r.source, forKey: .source)
        try c.encode(r.bundleId, forKey: .bundleId)
        try c.encode(r.productId, forKey: .productId)
        try c.encode(r.offerId, forKey: .offerId)
        try c.encode(r.userId, forKey: .userId)
        try c.encode(r.keyId, forKey: .keyId)
        try c.encode(r.timestamp, forKey: .timestamp)
        try c.encode(r.signature, forKey: .signature)
        try c.encode(r.transactionId, forKey: .transactionId)
        try c.encode(r.allowIntroductoryOffer, forKey: .allowIntroductoryOffer)
        try c.encode(r.apiKeyName, forKey: .apiKeyName)
        try c.encode(r.requestId, forKey: .requestId)
        try c.encode(Date(milliseconds: r.recordedAt), forKey: .recordedAt)
        try c.encode(entry.previousHash, forKey: .previousHash)
        try c.encode(entry.hash, forKey: .hash)
    }

    /// The CSV columns, in order (the columns added with sources and introductory-offer
    /// eligibility come last, so that the earlier ones keep their places).
    package static let csvHeader = ["sequence", "nonce", "format", "bundleId", "productId", "offerId", "userId", "keyId", "timestamp",
                            "signature", "transactionId", "apiKeyName", "requestId", "recordedAt", "previousHash", "hash",
                            "source", "allowIntroductoryOffer"]

    package var csvFields: [String] {
        let r = entry.record
        return [String(entry.sequence), r.nonce, r.format.rawValue, r.bundleId, r.productId, r.offerId, r.userId, r.keyId,
                String(r.timestamp), r.signature, r.transactionId ?? "", r.apiKeyName, r.requestId,
                RFC3339.string(from: Date(milliseconds: r.recordedAt)), entry.previousHash, entry.hash,
                r.source.rawValue, r.allowIntroductoryOffer.map { $0 ? "true" : "false" } ?? ""]
    }
}
