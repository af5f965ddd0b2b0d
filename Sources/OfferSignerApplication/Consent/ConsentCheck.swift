import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's consent step: a customer linked to an app download whose consent
/// was rescinded (`RESCIND_CONSENT`, not cleared since) is offered nothing. The customer's
/// app downloads are the `appTransactionId`s of their history in the environment (transactions
/// and renewal infos carry it), of the proof they sent, and of the transaction the request
/// names without proving it: that ID itself (an introductory-eligibility request may name the
/// app download) and the app downloads of its subscription's stored transactions and renewal
/// infos. Naming a minor's transaction beside another `userId` is no side door.
package struct ConsentCheck: Sendable {
    let consents: any ConsentStore
    /// Where the subscription of a named transaction is looked up (nil: named transactions are not looked up).
    let history: (any SubscriptionHistoryStore)?

    package init(consents: any ConsentStore, history: (any SubscriptionHistoryStore)? = nil) {
        self.consents = consents
        self.history = history
    }

    /// The rescinding in force for a customer with `history` (and `proofDownloads`) in
    /// `environment`, or nil when none is.
    package func rescinded(history: UserHistory, proofDownloads: [String] = [],
                           environment: AppStoreEnvironment) throws -> ConsentEvent? {
        var downloads = Set(proofDownloads)
        for transaction in history.transactions where transaction.environment == environment {
            if let download = transaction.appTransactionId { downloads.insert(download) }
        }
        for renewal in history.renewals where renewal.environment == environment {
            if let download = renewal.appTransactionId { downloads.insert(download) }
        }
        guard !downloads.isEmpty else { return nil }
        return try consents.rescinded(appTransactionIds: downloads.sorted(), environment: environment).first
    }

    /// Refuses `customer` when a rescinding is in force for them, or for the transaction the
    /// request names (`transactionId`), unless a verified proof already bound it (the proven
    /// subscription's history is then part of `history`).
    func check(_ customer: BoundCustomer, history: UserHistory, naming transactionId: String? = nil) throws(SignRefusal) {
        let event: ConsentEvent?
        do {
            var combined = history
            var downloads = customer.appDownloads
            if let transactionId, customer.provenSubscription == nil, let store = self.history {
                downloads.append(transactionId)
                let named = try store.history(transactionId: transactionId, environment: customer.environment,
                                              bundleId: customer.app.bundleId)
                combined.transactions += named.transactions
                combined.renewals += named.renewals
            }
            event = try rescinded(history: combined, proofDownloads: downloads, environment: customer.environment)
        } catch {
            throw .store(error)
        }
        if let event { throw .consentRescinded(appTransactionId: event.appTransactionId, since: event.at) }
    }
}
