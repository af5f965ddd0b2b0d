import Foundation
import OfferSignerCore
import OfferSignerStore

/// A redemption as the audit API shows it (`GET /v1/audit/redemptions`): its offer, the
/// subscription and first transaction, when it started, the signature that explains it (or
/// none) and its outcome at the time of the answer.
public struct RedemptionDocument: Encodable, Sendable {
    package let record: RedemptionRecord
    package let now: Date

    package init(record: RedemptionRecord, now: Date) {
        self.record = record
        self.now = now
    }

    enum Keys: String, CodingKey {
        case bundleId, offerId, environment, originalTransactionId, transactionId, appAccountToken, purchaseDate, matched
        case signatureNonce, outcome
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let run = record.run
        try c.encode(run.bundleId, forKey: .bundleId)
        try c.encode(run.offerIdentifier, forKey: .offerId)
        try c.encode(run.environment, forKey: .environment)
        try c.encode(run.originalTransactionId, forKey: .originalTransactionId)
        try c.encode(run.transactionId, forKey: .transactionId)
        try c.encode(run.appAccountToken, forKey: .appAccountToken)
        try c.encode(run.purchaseDate, forKey: .purchaseDate)
        try c.encode(record.matched, forKey: .matched)
        try c.encode(record.signatureNonce, forKey: .signatureNonce)
        try c.encode(run.outcome(at: now), forKey: .outcome)
    }

    /// The CSV columns, in the order of the JSON fields.
    package static let csvHeader = ["bundleId", "offerId", "environment", "originalTransactionId", "transactionId", "appAccountToken",
                                    "purchaseDate", "matched", "signatureNonce", "outcome"]

    package var csvFields: [String] {
        let run = record.run
        return [run.bundleId, run.offerIdentifier ?? "", run.environment.rawValue, run.originalTransactionId, run.transactionId,
                run.appAccountToken ?? "", RFC3339.string(from: run.purchaseDate), record.matched ? "true" : "false",
                record.signatureNonce ?? "", run.outcome(at: now).rawValue]
    }
}
