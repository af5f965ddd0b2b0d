import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer outcomes rebuild`: derives every redemption again from the stored history and
/// the signature log, matching each anew (the holdout decisions, recorded as they were made,
/// are kept).
public enum OutcomesRebuild {
    /// What a rebuild did.
    public struct Summary: Sendable, Hashable {
        /// Subscriptions with a period under a promotional or win-back offer.
        public var subscriptions: Int
        /// Redemptions found.
        public var redemptions: Int
        /// Of those, matched to a signature.
        public var matched: Int
    }

    /// Rebuilds `outcomes`, calling `progress` with the subscriptions done and the total.
    public static func run(_ outcomes: any OutcomeStore, progress: (Int, Int) -> Void = { _, _ in }) throws -> Summary {
        try outcomes.deleteAllRedemptions()
        let subscriptions = try outcomes.subscriptionsWithOffers()
        for (index, subscription) in subscriptions.enumerated() {
            try outcomes.refresh(subscription)
            if (index + 1) % 1000 == 0 || index + 1 == subscriptions.count { progress(index + 1, subscriptions.count) }
        }
        var summary = Summary(subscriptions: subscriptions.count, redemptions: 0, matched: 0)
        var after: Int64 = 0
        while true {
            let page = try outcomes.redemptions(matching: RedemptionFilter(), afterId: after, limit: 5000)
            summary.redemptions += page.count
            summary.matched += page.filter(\.matched).count
            guard page.count == 5000, let last = page.last else { break }
            after = last.id
        }
        return summary
    }
}
