import Foundation

/// One redemption of an offer other than an introductory one (promotional, offer code,
/// win-back, App Store retention offer or a type Apple adds later), as Apple records it: a
/// run of consecutive periods of one subscription under the same offer. A pay-as-you-go
/// offer over three periods is three transactions and one redemption.
public struct OfferRedemption: Hashable, Sendable {
    /// Apple's `offerType` (2 promotional, 3 offer code, 4 win-back, 5 App Store retention
    /// offer, or later); see ``knownOfferType``.
    public var offerType: Int
    public var offerIdentifier: String?
    /// The subscription the offer was redeemed on.
    public var originalTransactionId: String
    /// The purchase date of the run's first period: when the customer redeemed the offer.
    public var date: Date

    /// ``offerType`` as Apple's ``OfferType``; nil for a type this build does not know.
    public var knownOfferType: OfferType? { Int32(exactly: offerType).flatMap(OfferType.init(rawValue:)) }

    /// The redemptions in `transactions` (one copy per `transactionId`), oldest first.
    ///
    /// Within each subscription (`originalTransactionId`), in purchase order, a transaction
    /// under an offer (``SubscriptionTransaction/isUnderOffer``) starts a redemption when the transaction before
    /// it was not under the same offer (`offerType` and `offerIdentifier`), or when the
    /// customer bought it (`transactionReason` `PURCHASE`: a new redemption after a lapse;
    /// later periods of a run are `RENEWAL`s). Access shared by a family member is not the
    /// user's redemption and is left out.
    public static func redemptions(in transactions: [SubscriptionTransaction]) -> [OfferRedemption] {
        transactions.withUnsafeBufferPointer { redemptions(in: $0, at: Array($0.indices)) }
    }

    /// ``redemptions(in:)`` of the transactions at `positions` in `transactions` (one copy per
    /// `transactionId`), read where they are: none is copied (issue 38).
    static func redemptions(in transactions: UnsafeBufferPointer<SubscriptionTransaction>, at positions: [Int]) -> [OfferRedemption] {
        // Only a period under an offer starts a redemption: a history without one (the usual
        // case) has none, and is not grouped or sorted.
        guard positions.contains(where: {
            transactions[$0].isUnderOffer && !SubscriptionTransaction.isFamilyShared(ownership: transactions[$0].inAppOwnershipType)
        }) else { return [] }
        let bySubscription = Dictionary(grouping: positions.filter {
            !SubscriptionTransaction.isFamilyShared(ownership: transactions[$0].inAppOwnershipType)
        }) {
            transactions[$0].originalTransactionId
        }
        var found: [OfferRedemption] = []
        for (subscription, periods) in bySubscription {
            var previous: Int?
            for period in periods.sorted(by: {
                (transactions[$0].purchaseDate, transactions[$0].transactionId) < (transactions[$1].purchaseDate, transactions[$1].transactionId)
            }) {
                defer { previous = period }
                guard transactions[period].isUnderOffer, let offerType = transactions[period].offerType else { continue }
                let continuesRun = previous.map {
                    transactions[$0].offerType == offerType && transactions[$0].offerIdentifier == transactions[period].offerIdentifier
                } ?? false
                if continuesRun && transactions[period].transactionReason.flatMap(TransactionReason.init(rawValue:)) != .purchase {
                    continue
                }
                found.append(OfferRedemption(
                    offerType: offerType, offerIdentifier: transactions[period].offerIdentifier,
                    originalTransactionId: subscription, date: transactions[period].purchaseDate))
            }
        }
        return found.sorted { ($0.date, $0.originalTransactionId) < ($1.date, $1.originalTransactionId) }
    }
}
