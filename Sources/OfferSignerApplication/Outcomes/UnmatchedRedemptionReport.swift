import Foundation
import OfferSignerCore
import OfferSignerStore

/// What the service does when keeping outcomes up to date finds a redemption of a managed
/// offer that no signature issued here explains — either a signer it does not know about or a
/// leaked key: counts it (`offer_signer_unmatched_redemptions_total`) and logs a warning.
public enum UnmatchedRedemptionReport {
    /// Reports `history`'s findings to `metrics` and `logger` from now on.
    public static func attach(to history: OutcomeTrackingHistoryStore, metrics: Metrics, logger: Logger) {
        history.observe { event in
            switch event {
            case .unmatched(let records):
                for record in records {
                    let run = record.run
                    metrics.recordUnmatchedRedemption(bundleId: run.bundleId, offerId: run.offerIdentifier ?? "")
                    logger.log(.warning, "redemption of a managed offer that no signature issued here explains", [
                        "bundleId": .string(run.bundleId), "offerId": .string(run.offerIdentifier ?? ""),
                        "environment": .string(run.environment.rawValue), "originalTransactionId": .string(run.originalTransactionId),
                        "transactionId": .string(run.transactionId), "appAccountToken": run.appAccountToken.map(JSONValue.string) ?? .null,
                        "purchaseDate": .string(RFC3339.string(from: run.purchaseDate)),
                    ])
                }
            case .refreshFailed(let subscription, let reason):
                logger.log(.error, "the outcomes of a subscription could not be derived again (offer-signer outcomes rebuild repairs them)", [
                    "bundleId": .string(subscription.bundleId), "environment": .string(subscription.environment.rawValue),
                    "originalTransactionId": .string(subscription.originalTransactionId), "reason": .string(reason),
                ])
            }
        }
    }
}
