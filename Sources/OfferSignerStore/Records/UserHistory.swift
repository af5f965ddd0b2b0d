import Foundation
import OfferSignerCore

/// A user's verified history in one app, of every environment (each item says which).
public struct UserHistory: Sendable, Hashable {
    public var transactions: [SubscriptionTransaction]
    public var renewals: [SubscriptionRenewalState]

    public init(transactions: [SubscriptionTransaction] = [], renewals: [SubscriptionRenewalState] = []) {
        self.transactions = transactions
        self.renewals = renewals
    }

    /// Facts for the subscription group `group` from `environment`'s history alone, or nil
    /// when the user has nothing in that group there.
    public func facts(group: String, environment: AppStoreEnvironment, now: Date) -> HistoryFacts? {
        HistoryFacts.compute(transactions: transactions, renewalStates: renewals, subscriptionGroupIdentifier: group,
                             environment: environment, now: now)
    }
}
