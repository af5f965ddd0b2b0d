import Foundation
import OfferSignerCore
import OfferSignerStore

/// Decides whether a user may redeem an offer on a product, from the stored verified history.
package struct EligibilityCheck: Sendable {
    let history: any SubscriptionHistoryStore
    /// Subscriptions linked here to app account tokens at Apple: a user's history includes
    /// them before Apple's next notification carries the token (nil: not looked up).
    var links: (any AppAccountTokenLinkStore)?
    /// The App Store Connect catalogs: a product in one is known with its subscription group
    /// before anyone buys it (nil: not consulted).
    var catalogs: AppStoreCatalogs?

    package init(history: any SubscriptionHistoryStore, links: (any AppAccountTokenLinkStore)? = nil, catalogs: AppStoreCatalogs? = nil) {
        self.history = history
        self.links = links
        self.catalogs = catalogs
    }

    /// The decision for `userId` (lowercased app account token) on `rule` for `productId`,
    /// from the user's history in `environment` alone.
    package func decide(userId: String, rule: OfferRule, productId: String, environment: AppStoreEnvironment,
                now: Date) throws -> EligibilityDecision {
        try decide(userHistory: history.history(userId: userId, bundleId: rule.bundleId), rule: rule, productId: productId,
                   environment: environment, now: now)
    }

    /// The history that decides for `customer`: see ``history(userId:bundleId:provenSubscription:environment:)``.
    func history(of customer: BoundCustomer) throws -> UserHistory {
        try history(userId: customer.userId, bundleId: customer.app.bundleId, provenSubscription: customer.provenSubscription,
                    environment: customer.environment)
    }

    /// The history that decides for `userId` in `bundleId`: the user's own (none for an empty
    /// `userId`) and, for a customer who proved a subscription of `environment`, that
    /// subscription's whole history too, whatever app account token its transactions carry.
    /// No one else's: an unproven subscription without the user's token never counts.
    func history(userId: String, bundleId: String, provenSubscription: String?, environment: AppStoreEnvironment) throws -> UserHistory {
        var combined = userId.isEmpty ? UserHistory() : try history.history(userId: userId, bundleId: bundleId)
        if let provenSubscription {
            let subscription = try history.history(originalTransactionId: provenSubscription, environment: environment, bundleId: bundleId)
            combined.transactions += subscription.transactions
            combined.renewals += subscription.renewals
        }
        guard let links, !userId.isEmpty else { return combined }
        var added = Set(combined.transactions.filter { $0.environment == environment }.map(\.originalTransactionId))
        for original in try links.linkedSubscriptions(appAccountToken: userId, bundleId: bundleId, environment: environment)
        where !added.contains(original) {
            added.insert(original)
            let subscription = try history.history(originalTransactionId: original, environment: environment, bundleId: bundleId)
            combined.transactions += subscription.transactions
            combined.renewals += subscription.renewals
        }
        return combined
    }

    /// The decision on `rule` for `productId`, given the user's history in the rule's app
    /// (read once when several offers are judged for one user); only `environment`'s counts.
    package func decide(userHistory: UserHistory, rule: OfferRule, productId: String, environment: AppStoreEnvironment,
                now: Date) throws -> EligibilityDecision {
        let facts = try group(of: [productId] + rule.productIds, bundleId: rule.bundleId, environment: environment,
                              userHistory: userHistory)
            .flatMap { userHistory.facts(group: $0, environment: environment, now: now) }
        return EligibilityEvaluator.evaluate(facts: facts, rule: rule, now: now)
    }

    /// The subscription group of the first of `products` that verified transactions name: the
    /// user's own first, then anyone's. A product nobody has bought yet (a new price tier of
    /// the offer) thus still finds the group of the offer's other products, so a user's
    /// refunds and redemptions there are not mistaken for no history at all. Only transactions
    /// of `environment` say which group a product is in.
    func group(of products: [String], bundleId: String, environment: AppStoreEnvironment,
                       userHistory: UserHistory) throws -> String? {
        let transactions = userHistory.transactions
        for product in products {
            // Field by field: `first(where:)` would copy each transaction it visits (issue 38).
            for index in transactions.indices
            where transactions[index].environment == environment && transactions[index].productId == product {
                return transactions[index].subscriptionGroupIdentifier
            }
        }
        for product in products {
            if let group = try history.subscriptionGroup(productId: product, bundleId: bundleId, environment: environment) {
                return group
            }
        }
        // Nobody has bought it yet: the App Store Connect catalog knows its group (the same ID in every environment).
        if let catalog = catalogs?.cached(bundleId: bundleId)?.catalog {
            for product in products {
                if let group = catalog.subscription(productId: product)?.groupId { return group }
            }
        }
        return nil
    }
}
