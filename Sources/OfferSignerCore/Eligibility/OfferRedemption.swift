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
        // Only a period under an offer starts a redemption: a history without one (the usual
        // case) has none, and is not grouped or sorted.
        guard transactions.contains(where: { $0.isUnderOffer && !$0.isFamilyShared }) else { return [] }
        let bySubscription = Dictionary(grouping: transactions.filter { !$0.isFamilyShared }, by: \.originalTransactionId)
        var found: [OfferRedemption] = []
        for (subscription, periods) in bySubscription {
            var previous: SubscriptionTransaction?
            for period in periods.sorted(by: { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }) {
                defer { previous = period }
                guard period.isUnderOffer, let offerType = period.offerType else { continue }
                let continuesRun = previous.map { $0.offerType == period.offerType && $0.offerIdentifier == period.offerIdentifier }
                    ?? false
                if continuesRun && period.knownTransactionReason != .purchase { continue }
                found.append(OfferRedemption(
                    offerType: offerType, offerIdentifier: period.offerIdentifier,
                    originalTransactionId: subscription, date: period.purchaseDate))
            }
        }
        return found.sorted { ($0.date, $0.originalTransactionId) < ($1.date, $1.originalTransactionId) }
    }
}
